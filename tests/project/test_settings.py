"""Production settings: `check --deploy` is clean, and a missing secret stops the start.

Each case runs manage.py in a fresh process with only the environment it names, because
settings are read once at import time."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    clean = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "REDLINE_VAR_DIR": str(tmp_path),  # keep the broker folders out of the repository
        # Not the developer's local .env (`make run` writes one): production reads no file.
        "REDLINE_ENV_FILE": str(tmp_path / "no.env"),
        **env,
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def production_env() -> dict[str, str]:
    return {
        "REDLINE_DEBUG": "0",
        "REDLINE_SECRET_KEY": secrets.token_urlsafe(50),
        "REDLINE_ALLOWED_HOSTS": "redline.example.com",
        "REDLINE_HTTPS": "1",
    }


def test_check_deploy_passes_with_production_settings(production_env, tmp_path):
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env, tmp_path
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_does_fail_on_a_weak_secret_key(production_env, tmp_path):
    """The check above means something: a warning does fail it."""
    production_env["REDLINE_SECRET_KEY"] = "short"

    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env, tmp_path
    )

    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_production_settings_are_secure(production_env, tmp_path):
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({n: getattr(s, n) for n in ['DEBUG', 'SECURE_SSL_REDIRECT', "
        "'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_HSTS_SECONDS', "
        "'ALLOWED_HOSTS', 'X_FRAME_OPTIONS']}))"
    )
    production_env["DJANGO_SETTINGS_MODULE"] = "project.settings"

    result = _run(["-c", code], production_env, tmp_path)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "DEBUG": False,
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "ALLOWED_HOSTS": ["redline.example.com"],
        "X_FRAME_OPTIONS": "DENY",
    }


def test_without_a_secret_key_production_refuses_to_start(production_env, tmp_path):
    del production_env["REDLINE_SECRET_KEY"]

    result = _run(["manage.py", "check"], production_env, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_SECRET_KEY must be set when REDLINE_DEBUG is off" in result.stderr


def test_debug_is_off_unless_asked_for(tmp_path):
    result = _run(["manage.py", "check"], {}, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_SECRET_KEY must be set" in result.stderr


def test_the_local_run_needs_no_secret(tmp_path):
    result = _run(["manage.py", "check"], {"REDLINE_DEBUG": "1"}, tmp_path)

    assert result.returncode == 0, result.stderr


def test_a_malformed_boolean_is_a_clear_error(production_env, tmp_path):
    production_env["REDLINE_HTTPS"] = "maybe"

    result = _run(["manage.py", "check"], production_env, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_HTTPS must be a boolean (1/0, true/false), got 'maybe'" in result.stderr
