"""`redline submit` and `redline_client.submit` against a real loopback HTTP server that
plays the REST API: every exit code, what is sent, what is printed."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from redline_client import (
    AnalysisState,
    Approved,
    Refused,
    SubmitResult,
    TimedOut,
    Unreachable,
    Verdict,
    submit,
)
from redline_client.cli import main
from tests.redline_client.conftest import PORTS, ScriptedApi, free_port_in_range
from validation.engine import cli as engine_cli

CREATE = ("POST", "/api/v1/analyses")
DETAIL = ("GET", "/api/v1/analyses/7")
EXPORT = ("GET", "/api/v1/analyses/7/export")
EXPORT_MD = ("GET", "/api/v1/analyses/7/export?format=markdown")
TOKEN = "rl_test-token"
BUNDLE = {
    "external_id": "nvo-1",
    "query": "Is NVO a buy?",
    "body": "# NVO\n\nRevenue was $40.1B [gurufocus].\n",
    "evidence": [{"source_ref": "gurufocus", "content": {"revenue": 40_100_000_000}}],
}
FAST = ["--poll-interval", "0.05"]


def summary(status: str) -> dict[str, Any]:
    return {
        "id": 7,
        "url": "/api/v1/analyses/7",
        "external_id": "nvo-1",
        "title": "NVO",
        "status": status,
        "needs_new_input": False,
        "decision": "WATCH",
        "conviction": "MODERATE",
    }


ATTEMPT = {
    "number": 1,
    "revision": 1,
    "status": "done",
    "decision": "REVISE",
    "confidence": 0.62,
    "checks": {"claims_supported": False, "coherent_format": True},
    "issues": ["Revenue does not match the evidence"],
    "error": "",
    "findings": [
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": "$40.2B is not $40.1B",
            "text": "$40.2B",
        }
    ],
    "fixes": [
        {
            "id": 3,
            "kind": "close_but_wrong",
            "status": "proposed",
            "find": "$40.2B",
            "replace": "$40.1B",
            "verified_with": "gurufocus: revenue 40100000000",
            "confidence": 0.95,
        }
    ],
}


def detail(status: str, attempts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {**summary(status), "attempts": [] if attempts is None else attempts}


def ok(payload: Any, status: int = 200) -> tuple[int, Any, dict[str, str]]:
    return status, payload, {}


@pytest.fixture
def bundle_file(tmp_path: Path) -> Path:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(BUNDLE), encoding="utf-8")
    return path


def run(api: ScriptedApi, bundle: Path, *options: str) -> int:
    return main([str(bundle), "--url", api.url, "--token", TOKEN, *FAST, *options])


def test_without_wait_it_returns_when_validated_and_prints_the_verdict(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(
        *DETAIL,
        ok(detail("validating")),
        ok(detail("validating")),
        ok(detail("in_review", [ATTEMPT])),
    )

    assert run(api, bundle_file) == 0

    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "in_review" and out["created"] is True
    assert out["review_url"] == f"{api.url}/analyses/7/"
    verdict = out["verdict"]
    assert (verdict["decision"], verdict["confidence"]) == ("REVISE", 0.62)
    assert verdict["findings"][0]["message"] == "$40.2B is not $40.1B"
    assert verdict["fixes"][0]["replace"] == "$40.1B"
    assert len(api.requests(*DETAIL)) == 3
    (sent,) = api.requests(*CREATE)
    assert sent.headers["Authorization"] == f"Bearer {TOKEN}"
    assert sent.headers["Content-Type"] == "application/json"
    assert json.loads(sent.body) == BUNDLE


def test_the_verdict_in_markdown_names_decision_findings_and_fixes(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("in_review", [ATTEMPT])))

    assert run(api, bundle_file, "--format", "markdown") == 0

    out = capsys.readouterr().out
    assert "Analysis 7 is **in review**" in out
    assert "## Verdict: REVISE" in out and "Confidence 0.62" in out
    assert "| claims_supported | FAIL |" in out
    assert "**major** claims_supported/close_but_wrong: $40.2B is not $40.1B" in out
    assert "`$40.2B` → `$40.1B` (proposed, confidence 0.95)" in out
    assert "VERIFIED_WITH: gurufocus: revenue 40100000000" in out


def test_a_failed_validation_exits_1(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = {**ATTEMPT, "status": "failed", "decision": None, "error": "engine crashed"}
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("failed", [failed])))

    assert run(api, bundle_file) == 1

    captured = capsys.readouterr()
    assert json.loads(captured.out)["verdict"]["error"] == "engine crashed"
    assert "analysis 7 failed" in captured.err


def test_with_wait_it_returns_the_approved_text(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = {**summary("approved"), "revision": 2, "body": "# NVO\n\nRevenue was $40.1B.\n"}
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(
        *DETAIL,
        ok(detail("validating")),
        ok(detail("in_review", [ATTEMPT])),
        ok(detail("in_review", [ATTEMPT])),
        ok(detail("approved", [ATTEMPT])),
    )
    api.on(*EXPORT, ok(export))
    api.on(*EXPORT_MD, ok("# NVO\n\nRevenue was $40.1B.\n\n## Validation appendix\n"))

    assert run(api, bundle_file, "--wait", "--format", "markdown") == 0
    assert capsys.readouterr().out.startswith("# NVO\n\nRevenue was $40.1B.\n")

    assert run(api, bundle_file, "--wait") == 0
    assert json.loads(capsys.readouterr().out)["body"] == export["body"]


def test_with_wait_a_rejected_analysis_exits_1(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("in_review")))  # sent before: the server had it (200)
    api.on(*DETAIL, ok(detail("in_review", [ATTEMPT])), ok(detail("rejected", [ATTEMPT])))

    assert run(api, bundle_file, "--wait") == 1

    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert (out["outcome"], out["created"]) == ("rejected", False)
    assert "analysis 7 rejected" in captured.err
    assert api.requests(*EXPORT) == []


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "Send a valid API token: Authorization: Bearer <token>."),
        (400, "body: not valid JSON"),
        (409, "external_id 'nvo-1' was already used for other content"),
        (413, "The request body is 9000000 bytes; the limit is 6200000."),
        (422, "evidence[0].source_ref: Field required"),
    ],
)
def test_a_refusal_exits_2_with_the_servers_message(
    api: ScriptedApi,
    bundle_file: Path,
    capsys: pytest.CaptureFixture[str],
    status: int,
    message: str,
) -> None:
    api.on(*CREATE, (status, {"message": message, "field": None}, {}))

    assert run(api, bundle_file) == 2

    err = capsys.readouterr().err
    assert f"the server refused the request ({status}): {message}" in err
    assert api.requests(*DETAIL) == []


def test_a_redirect_is_refused_and_the_token_goes_nowhere_else(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, (302, {}, {"Location": "http://127.0.0.1:1/elsewhere"}))

    assert run(api, bundle_file) == 2

    assert "it redirects to http://127.0.0.1:1/elsewhere" in capsys.readouterr().err
    assert len(api.seen) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "is not valid JSON"),
        (b"[1, 2]", "must hold one JSON object (a bundle), not an array"),
        (b"\xff\xfe{}", "is not UTF-8"),
    ],
)
def test_a_bad_bundle_file_exits_2_and_sends_nothing(
    api: ScriptedApi,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    message: str,
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)

    assert run(api, path) == 2

    assert message in capsys.readouterr().err
    assert api.seen == []


def test_bad_options_exit_2_and_send_nothing(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([str(tmp_path / "missing.json"), "--url", api.url, "--token", TOKEN]) == 2
    assert "cannot open" in capsys.readouterr().err
    assert main([str(bundle_file), "--url", "ftp://host", "--token", TOKEN]) == 2
    assert "--url must be an http:// or https:// address" in capsys.readouterr().err
    assert main([str(bundle_file), "--url", api.url, "--token", TOKEN, "--timeout", "0"]) == 2
    assert "timeout must be a positive number" in capsys.readouterr().err
    assert main([str(bundle_file), "--url", api.url]) == 2  # no token, none in the environment
    assert "give --token TOKEN" in capsys.readouterr().err
    assert main([str(bundle_file), "--token", TOKEN]) == 2  # argparse: --url is required
    assert api.seen == []


def test_still_validating_at_the_timeout_exits_3(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("validating")))

    assert run(api, bundle_file, "--timeout", "1") == 3

    assert "analysis 7 was not validated within 1 s (it is validating)" in capsys.readouterr().err


def test_in_review_is_not_the_end_with_wait_so_it_times_out(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("in_review", [ATTEMPT])))

    assert run(api, bundle_file, "--wait", "--timeout", "1") == 3

    assert "was not approved, rejected or failed within 1 s" in capsys.readouterr().err


def test_a_server_that_asks_to_come_back_later_is_asked_again(
    api: ScriptedApi, bundle_file: Path
) -> None:
    down = (503, {"message": "The database is unavailable", "field": None}, {"Retry-After": "0"})
    api.on(*CREATE, down, ok(summary("validating"), 201))
    api.on(*DETAIL, (429, {"message": "slow down"}, {"Retry-After": "0"}), ok(detail("in_review")))

    assert run(api, bundle_file) == 0

    assert len(api.requests(*CREATE)) == 2 and len(api.requests(*DETAIL)) == 2


def test_a_server_that_keeps_answering_503_times_out(api: ScriptedApi, bundle_file: Path) -> None:
    api.on(*CREATE, (503, {"message": "The broker is unavailable"}, {"Retry-After": "1"}))

    assert run(api, bundle_file, "--timeout", "1.5") == 3


def test_no_server_exits_4(bundle_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port_in_range()}"

    assert main([str(bundle_file), "--url", url, "--token", TOKEN, "--timeout", "10"]) == 4

    assert f"cannot reach {url}" in capsys.readouterr().err


def test_a_server_that_keeps_failing_exits_4(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, (502, "<html>Bad Gateway</html>", {}))

    assert run(api, bundle_file) == 4

    assert "kept failing: 502 <html>Bad Gateway</html>" in capsys.readouterr().err
    assert len(api.requests(*DETAIL)) == 4  # the first try and three more


def test_the_redline_command_hands_submit_over_to_the_client(
    api: ScriptedApi, bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("failed")))
    argv = ["submit", str(bundle_file), "--url", api.url, "--token", TOKEN, *FAST]

    assert engine_cli.main(argv) == 1
    assert "redline submit: analysis 7 failed" in capsys.readouterr().err
    assert engine_cli.main(["submit", "--url", api.url]) == 2
    assert "usage: redline submit" in capsys.readouterr().err


def test_the_python_api_answers_typed_results(api: ScriptedApi) -> None:
    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("approved", [ATTEMPT])))
    api.on(*EXPORT, ok({**summary("approved"), "revision": 1, "body": "final"}))
    api.on(*EXPORT_MD, ok("final\n"))

    result = submit(BUNDLE, url=api.url + "/", token=TOKEN, wait=True, poll_interval=0.05)

    assert isinstance(result, SubmitResult) and result.exit_code == 0
    assert isinstance(result.analysis, AnalysisState) and result.analysis.id == 7
    assert isinstance(result.verdict, Verdict) and result.verdict.fixes[0].confidence == 0.95
    assert result.approved == Approved(
        revision=1,
        body="final",
        markdown="final\n",
        export={**summary("approved"), "revision": 1, "body": "final"},
    )


def test_the_python_api_raises_errors_that_carry_the_exit_code(
    api: ScriptedApi, bundle_file: Path
) -> None:
    api.on(*CREATE, (401, {"message": "Send a valid API token", "field": "Authorization"}, {}))
    with pytest.raises(Refused) as refused:
        submit(bundle_file, url=api.url, token="wrong")
    assert (refused.value.status, refused.value.field, refused.value.exit_code) == (
        401,
        "Authorization",
        2,
    )

    api.on(*CREATE, ok(summary("validating"), 201))
    api.on(*DETAIL, ok(detail("validating")))
    with pytest.raises(TimedOut) as late:
        submit(bundle_file, url=api.url, token=TOKEN, timeout=0.5, poll_interval=0.05)
    assert (late.value.analysis_id, late.value.exit_code) == (7, 3)

    with pytest.raises(Unreachable) as down:
        submit(bundle_file, url=f"http://127.0.0.1:{free_port_in_range()}", token=TOKEN)
    assert down.value.exit_code == 4


def test_a_post_that_got_no_answer_is_not_sent_twice(
    bundle_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A server that reads the request and closes without answering: it may have acted on it.
    server = socket.socket()
    for port in PORTS:
        try:
            server.bind(("127.0.0.1", port))
            break
        except OSError:
            continue
    server.listen()
    seen: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                seen.append(conn.recv(65536))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    try:
        code = main([str(bundle_file), "--url", url, "--token", TOKEN, "--timeout", "10"])
    finally:
        server.close()
        thread.join(timeout=5)

    assert code == 4
    assert "cannot reach" in capsys.readouterr().err
    assert len(seen) == 1
