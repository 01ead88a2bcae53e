"""`redline check --llm` against the scripted loopback server, and against a port where
nothing listens: a verdict carrying the error, exit 0, no traceback, never APPROVE."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.engine.llm.helpers import DATA, judge_json
from tests.engine.llm.server import ScriptedLLM, free_port, reply
from validation.engine.types import Verdict

ROOT = Path(__file__).resolve().parents[3]


def redline(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "REDLINE"))}
    return subprocess.run(
        [sys.executable, "-m", "validation.engine", *args],
        capture_output=True,
        cwd=ROOT,
        env={**base, **env},
        timeout=120,
        check=False,
        text=True,
    )


def test_check_llm_puts_the_llm_calls_in_the_verdict() -> None:
    with ScriptedLLM([reply(judge_json())]) as llm:
        result = redline(
            "check",
            "--llm",
            str(DATA / "bundle_nvo.json"),
            env={"REDLINE_LLM_BASE_URL": llm.base_url, "REDLINE_LLM_MODEL": "scripted-7b"},
        )

    assert result.returncode == 0, result.stderr
    verdict = Verdict.model_validate_json(result.stdout)
    assert verdict.decision == "APPROVE"
    assert verdict.llm is not None
    assert verdict.llm.status == "ok"
    assert verdict.llm.model == "scripted-7b"
    (call,) = verdict.llm.calls
    assert call.purpose == "judge"
    assert call.response.startswith('{"decision": "APPROVE"')
    assert verdict.llm.retry.attempts == 1
    assert llm.requests[0]["model"] == "scripted-7b"


def test_check_llm_with_an_unreachable_endpoint_gives_an_errored_verdict() -> None:
    result = redline(
        "check",
        "--llm",
        str(DATA / "bundle_nvo.json"),
        env={
            "REDLINE_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
            "REDLINE_LLM_ATTEMPT_BUDGET": "5",
        },
    )

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    verdict = Verdict.model_validate_json(result.stdout)
    assert verdict.decision != "APPROVE"
    assert verdict.llm is not None
    assert verdict.llm.status == "errored"
    assert "cannot connect" in verdict.llm.error
    assert any("LLM judge errored" in issue for issue in verdict.issues)


def test_check_llm_jsonl_runs_the_llm_path_per_line(tmp_path: Path) -> None:
    bundle = json.loads((DATA / "bundle_nvo.json").read_text())
    lines = tmp_path / "bundles.jsonl"
    lines.write_text(json.dumps(bundle) + "\n" + json.dumps(bundle) + "\n")
    with ScriptedLLM([reply(judge_json()), reply("nonsense")], fallback=reply("nonsense")) as llm:
        result = redline(
            "check", "--llm", "--jsonl", str(lines), env={"REDLINE_LLM_BASE_URL": llm.base_url}
        )

    assert result.returncode == 0, result.stderr
    first, second = (Verdict.model_validate_json(line) for line in result.stdout.splitlines())
    assert first.decision == "APPROVE"
    assert second.decision == "REVISE"  # its judge never answered validly
    assert second.llm is not None and second.llm.status == "errored"


def test_check_llm_without_an_endpoint_is_an_input_error() -> None:
    result = redline("check", "--llm", str(DATA / "bundle_nvo.json"), env={})
    assert result.returncode == 2
    assert "REDLINE_LLM_BASE_URL" in result.stderr
    bad = redline(
        "check",
        "--llm",
        str(DATA / "bundle_nvo.json"),
        env={"REDLINE_LLM_BASE_URL": "http://h/v1", "REDLINE_LLM_TIMEOUT": "-1"},
    )
    assert bad.returncode == 2
    assert "REDLINE_LLM_TIMEOUT" in bad.stderr


def test_check_without_llm_prints_no_llm_section() -> None:
    result = redline("check", str(DATA / "bundle_nvo.json"), env={})
    assert result.returncode == 0
    assert '"llm"' not in result.stdout
