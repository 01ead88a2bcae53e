"""`redline check` (python -m validation.engine): runs without Django or a database, and
turns every unreadable input into a clear message and exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from validation.engine.cli import main
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict, VerdictError

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def redline(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "REDLINE"))}
    completed = subprocess.run(
        [sys.executable, "-m", "validation.engine", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        completed.args,
        completed.returncode,
        completed.stdout.decode("utf-8"),
        completed.stderr.decode("utf-8"),
    )


def _without_timings(verdict: Verdict) -> dict[str, object]:
    return verdict.model_dump(mode="json", exclude={"timings_ms"})


def test_check_prints_the_verdict_json() -> None:
    result = redline("check", str(DATA / "bundle_flawed.json"))

    assert result.returncode == 0, result.stderr
    verdict = Verdict.model_validate_json(result.stdout)
    assert verdict.decision in ("REVISE", "RETRY", "FAIL")
    kinds = {finding.kind for finding in verdict.findings}
    assert {"raw_url", "unknown_url", "unknown_ref", "heading"} <= kinds
    assert not verdict.checks.no_hallucinations
    assert not verdict.checks.source_metadata_present
    assert verdict.fields.decision == "BUY"
    assert result.stderr == ""


def test_standard_input_gives_the_same_verdict_as_the_file() -> None:
    from_file = redline("check", str(DATA / "bundle_flawed.json"))
    from_stdin = redline("check", "-", stdin=(DATA / "bundle_flawed.json").read_bytes())

    assert from_stdin.returncode == 0, from_stdin.stderr
    assert _without_timings(Verdict.model_validate_json(from_stdin.stdout)) == _without_timings(
        Verdict.model_validate_json(from_file.stdout)
    )


def test_markdown_format_is_the_attempt_record_plus_findings_and_fixes() -> None:
    result = redline("check", str(DATA / "bundle_flawed.json"), "--format", "markdown")

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("## 7. Validation\n\n**Decision:** ")
    assert "### Checks\n| Check | Result |" in result.stdout
    assert "| Source Metadata Present | FAIL |" in result.stdout
    assert "### Findings\n1. " in result.stdout
    assert "### Proposed Fixes\n1. " in result.stdout
    assert "VERIFIED_WITH: format: raw URL wrapped as a markdown link" in result.stdout


def test_jsonl_gives_one_line_per_bundle_in_order_and_survives_a_broken_line() -> None:
    result = redline("check", "--jsonl", str(DATA / "bundles.jsonl"))

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4  # five lines in, one of them blank
    first = Verdict.model_validate_json(lines[0])
    broken = VerdictError.model_validate_json(lines[1])
    third = Verdict.model_validate_json(lines[2])
    invalid = VerdictError.model_validate_json(lines[3])
    assert broken.line == 2
    assert broken.error == "line 2 is not a valid bundle:"
    assert broken.details[0].startswith("malformed JSON at line")
    assert first.fields.decision == "BUY" and third.fields.decision == "BUY"
    assert {f.kind for f in third.findings} >= {"unknown_url"}
    assert invalid.line == 5
    assert invalid.details == ["evidence[0].source_ref: field required"]
    assert json.loads(lines[1]) == {
        "error": broken.error,
        "line": 2,
        "details": broken.details,
    }


def test_jsonl_reads_a_non_utf8_line_as_an_error_line(tmp_path: Path) -> None:
    good = (DATA / "bundle_nvo.json").read_text("utf-8").replace("\n", " ")
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"query": "caf\xe9"}\n' + good.encode() + b"\n")

    result = redline("check", "--jsonl", str(path))

    assert result.returncode == 0
    first, second = result.stdout.splitlines()
    assert VerdictError.model_validate_json(first).details == [
        "query is not valid UTF-8 (byte 0xe9)"
    ]
    assert Verdict.model_validate_json(second).decision


def test_the_context_pair_files() -> None:
    result = redline(
        "check",
        "--context",
        str(DATA / "pair" / "context.md"),
        "--response",
        str(DATA / "pair" / "response.md"),
    )

    assert result.returncode == 0, result.stderr
    verdict = Verdict.model_validate_json(result.stdout)
    assert verdict.fields.decision == "BUY"
    assert verdict.fields.conviction == "MODERATE"
    assert [goal.goal for goal in verdict.goals] == [
        "Owner earnings from operating cash flow and capex",
        "Intrinsic value and margin of safety versus the current price",
    ]


def test_settings_file_changes_the_thresholds() -> None:
    default = Verdict.model_validate_json(redline("check", str(DATA / "bundle_flawed.json")).stdout)
    strict = redline(
        "check", str(DATA / "bundle_flawed.json"), "--settings", str(DATA / "settings_strict.json")
    )

    assert strict.returncode == 0, strict.stderr
    verdict = Verdict.model_validate_json(strict.stdout)
    assert verdict.confidence == default.confidence
    assert verdict.decision == "FAIL"  # 0.9 is the strict retry threshold


# ---------------------------------------------------------------- unreadable input


def _assert_clean_failure(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    for text in expected:
        assert text in result.stderr, result.stderr


def test_a_bundle_breaking_the_schema_names_the_field() -> None:
    result = redline("check", str(DATA / "bundle_invalid.json"))

    _assert_clean_failure(
        result,
        "bundle_invalid.json is not a valid bundle:",
        "evidence[0].source_ref: field required",
    )


def test_a_non_utf8_bundle_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"query": "café", "body": "x"}'.encode("latin-1"))

    _assert_clean_failure(redline("check", str(path)), "is not valid UTF-8 (byte 0xe9")


def test_bad_json_is_refused_with_its_position(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"query": "q",\n "body": }', "utf-8")

    _assert_clean_failure(
        redline("check", str(path)), "is not a valid bundle", "malformed JSON at line 2 column 10"
    )


def test_json_that_is_not_an_object_is_refused() -> None:
    _assert_clean_failure(
        redline("check", "-", stdin=b"[1, 2]"), "bundle must be a JSON object, got an array"
    )


def test_a_missing_file_is_refused() -> None:
    _assert_clean_failure(redline("check", "/nonexistent/bundle.json"), "cannot open")
    _assert_clean_failure(redline("check", "--jsonl", "/nonexistent/b.jsonl"), "cannot open")


def test_invalid_settings_name_the_field(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"approve_threshold": 2, "colour": "red"}', "utf-8")

    _assert_clean_failure(
        redline("check", str(DATA / "bundle_nvo.json"), "--settings", str(path)),
        "approve_threshold: Input should be less than or equal to 1",
        "colour: Extra inputs are not permitted",
    )


def test_a_context_pair_without_a_query_is_refused(tmp_path: Path) -> None:
    context = tmp_path / "context.md"
    context.write_text("## 4. Execution Progress\nprice 1\n", "utf-8")

    _assert_clean_failure(
        redline("check", "--context", str(context), "--response", str(context)),
        "no §0 user query section",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "a.json", "--jsonl", "b.jsonl"],
        ["check", "--context", "c.md"],
        ["check", "--jsonl", "b.jsonl", "--format", "markdown"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = redline(*args)

    assert result.returncode == 2
    assert "usage: redline" in result.stderr


def _deeply_nested_bundle(depth: int = 600) -> str:
    """Evidence nested far deeper than any tool output: valid JSON, refused by the schema."""
    content: object = 1.5
    for _ in range(depth):
        content = {"a": content}
    bundle = {
        "body": "The price is $1.50.",
        "query": "What is the price?",
        "evidence": [{"source_ref": "deep", "content": content}],
    }
    return json.dumps(bundle)


def test_evidence_nested_too_deeply_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_deeply_nested_bundle(), "utf-8")

    result = redline("check", str(path))

    assert result.returncode == 2
    assert "evidence[0].content" in result.stderr
    assert "nested deeper than 64 levels" in result.stderr
    assert "Traceback" not in result.stderr


def _failing_engine(bundle: Bundle, settings: object = None, *, index: object = None) -> Verdict:
    """An engine with a bug: what `redline` must survive without a traceback."""
    if bundle.title == "boom":
        raise ZeroDivisionError("division by zero in a check")
    return validate(bundle)


def test_an_engine_failure_is_an_internal_error_with_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "boom.json"
    path.write_text(json.dumps({"title": "boom", "body": "x", "query": "q"}), "utf-8")

    code = main(["check", str(path)], engine=_failing_engine)

    out, err = capsys.readouterr()
    assert code == 3
    assert out == ""
    assert err == (
        f"redline: internal error while checking {path}: "
        "ZeroDivisionError: division by zero in a check\n"
    )


def test_help_documents_the_exit_codes() -> None:
    result = redline("check", "--help")

    assert result.returncode == 0
    assert "3 when the engine itself fails" in " ".join(result.stdout.split())


def test_jsonl_turns_an_engine_failure_into_an_error_line_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = (DATA / "bundle_nvo.json").read_text("utf-8").replace("\n", " ")
    boom = json.dumps({"title": "boom", "body": "x", "query": "q"})
    path = tmp_path / "batch.jsonl"
    path.write_text(boom + "\n" + good + "\n", "utf-8")

    code = main(["check", "--jsonl", str(path)], engine=_failing_engine)

    out, _ = capsys.readouterr()
    assert code == 0
    first, second = out.splitlines()
    failure = VerdictError.model_validate_json(first)
    assert failure.line == 1
    assert failure.error == "internal error while checking line 1"
    assert failure.details == ["ZeroDivisionError: division by zero in a check"]
    assert Verdict.model_validate_json(second).decision


def test_json_nested_too_deeply_to_parse_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "abyss.json"
    path.write_text('{"body": ' + "[" * 100_000 + "]" * 100_000 + "}", "utf-8")

    result = redline("check", str(path))

    assert result.returncode == 2
    assert result.stderr.startswith(f"redline: {path} is not a valid bundle:")
    assert "malformed JSON: nested too deeply" in result.stderr


def test_the_command_line_never_imports_django() -> None:
    code = (
        "import sys\n"
        "from validation.engine.cli import main\n"
        f"code = main(['check', {str(DATA / 'bundle_nvo.json')!r}])\n"
        "assert 'django' not in sys.modules, 'django was imported'\n"
        "sys.exit(code)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120, check=False
    )

    assert completed.returncode == 0, completed.stderr.decode()


def test_jsonl_verdicts_equal_single_checks(tmp_path: Path) -> None:
    nvo = json.loads((DATA / "bundle_nvo.json").read_text("utf-8"))
    edited = dict(nvo, body=nvo["body"].replace("[dcf-NVO]", "[tool-9]"))
    path = tmp_path / "same-evidence.jsonl"
    path.write_text(json.dumps(nvo) + "\n" + json.dumps(edited) + "\n", "utf-8")
    single = tmp_path / "edited.json"
    single.write_text(json.dumps(edited), "utf-8")

    batch = redline("check", "--jsonl", str(path)).stdout.splitlines()
    alone = redline("check", str(single)).stdout

    assert len(batch) == 2
    assert _without_timings(Verdict.model_validate_json(batch[1])) == _without_timings(
        Verdict.model_validate_json(alone)
    )
    assert Verdict.model_validate_json(batch[1]).findings[0].kind == "unknown_ref"


# ---------------------------------------------------------------- ingest's rules, ingest's limits


def _bundle_text(**changes: object) -> str:
    bundle: dict[str, object] = {
        "query": "What is the price?",
        "body": "The price is $1.50 [src].",
        "evidence": [{"source_ref": "src", "content": "Price: $1.50"}],
    }
    bundle.update(changes)
    return json.dumps(bundle)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        (_bundle_text(fields={"intrinsic_value": 1}).replace("1}", "NaN}"), "NaN is not a valid"),
        (_bundle_text(fields={"x": 1}).replace("1}", "Infinity}"), "Infinity is not a valid"),
        (_bundle_text(fields={"x": 1}).replace("1}", "1e999}"), "fields.x: must be a finite"),
        (_bundle_text(body="a\u0000b"), "body: contains a NUL character"),
        (_bundle_text(body=" \n\t "), "body: must not be blank"),
        (_bundle_text(fields={f"f{i}": "x" for i in range(101)}), "at most 100 fields"),
        (_bundle_text(fields={"x": 1}).replace("1}", "9" * 5000 + "}"), "fields.x: an integer"),
        (
            _bundle_text(evidence=[{"source_ref": "s", "content": {"n": 1}}]).replace(
                '"n": 1', '"n": ' + "7" * 5000
            ),
            "evidence[0].content.n: an integer of 5000 digits",
        ),
        (_bundle_text(fields={"intrinsic_value": "NaN"}), "fields.intrinsic_value: must be a"),
        (_bundle_text(fields={"decision": "buy?"}), "fields.decision: must be a"),
        (
            _bundle_text(evidence=[{"source_ref": "s", "url": "javascript:x", "content": "c"}]),
            "is not a valid URL",
        ),
    ],
)
def test_what_ingest_refuses_the_command_line_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, detail: str
) -> None:
    path = tmp_path / "bundle.json"
    path.write_text(text, "utf-8")

    code = main(["check", str(path)])

    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert detail in err
    assert "Traceback" not in err


def test_the_byte_limits_come_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDLINE_MAX_BODY_BYTES", "10")
    path = tmp_path / "bundle.json"
    path.write_text(_bundle_text(), "utf-8")

    assert main(["check", str(path)]) == 2
    assert "body: exceeds the 10-byte limit (REDLINE_MAX_BODY_BYTES)" in capsys.readouterr().err


def test_a_file_over_the_input_limit_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:  # sparse: 50 MB that the command must not read
        handle.truncate(50_000_000)

    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "exceeds the 6200000-byte input limit" in err
    assert "it is 50000000 bytes" in err


def test_jsonl_goes_on_after_a_huge_integer_and_an_oversized_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDLINE_MAX_EVIDENCE_BYTES", "1000")
    huge_int = _bundle_text(fields={"x": 1}).replace("1}", "9" * 5000 + "}")
    oversized = _bundle_text(title="x" * 1_300_000)
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join([huge_int, oversized, _bundle_text()]) + "\n", "utf-8")

    assert main(["check", "--jsonl", str(path)]) == 0

    first, second, third = capsys.readouterr().out.splitlines()
    assert "an integer of 5000 digits" in VerdictError.model_validate_json(first).details[0]
    assert "exceeds the 1201000-byte input limit" in VerdictError.model_validate_json(second).error
    assert Verdict.model_validate_json(third).decision
