"""Production settings: `check --deploy` is clean, and a missing secret stops the start.

Each case runs manage.py in a fresh process with only the environment it names, because
settings are read once at import time."""

from __future__ import annotations

import ast
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def test_check_deploy_passes_with_production_settings(production_env: Any, tmp_path: Path) -> None:
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env, tmp_path
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_does_fail_on_a_weak_secret_key(production_env: Any, tmp_path: Path) -> None:
    """The check above means something: a warning does fail it."""
    production_env["REDLINE_SECRET_KEY"] = "short"

    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env, tmp_path
    )

    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_production_settings_are_secure(production_env: Any, tmp_path: Path) -> None:
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


def test_without_a_secret_key_production_refuses_to_start(
    production_env: Any, tmp_path: Path
) -> None:
    del production_env["REDLINE_SECRET_KEY"]

    result = _run(["manage.py", "check"], production_env, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_SECRET_KEY must be set when REDLINE_DEBUG is off" in result.stderr


def test_debug_is_off_unless_asked_for(tmp_path: Path) -> None:
    result = _run(["manage.py", "check"], {}, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_SECRET_KEY must be set" in result.stderr


def test_the_local_run_needs_no_secret(tmp_path: Path) -> None:
    result = _run(["manage.py", "check"], {"REDLINE_DEBUG": "1"}, tmp_path)

    assert result.returncode == 0, result.stderr


def test_a_malformed_boolean_is_a_clear_error(production_env: Any, tmp_path: Path) -> None:
    production_env["REDLINE_HTTPS"] = "maybe"

    result = _run(["manage.py", "check"], production_env, tmp_path)

    assert result.returncode != 0
    assert "REDLINE_HTTPS must be a boolean (1/0, true/false), got 'maybe'" in result.stderr


def test_manage_py_reads_the_local_env_file_beneath_the_environment(tmp_path: Path) -> None:
    env_file = tmp_path / "local.env"
    env_file.write_text("REDLINE_DEBUG=1\nREDLINE_SECRET_KEY=from-file\nREDLINE_QUEUE=from-file\n")
    show = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SECRET_KEY, s.CELERY_TASK_DEFAULT_QUEUE)"
    )

    result = _run(
        ["manage.py", "shell", "-c", show],
        {"REDLINE_ENV_FILE": str(env_file), "REDLINE_QUEUE": "from-environment"},
        tmp_path,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == ["True", "from-file", "from-environment"]


# ---------------------------------------------------------------- one list of variables

ENV_READERS = {"envstr", "envbool", "envint", "envlist"}


def _names_read(path: Path) -> set[str]:
    """The variables a module reads: string constants given to an env reader, to
    os.environ.get / os.getenv, or listed in a tuple of *_VARIABLES."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            if (
                name in ENV_READERS
                or (name == "get" and owner.lower().endswith("environ"))
                or (name == "getenv")
            ):
                names.add(str(node.args[0].value))
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id.endswith("_VARIABLES")
            for target in node.targets
        ):
            names |= {
                str(item.value) for item in ast.walk(node.value) if isinstance(item, ast.Constant)
            }
    return names


def _readme_table() -> set[str]:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", section, flags=re.MULTILINE))


def _suite_variables() -> set[str]:
    """What the test suite itself reads (its own knobs, documented beside the others)."""
    return {
        name
        for path in (ROOT / "tests").rglob("*.py")
        for name in _names_read(path)
        if name.startswith("REDLINE_") and path.name != "test_settings.py"
    }


def test_settings_py_is_the_one_reader_of_the_environment_on_the_django_side() -> None:
    readers = sorted(
        str(path.relative_to(ROOT))
        for package in ("project", "analyses", "validation")
        for path in (ROOT / package).rglob("*.py")
        if "engine" not in path.relative_to(ROOT).parts
        and re.search(r"os\.environ|getenv", path.read_text("utf-8"))
    )

    assert readers == [
        "project/asgi.py",  # DJANGO_SETTINGS_MODULE defaults
        "project/celery.py",
        "project/gunicorn_conf.py",  # gunicorn reads it itself
        "project/settings.py",
        "project/wsgi.py",
    ]
    for name in ("asgi", "celery", "wsgi"):
        text = (ROOT / "project" / f"{name}.py").read_text("utf-8")
        assert re.findall(r"os\.environ\S*", text) == [
            'os.environ.setdefault("DJANGO_SETTINGS_MODULE",'
        ]


def test_the_engine_reads_the_environment_in_one_place_for_its_command_lines() -> None:
    engine = ROOT / "validation" / "engine"
    readers = sorted(
        str(path.relative_to(ROOT))
        for path in engine.rglob("*.py")
        if re.search(r"os\.environ|getenv", path.read_text("utf-8"))
    )

    assert readers == ["validation/engine/environment.py"]


def test_the_readme_table_lists_every_variable_settings_read_and_no_other() -> None:
    settings_names = _names_read(ROOT / "project" / "settings.py")
    gunicorn_names = _names_read(ROOT / "project" / "gunicorn_conf.py")
    table = _readme_table()

    assert settings_names - table == set(), "read in settings.py, missing from README"
    assert gunicorn_names - table == set(), "read in gunicorn_conf.py, missing from README"
    assert table - settings_names - gunicorn_names - _suite_variables() == set(), (
        "in README's table, read nowhere"
    )
    assert {"REDLINE_SECRET_KEY", "REDLINE_LLM_BASE_URL", "REDLINE_ENV_FILE"} <= settings_names
