"""The client stands alone: it imports and runs with the server's dependencies blocked, and
`pip install ./redline_client` installs it without them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.redline_client.conftest import ScriptedApi

ROOT = Path(__file__).resolve().parents[2]
BLOCKED = (
    "django",
    "celery",
    "kombu",
    "pydantic",
    "ninja",
    "httpx",
    "openai",
    "psycopg",
    "redis",
    "analyses",
    "validation",
    "project",
)

# Runs first in a fresh interpreter (-I: no environment, no user site): the client comes from
# CLIENT_PATH, and any import of a blocked package fails loudly.
BLOCKER = f"""
import importlib.abc, os, sys

sys.path.insert(0, os.environ["CLIENT_PATH"])

BLOCKED = {BLOCKED!r}


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked: the client must not need it")
        return None


sys.meta_path.insert(0, Block())
"""


def _python(
    code: str, *, path: Path, args: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-c", BLOCKER + code, *(args or [])],
        cwd=path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"CLIENT_PATH": str(path), "PATH": "/usr/bin:/bin"},
    )


def test_the_client_imports_and_runs_with_the_servers_dependencies_blocked(
    api: ScriptedApi, tmp_path: Path
) -> None:
    api.on("POST", "/api/v1/analyses", (201, {"id": 7, "status": "validating"}, {}))
    api.on("GET", "/api/v1/analyses/7", (200, {"id": 7, "status": "failed", "attempts": []}, {}))
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"query": "q", "body": "b"}))
    code = """
import sys
import redline_client
from redline_client import submit, SubmitResult
from redline_client.cli import main

assert not any(name.split(".")[0] in BLOCKED for name in sys.modules), sorted(sys.modules)
result = submit(sys.argv[1], url=sys.argv[2], token="t", poll_interval=0.05)
assert isinstance(result, SubmitResult) and result.outcome == "failed"
code = main([sys.argv[1], "--url", sys.argv[2], "--token", "t", "--poll-interval", "0.05"])
print("exit", code)
"""
    done = _python(code, path=ROOT, args=[str(bundle), api.url])

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("exit 1")


def test_the_blocker_does_block(tmp_path: Path) -> None:
    done = _python("import django", path=ROOT)

    assert done.returncode != 0 and "django is blocked" in done.stderr


def test_pip_installs_the_client_alone(tmp_path: Path) -> None:
    source = tmp_path / "redline_client"
    shutil.copytree(ROOT / "redline_client", source, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    installed = sorted(path.name for path in target.iterdir())
    assert "redline_client" in installed
    assert not [name for name in installed if name.split("-")[0].lower() in BLOCKED]
    assert (target / "bin" / "redline-submit").exists()

    code = "import redline_client; print(redline_client.__file__, redline_client.submit)"
    done = _python(code, path=target)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(target))
