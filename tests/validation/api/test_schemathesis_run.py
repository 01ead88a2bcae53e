"""A schema that is the truth (issue 19): schemathesis with all its checks, against the
running API, finds no failure — no 500, no undocumented status or content type, no schema-
valid request refused, no schema-violating request accepted, the stateful phase following the
schema's links from an ingest to its detail, evidence, drafts and export.

Run from the command line, as a client would, against gunicorn serving this test's database
(tests/validation/api/schemathesis.toml and schemathesis_hooks.py say what the run assumes).
The seed is fixed, so a red build is reproducible; set REDLINE_SCHEMATHESIS_SEED and
REDLINE_SCHEMATHESIS_EXAMPLES to explore further (docs/benchmarks.md)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import UserFactory
from tests.support import worker
from tests.support.net import free_port
from validation.services import api_token_create

pytestmark = pytest.mark.django_db(transaction=True)

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent
EXAMPLES = os.environ.get("REDLINE_SCHEMATHESIS_EXAMPLES", "60")
SEED = os.environ.get("REDLINE_SCHEMATHESIS_SEED", "19")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """gunicorn (the production server) over this test's database; validation runs inline."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": worker.test_database_url(),
        "REDLINE_BIND": f"127.0.0.1:{port}",
        "REDLINE_WEB_WORKERS": "1",
        "REDLINE_WEB_THREADS": "4",
        "REDLINE_TASKS_EAGER": "1",
        "REDLINE_LOG_LEVEL": "ERROR",
        "REDLINE_DB_CONN_MAX_AGE": "0",
    }
    with (tmp_path / "gunicorn.log").open("wb") as log:
        process = subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", "python:project.gunicorn_conf", "project.wsgi"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_schemathesis_with_all_its_checks_finds_no_failure(server: str, tmp_path: Path) -> None:
    token = api_token_create(user=UserFactory.create(username="fuzzer"), scope="write")[1]
    command = [
        str(BIN / "schemathesis"),
        "--no-color",
        "--config-file",
        str(HERE / "schemathesis.toml"),
        "run",
        f"{server}/api/v1/openapi.json",
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {token}",
        "--max-examples",
        EXAMPLES,
        "--seed",
        SEED,
        "--generation-database",
        "none",
    ]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.validation.api.schemathesis_hooks",
        "PYTHONPATH": str(HERE.parents[2]),
    }

    # In a directory of its own: schemathesis keeps a cache of what it found where it runs.
    run = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )

    report = run.stdout[-30_000:] + run.stderr[-5_000:]
    print(report[-2500:])
    assert run.returncode == 0, report
    summary = report.split("SUMMARY")[-1]
    assert "Stateful" in summary and "failed" not in summary, report
