"""The end of a range in a long report (issue 26 point 5): a body past 20,000 characters
is read for ranges only when the evidence states one, and then judged as a short one is,
in both directions."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")
CLUTCH = EvidenceItem(source_ref="guide", kind="text", content="The hen lays three to five eggs.")
# About 30,000 characters of prose before the range: a long report.
FILLER = "The nest sits low in the hedge and the wren returns to it at dusk. " * 450


def _check(body: str, evidence: EvidenceItem) -> Verdict:
    bundle = Bundle(query="How many eggs?", body=body, evidence=[evidence])
    return validate(bundle, NUMBERS_ONLY)


def _range_ends(verdict: Verdict) -> list[str]:
    return [f.text or "" for f in verdict.findings if f.kind == "range_end_number"]


def test_a_wrong_end_far_into_a_long_report_is_flagged_and_fixed() -> None:
    body = FILLER + "A clutch is 3 to 7 eggs."
    assert len(body) > 20_000
    verdict = _check(body, CLUTCH)

    assert _range_ends(verdict) == ["7"]
    assert ("7", "5") in [(fix.find[-1:], fix.replace[-1:]) for fix in verdict.fixes]


def test_the_right_end_in_a_long_report_passes() -> None:
    verdict = _check(FILLER + "A clutch is 3 to 5 eggs.", CLUTCH)

    assert _range_ends(verdict) == []


def test_a_long_report_against_evidence_without_ranges_names_no_range_end() -> None:
    plain = EvidenceItem(source_ref="guide", kind="text", content="The hen lays five eggs.")
    verdict = _check(FILLER + "A clutch is 3 to 7 eggs.", plain)

    assert _range_ends(verdict) == []
