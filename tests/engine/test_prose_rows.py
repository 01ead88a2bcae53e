"""Evidence prose that gives one quantity for several years in one sentence ("$41.2
million in 2020, $37.5 million in 2019 and $30.1 million in 2018", or "... of $12.4
million and $15.0 million at year-end 2020 and 2019, respectively") holds one line item
over those periods: its numbers are cells of one row, so a claim that states one of them
may take the others, and a claim that sums or averages the years finds them all. Each
case has a slip beside it that must still be flagged."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

LISTED = (
    "Research and development spending was $41.2 million in 2020, $37.5 million in 2019 "
    "and $30.1 million in 2018. The company employed 412 engineers at the end of 2020."
)
RESPECTIVELY = (
    "Receivables include $12.4 million and $15.0 million due from state agencies at "
    "December 31, 2020 and 2019, respectively. Total receivables were $48.0 million at "
    "December 31, 2020 and $52.6 million at December 31, 2019."
)


def check(body: str, evidence: str) -> Verdict:
    items = [{"source_ref": "note", "content": evidence}]
    return validate(Bundle(query="What changed?", body=body, evidence=items), NUMBERS_ONLY)


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_the_years_of_a_prose_list_are_summed_as_one_row() -> None:
    verdict = check(
        "Over the three years research and development spending came to $108.8 million.",
        LISTED,
    )

    assert flagged(verdict) == []


def test_a_wrong_sum_of_a_prose_list_is_flagged() -> None:
    verdict = check(
        "Over the three years research and development spending came to $113.8 million.",
        LISTED,
    )

    assert any("113.8" in text for text in flagged(verdict))


def test_a_stated_year_of_a_prose_list_takes_the_other_years() -> None:
    verdict = check(
        "Research and development reached $41.2 million in 2020, about 36.9% above 2018.",
        LISTED,
    )

    assert flagged(verdict) == []


def test_a_wrong_change_over_a_prose_lists_year_is_flagged() -> None:
    verdict = check(
        "Research and development reached $41.2 million in 2020, about 39.6% above 2018.",
        LISTED,
    )

    assert any("39.6" in text for text in flagged(verdict))


def test_a_respectively_pair_is_one_row_of_two_periods() -> None:
    verdict = check(
        "Amounts due from state agencies were $12.4 million, or 25.8% of receivables, "
        "against roughly 28.5% a year earlier.",
        RESPECTIVELY,
    )

    assert flagged(verdict) == []


def test_a_wrong_share_from_a_respectively_pair_is_flagged() -> None:
    verdict = check(
        "Amounts due from state agencies were $12.4 million, or 25.8% of receivables, "
        "against roughly 31.5% a year earlier.",
        RESPECTIVELY,
    )

    assert any("31.5" in text for text in flagged(verdict))
