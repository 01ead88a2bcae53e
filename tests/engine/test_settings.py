"""Engine settings: the same JSON object configures `redline check --settings FILE` and,
through the Policy, the worker; citation strictness and the failing severity are two of
them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

ROOT = Path(__file__).resolve().parents[2]

BUNDLE = Bundle(
    query="What was the change in Other income in 2021 from 2020?",
    goals=["What was the change in Other income in 2021 from 2020?"],
    body="Other income went from 5.5 in 2021 to 4.2 in 2020; the change is 5.5 - 4.2 = 1.3.",
    evidence=[
        EvidenceItem(
            source_ref="table",
            content="| | 2021 | 2020 |\n|---|---|---|\n| Other income | 5.5 | 4.2 |",
        )
    ],
)


def test_the_defaults_are_the_spec_rules() -> None:
    settings = EngineSettings()

    assert (settings.citations, settings.failing_severity) == ("claims", "major")


@pytest.mark.parametrize(
    "bad", [{"citations": "some"}, {"failing_severity": "info"}, {"citation": "none"}]
)
def test_unknown_values_and_names_are_refused(bad: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        EngineSettings.model_validate(bad)


def test_an_uncited_correct_answer_is_held_back_only_by_the_citation_policy() -> None:
    claims = validate(BUNDLE)
    report = validate(BUNDLE, EngineSettings(citations="report"))
    none = validate(BUNDLE, EngineSettings(citations="none"))

    assert claims.decision == report.decision == "REVISE"
    assert not claims.checks.source_metadata_present
    assert [f.kind for f in report.findings] == ["uncited_claims"]
    assert none.decision == "APPROVE"
    assert none.findings == []


def test_the_command_line_reads_the_same_settings(tmp_path: Path) -> None:
    settings = tmp_path / "numbers-only.json"
    settings.write_text(json.dumps({"citations": "none"}))
    bundle = tmp_path / "bundle.json"
    bundle.write_text(BUNDLE.model_dump_json())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "REDLINE"))}

    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "validation.engine",
            "check",
            str(bundle),
            "--settings",
            str(settings),
        ],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
        text=True,
    )

    assert completed.returncode == 0, completed.stderr
    verdict = Verdict.model_validate_json(completed.stdout)
    expected = validate(BUNDLE, EngineSettings(citations="none"))
    assert (verdict.decision, verdict.confidence, verdict.checks, verdict.findings) == (
        expected.decision,
        expected.confidence,
        expected.checks,
        expected.findings,
    )
    assert verdict.decision == "APPROVE"
