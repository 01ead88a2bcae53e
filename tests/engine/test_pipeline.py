"""`validate(bundle)`: all deterministic checks merged into one verdict (docs/spec.md §6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from validation.engine.checks.numeric import build_index
from validation.engine.fixes import FixToApply, apply_fixes
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> Bundle:
    return Bundle.model_validate(json.loads((DATA / name).read_text("utf-8")))


def _bundle(body: str, **overrides: object) -> Bundle:
    """The NVO evidence with another body; a one-line query and no goals unless given."""
    base = _load("bundle_nvo.json").model_dump()
    base.update(body=body, query="What does Novo Nordisk (NVO) trade at?", goals=[], fields={})
    base.update(overrides)
    return Bundle.model_validate(base)


def _comparable(verdict: Verdict) -> dict[str, object]:
    return verdict.model_dump(mode="json", exclude={"timings_ms"})


# ---------------------------------------------------------------- the happy path


def test_a_report_that_matches_its_evidence_is_approved() -> None:
    verdict = validate(_load("bundle_nvo.json"))

    assert verdict.decision == "APPROVE"
    assert verdict.confidence == 1.0
    assert verdict.checks.all_pass()
    assert verdict.findings == [] and verdict.issues == [] and verdict.fixes == []
    assert verdict.revision_hints == "" and verdict.suggested_fixes == ""
    assert [(g.status, g.score) for g in verdict.goals] == [("PASS", 1.0), ("PASS", 1.0)]
    assert verdict.goal_decision == "APPROVE"
    assert {m.status for m in verdict.numbers.matches} <= {"exact", "rounded", "derived"}
    assert verdict.numbers.orphan_numbers == []


def test_fields_are_read_and_override_the_bundle_fields() -> None:
    verdict = validate(_load("bundle_nvo.json"))  # its bundle fields say intrinsic_value 195

    assert verdict.fields.decision == "BUY"
    assert verdict.fields.conviction == "MODERATE"
    assert str(verdict.fields.numeric["intrinsic_value"]) == "139.00"


def test_bundle_fields_are_kept_when_the_report_no_longer_states_them() -> None:
    bundle = _bundle(
        "# NVO\n\nNovo Nordisk trades at $104.20 [quote-NVO].\n",
        fields={"decision": "WATCH", "conviction": "LOW", "intrinsic_value": 195},
    )

    fields = validate(bundle).fields

    assert (fields.decision, fields.conviction) == ("WATCH", "LOW")
    assert str(fields.numeric["intrinsic_value"]) == "195"


def test_the_same_input_gives_the_same_verdict() -> None:
    bundle = _load("bundle_flawed.json")

    assert _comparable(validate(bundle)) == _comparable(validate(bundle))


def test_a_prebuilt_index_can_be_reused_and_changes_nothing() -> None:
    bundle = _load("bundle_flawed.json")
    index = build_index(bundle.evidence)

    warm = validate(bundle, index=index)

    assert _comparable(warm) == _comparable(validate(bundle))
    assert _comparable(validate(bundle, index=index)) == _comparable(warm)
    assert "index" not in warm.timings_ms


def test_every_stage_is_timed() -> None:
    timings = validate(_load("bundle_nvo.json")).timings_ms

    assert set(timings) == {
        "index",
        "numbers",
        "references",
        "sources",
        "format",
        "years",
        "times",
        "counts",
        "ranks",
        "roles",
        "holders",
        "ranges",
        "query",
        "fields",
        "decision",
        "total",
    }
    assert all(value >= 0 for value in timings.values())


def test_the_public_api_loads_lazily_without_the_numbers_engine() -> None:
    code = (
        "import sys\n"
        "import validation.engine\n"
        "from validation.engine.fixes import apply_fixes\n"
        "from validation.engine.seedformat import read_seed\n"
        "assert 'validation.engine.checks.numeric' not in sys.modules\n"
        "from validation.engine.checks.numeric import build_index\n"
        "from validation.engine.pipeline import validate\n"
        "from validation.engine.types import Bundle\n"
        "assert callable(validate) and callable(build_index)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=60, check=False
    )

    assert completed.returncode == 0, completed.stderr.decode()


# ---------------------------------------------------------------- findings and fixes


def test_the_flawed_bundle_collects_findings_from_every_check() -> None:
    verdict = validate(_load("bundle_flawed.json"))

    assert [(f.check, f.kind) for f in verdict.findings] == [
        ("source_metadata_present", "uncited_claims"),
        ("coherent_format", "heading"),
        ("coherent_format", "raw_url"),
        ("source_metadata_present", "missing_source"),
        ("no_hallucinations", "unknown_url"),
        ("source_metadata_present", "unknown_ref"),
    ]
    assert verdict.checks.claims_supported and verdict.checks.query_addressed
    assert not verdict.checks.no_hallucinations
    assert verdict.checks.coherent_format  # a raw URL and a "##Title" are minor: shown only
    assert not verdict.checks.source_metadata_present
    assert verdict.decision == "REVISE"
    assert verdict.issues[:2] == [
        "1 of 2 sentences with numeric claims cites no source "
        "(policy: every numeric claim carries a source reference)",
        "URL https://invented.example.com/nvo does not appear in any evidence",
    ]
    assert "Remove or replace 1 link that no evidence returned" in verdict.revision_hints
    assert verdict.suggested_fixes == ""


def test_each_fix_points_at_its_finding_in_the_merged_list() -> None:
    verdict = validate(_load("bundle_flawed.json"))

    assert [fix.kind for fix in verdict.fixes] == ["heading", "raw_url", "missing_source"]
    for fix in verdict.fixes:
        assert fix.finding_index is not None
        finding = verdict.findings[fix.finding_index]
        assert finding.kind == fix.kind
        assert fix.offset <= finding.start and finding.end <= fix.offset + len(fix.find)
    assert [fix.offset for fix in verdict.fixes] == sorted(fix.offset for fix in verdict.fixes)


def test_applying_the_proposed_fixes_clears_their_findings() -> None:
    bundle = _load("bundle_flawed.json")
    verdict = validate(bundle)

    applied = apply_fixes(
        bundle.body, [FixToApply(i, fix.find, fix.replace) for i, fix in enumerate(verdict.fixes)]
    )
    again = validate(bundle.model_copy(update={"body": applied.body}))

    assert applied.conflicts == {}
    assert [f.kind for f in again.findings] == ["unknown_url", "unknown_ref"]
    assert "[cashflow-NVO]" in applied.body
    assert again.confidence > verdict.confidence


def test_an_invented_number_is_an_orphan_that_fails_two_checks() -> None:
    verdict = validate(
        _bundle(
            "# NVO\n\nNovo Nordisk trades at $104.20 [quote-NVO]. Options volume was 97,271 "
            "contracts [quote-NVO].\n"
        )
    )

    (orphan,) = [f for f in verdict.findings if f.kind == "orphan"]
    assert orphan.text == "97,271"
    assert [m.text for m in verdict.numbers.orphan_numbers] == ["97,271"]
    assert not verdict.checks.no_hallucinations
    assert not verdict.checks.claims_supported
    assert verdict.decision == "REVISE"


def test_wrong_arithmetic_gets_a_recomputed_fix() -> None:
    body = (
        "# NVO\n\nOwner earnings: $15.5B - $0.7B = $14.9B [cashflow-NVO].\n\n"
        "Price $104.20 [quote-NVO].\n"
    )
    verdict = validate(_bundle(body))

    (wrong,) = [f for f in verdict.findings if f.kind == "arithmetic"]
    assert wrong.check == "claims_supported"
    assert not verdict.checks.claims_supported
    (fix,) = [fix for fix in verdict.fixes if fix.kind == "arithmetic"]
    assert fix.finding_index is not None
    assert verdict.findings[fix.finding_index] == wrong
    assert "14.8" in fix.replace
    assert verdict.tool_calls  # the calculator calls are the proof


def test_section_references_are_not_numeric_claims() -> None:
    evidence = [
        EvidenceItem(source_ref="§4.1 quote-NVO", content={"price": 104.2}),
        EvidenceItem(source_ref="§4.3 dcf-NVO", content="Intrinsic value per share: 139.00"),
    ]
    body = "# NVO\n\nPrice $104.20 [§4.1]. Intrinsic value $139.00, see §4.3.\n"

    verdict = validate(
        _bundle(
            body,
            evidence=[e.model_dump() for e in evidence],
            query="What is the price and intrinsic value of NVO?",
        )
    )

    assert verdict.findings == []
    assert [m.text for m in verdict.numbers.matches] == ["$104.20", "$139.00"]


def test_a_number_in_the_name_of_a_cited_source_is_not_a_claim() -> None:
    # Only the evidence knows that "earnings call 17" is a source, so the pipeline
    # (not numbers.extract) drops the 17.
    body = "# NVO\n\nGross margin was 84.7% [earnings call 17].\n"
    evidence = [{"source_ref": "earnings call 17", "content": "Gross margin 84.7%"}]

    verdict = validate(_bundle(body, evidence=evidence, query="NVO gross margin"))

    assert verdict.findings == []
    assert [m.text for m in verdict.numbers.matches] == ["84.7%"]


def test_a_raw_url_alone_is_a_minor_finding_shown_with_its_fix_on_an_approval() -> None:
    body = (
        "# NVO\n\nNovo Nordisk trades at $104.20 [quote-NVO], see "
        "https://finance.example.com/quote/NVO.\n"
    )

    verdict = validate(_bundle(body))

    assert [(f.kind, f.severity) for f in verdict.findings] == [("raw_url", "minor")]
    assert [fix.kind for fix in verdict.fixes] == ["raw_url"]
    assert verdict.confidence == 0.95
    assert verdict.checks.all_pass()
    assert verdict.decision == "APPROVE"


def test_a_policy_failing_on_minor_findings_makes_a_raw_url_a_revise_with_a_hint() -> None:
    body = (
        "# NVO\n\nNovo Nordisk trades at $104.20 [quote-NVO], see "
        "https://finance.example.com/quote/NVO.\n"
    )

    verdict = validate(_bundle(body), EngineSettings(failing_severity="minor"))

    assert not verdict.checks.coherent_format
    assert verdict.decision == "REVISE"
    assert verdict.revision_hints == (
        "Turn 1 raw URL into markdown links ([text](url)). "
        "1 proposed fix with proof is ready to review."
    )


# ---------------------------------------------------------------- RETRY signals and goals


def test_numeric_claims_without_any_evidence_mean_retry() -> None:
    verdict = validate(_bundle("# NVO\n\nNovo Nordisk trades at $104.20.\n", evidence=[]))

    assert verdict.decision == "RETRY"
    assert any(f.kind == "no_evidence" and f.check == "claims_supported" for f in verdict.findings)
    assert verdict.suggested_fixes.startswith(
        "Gather evidence before synthesis: the report makes 1 numeric claim but no evidence"
    )


def test_a_report_about_something_else_means_retry() -> None:
    verdict = validate(
        _bundle(
            "# Keyboards\n\nThe best mechanical keyboard is quiet [quote-NVO].\n",
            query="What is the owner earnings of Novo Nordisk?",
        )
    )

    assert verdict.decision == "RETRY"
    assert not verdict.checks.query_addressed
    assert "the report shares none of its terms" in verdict.suggested_fixes


def test_a_summary_of_the_material_is_approved_without_citations() -> None:
    query = "Summarize the key points of this earnings call transcript."
    bundle = Bundle(
        query=query,
        goals=[query],
        body="Revenue grew 12% to $4.1 billion and the dividend rises to $0.20 per share.",
        evidence=[
            EvidenceItem(
                source_ref="transcript",
                content="Revenue grew 12% to $4.1 billion. The dividend rises to $0.20 per share.",
            )
        ],
    )

    verdict = validate(bundle, EngineSettings(citations="none"))

    assert verdict.findings == []
    assert (verdict.decision, verdict.goal_decision) == ("APPROVE", "APPROVE")


def test_an_answer_to_a_question_wrapped_in_instructions_is_approved_without_citations() -> None:
    query = (
        "Using only the table, what was the change in Other income from 2020 to 2021? "
        "Answer in USD millions and round to one decimal place."
    )
    bundle = Bundle(
        query=query,
        goals=[query],
        body="The change in Other income from 2020 to 2021 is 5.5 - 4.2 = $1.3 million.",
        evidence=[
            EvidenceItem(
                source_ref="table",
                content="(in millions) | 2021 | 2020\nOther income | 5.5 | 4.2",
            )
        ],
    )

    verdict = validate(bundle, EngineSettings(citations="none"))

    assert [f.check for f in verdict.findings if f.check == "query_addressed"] == []
    assert verdict.decision == "APPROVE", verdict.issues


@pytest.mark.parametrize(
    ("goals", "goal_decision", "decision"),
    [
        (["Owner earnings", "Intrinsic value"], "APPROVE", "APPROVE"),
        (["Owner earnings", "Intrinsic value and dividend yield"], "APPROVE (partial)", "APPROVE"),
        (["Owner earnings", "Dividend history and buybacks"], "REVISE", "REVISE"),
        (["Dividend history", "Buyback yield", "Owner earnings"], "RETRY", "RETRY"),
    ],
)
def test_the_goal_matrix_shapes_the_decision(
    goals: list[str], goal_decision: str, decision: str
) -> None:
    verdict = validate(_bundle(_load("bundle_nvo.json").body, goals=goals))

    assert verdict.goal_decision == goal_decision
    assert verdict.decision == decision


def test_a_partial_goal_is_approved_with_its_caveat_listed() -> None:
    goals = ["Owner earnings", "Intrinsic value and dividend yield"]

    verdict = validate(_bundle(_load("bundle_nvo.json").body, goals=goals))

    assert verdict.checks.all_pass()
    assert verdict.issues == [
        'Goal "Intrinsic value and dividend yield" is only partly met '
        '(score 0.50; missing: "dividend", "yield")'
    ]


def test_a_failed_goal_is_named_in_the_hints() -> None:
    verdict = validate(
        _bundle(_load("bundle_nvo.json").body, goals=["Owner earnings", "Dividend history"])
    )

    assert 'Goal "Dividend history" is not met' in verdict.revision_hints


def test_settings_thresholds_are_used() -> None:
    bundle = _load("bundle_flawed.json")
    strict = EngineSettings(approve_threshold=0.99, revise_threshold=0.95, retry_threshold=0.9)

    assert validate(bundle, strict).decision == "FAIL"
    assert validate(bundle).decision == "REVISE"
