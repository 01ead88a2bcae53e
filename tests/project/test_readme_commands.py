"""Every command of the README's CLI and import sections works as written, in a new shell,
after the first `make run` of a fresh copy of the repository; so do the pipeline guide's
token command and first ingest, against the running `make run`.

The copy holds the tracked files (and new ones not ignored) and shares this checkout's
virtualenv. First: with no `.env` and no environment, `manage.py` refuses to start without a
secret key. Then `make run` (on a free port) must answer. While it runs: the README's token
command (`--create-user`) and its ingest `curl`, in one shell (the README's port 8000 becomes
the free port), must answer 201; and the worker's attempts -- the demo data and that ingest --
must be counted by `redline_attempt_duration_seconds` on the web server's `/metrics` (the
two processes share their metrics). Then `make run` is stopped and has written `.env`; each
README command of the CLI and import sections runs in an environment with nothing but PATH,
HOME and LANG, and must exit 0 without a traceback. (`make test` is never run from here.)
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SECTIONS = ("Check a report without a database", "Import bundles")
PIPELINE = "Send reports from your pipeline"
RUN_TIMEOUT = 240


def _section(text: str, title: str) -> str:
    """The section's text, less its fenced code blocks (the webhook check in Python is
    code to read, not a command to run)."""
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    kept: list[str] = []
    fenced = False
    for line in text[start : end if end != -1 else None].splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def readme_commands() -> list[str]:
    """The indented command lines of the sections, continuation lines joined."""
    text = README.read_text(encoding="utf-8")
    commands: list[str] = []
    for title in SECTIONS:
        pending = ""
        for line in _section(text, title).splitlines():
            if not line.startswith("    ") or not line.strip():
                continue
            stripped = line.strip()
            if not pending and not (stripped.startswith((".venv/", "cat "))):
                continue  # the bundle example's JSON is indented too
            pending += stripped
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            commands.append(pending)
            pending = ""
    return commands


def rest_api_commands() -> list[str]:
    """The pipeline guide's commands up to its first ingest: the token, then the curl
    (continuation lines joined, as a shell reads them)."""
    section = _section(README.read_text(encoding="utf-8"), PIPELINE)
    commands: list[str] = []
    pending = ""
    for line in section.splitlines():
        stripped = line.strip()
        if not line.startswith("    ") or not stripped or stripped.startswith("#"):
            continue
        pending += stripped
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if "'" in pending and pending.count("'") % 2:  # a quoted JSON body spans lines
            pending += " "
            continue
        commands.append(pending)
        pending = ""
        if commands[-1].startswith("curl"):
            break
    return commands


def rest_api_later_commands() -> list[str]:
    """The pipeline guide's commands after its first ingest: follow, list, the RETRY path,
    the exports (continuation lines joined)."""
    section = _section(README.read_text(encoding="utf-8"), PIPELINE)
    commands: list[str] = []
    pending = ""
    for line in section.split("# 201 ", 1)[1].splitlines()[1:]:  # after the first ingest
        stripped = line.strip()
        if not line.startswith("    ") or not stripped or stripped.startswith("#"):
            continue
        if pending.count("'") % 2:  # a quoted JSON body spans lines
            pending += " " + stripped
            continue
        pending += stripped
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        commands.append(pending)
        pending = ""
    return commands


def _files_named(command: str) -> list[str]:
    words = shlex.split(command, comments=True)
    return [
        word
        for word in words
        if re.search(r"\.(json|jsonl|md)$", word) and not word.startswith("-")
    ]


def test_the_readme_names_commands_and_every_example_file_exists() -> None:
    commands = readme_commands()
    assert len(commands) >= 9, commands
    assert any("import_bundles" in command for command in commands)
    for command in commands:
        for name in _files_named(command):
            assert (ROOT / name).is_file(), f"{command!r} names {name}, which is missing"


def _clean_env() -> dict[str, str]:
    """A new shell: no REDLINE_*, DATABASE_URL or broker from the test run."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    copy = tmp_path_factory.mktemp("fresh-clone")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():
            continue
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)  # keeps mtimes: make sees the venv as installed
    # The copy uses this checkout's venv, entry by entry, with a stamp of its own that is
    # newer than its pyproject.toml: make in the copy never reinstalls the package into
    # the shared venv (an editable install from the copy would leave this checkout's
    # scripts running a temporary directory's code).
    venv = copy / ".venv"
    venv.mkdir()
    for entry in (ROOT / ".venv").iterdir():
        if entry.name != ".installed":
            (venv / entry.name).symlink_to(entry)
    pyproject = (copy / "pyproject.toml").stat().st_mtime
    (venv / ".installed").touch()
    os.utime(venv / ".installed", (pyproject + 1, pyproject + 1))
    yield copy


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop `make run` as Ctrl-C would: the whole process group."""
    for sig, wait in ((signal.SIGINT, 30), (signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def test_make_run_then_every_readme_command_works_in_a_new_shell(fresh_copy: Path) -> None:
    env = _clean_env()
    python = str(fresh_copy / ".venv" / "bin" / "python")

    refused = subprocess.run(
        [python, "manage.py", "check"], cwd=fresh_copy, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "REDLINE_SECRET_KEY must be set" in refused.stderr

    port = _free_port()
    log = (fresh_copy / "make-run.log").open("wb")
    process = subprocess.Popen(
        ["make", "run", f"PORT={port}"],
        cwd=fresh_copy,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        url = f"http://127.0.0.1:{port}/accounts/login/"
        while not _answers(url):
            assert process.poll() is None, (fresh_copy / "make-run.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "make run did not answer in time"
            time.sleep(1)
        _rest_api_and_metrics_work_under_make_run(fresh_copy, env, port)
    finally:
        _stop(process)
        log.close()
    output = (fresh_copy / "make-run.log").read_text()
    assert "Traceback" not in output, output[-3000:]
    assert not _answers(f"http://127.0.0.1:{port}/accounts/login/")
    written = (fresh_copy / ".env").read_text()
    assert "REDLINE_DEBUG=1" in written
    assert re.search(r"^REDLINE_SECRET_KEY=\S{40,}$", written, re.MULTILINE)

    for command in readme_commands():
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=fresh_copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        said = result.stdout + result.stderr
        assert "Traceback" not in said, f"{command}\n{said[-3000:]}"
        assert result.returncode == 0, f"{command} exited {result.returncode}\n{said[-3000:]}"


def _metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def _rest_api_and_metrics_work_under_make_run(copy: Path, env: dict[str, str], port: int) -> None:
    commands = rest_api_commands()
    assert commands[0].startswith("TOKEN=$(") and "--create-user" in commands[0], commands
    assert commands[-1].startswith("curl -sS -X POST http://127.0.0.1:8000/api/v1/analyses")
    script = "set -e\n" + "\n".join(
        command.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for command in commands
    )
    script += "\nprintf '%s' \"$TOKEN\" > .readme-token"  # for the section's later commands
    result = subprocess.run(
        ["bash", "-c", script], cwd=copy, env=env, capture_output=True, text=True, timeout=120
    )
    said = result.stdout + result.stderr
    assert result.returncode == 0 and "Traceback" not in said, said[-3000:]
    created = json.loads(result.stdout.strip().splitlines()[-1])
    assert created["status"] == "validating" and created["url"].startswith("/api/v1/analyses/")

    # The worker validates the demo data and that ingest; the web server's /metrics counts
    # every attempt it ran (it observes the duration, the web server answers the scrape).
    url = f"http://127.0.0.1:{port}/metrics"
    deadline = time.monotonic() + 120
    while True:
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
        counted = _metric(text, "redline_attempt_duration_seconds_count")
        done = sum(
            float(value)
            for value in re.findall(
                r'^redline_attempts_total\{decision="[A-Z]+",status="done"\} (\S+)$',
                text,
                re.MULTILINE,
            )
        )
        if done >= 5 and counted >= done:
            break
        assert time.monotonic() < deadline, f"attempts done {done}, counted {counted}"
        time.sleep(2)
    _later_rest_api_commands_work(copy, env, port, created["id"])


def _later_rest_api_commands_work(
    copy: Path, env: dict[str, str], port: int, analysis_id: int
) -> None:
    """The section's later commands, as written but for the port and the id (42 in the
    README), each curl told to print its status last: each answers 200 (new evidence 202,
    validated again), or for the RETRY path and one report's export the 409 the README
    documents for an analysis whose status refuses them (the ingest may be approved or in
    review by then)."""
    token = (copy / ".readme-token").read_text()
    commands = rest_api_later_commands()
    assert len(commands) >= 6 and commands[-1].startswith(".venv/bin/python manage.py export_")
    for command in commands:
        written = command.replace("127.0.0.1:8000", f"127.0.0.1:{port}").replace(
            "/analyses/42", f"/analyses/{analysis_id}"
        )
        if written.startswith("curl "):
            written = "curl -w '\\n%{http_code}' " + written.removeprefix("curl ")
        result = subprocess.run(
            ["bash", "-c", written],
            cwd=copy,
            env={**env, "TOKEN": token},
            capture_output=True,
            text=True,
            timeout=60,
        )
        said = result.stdout + result.stderr
        assert result.returncode == 0 and "Traceback" not in said, f"{written}\n{said[-3000:]}"
        if not written.startswith("curl "):
            continue
        body, _, status = result.stdout.rpartition("\n")
        allowed = (
            {"200", "201", "202", "409"}
            if "/evidence" in written or "/export?" in written
            else {"200"}
        )
        assert status in allowed, f"{written}\n{said[-3000:]}"
        payload = body.split("\n\n", 1)[-1] if " -D - " in written else body  # text mode
        if "format=markdown" in written and status != "409":
            assert payload.startswith("#"), f"{written}\n{said[-3000:]}"  # the report itself
        elif "/exports/" not in written or payload:  # an export may hold no line yet
            json.loads(payload.splitlines()[0])
