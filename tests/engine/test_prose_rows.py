"""Evidence prose that gives one quantity for several years in one sentence ("$41.2
million in 2020, $37.5 million in 2019 and $30.1 million in 2018", or "... of $12.4
million and $15.0 million at year-end 2020 and 2019, respectively") holds one line item
over those periods: its numbers are cells of one row, so a claim that states one of them
may take the others, and a claim that sums or averages the years finds them all. Each
case has a slip beside it that must still be flagged."""

from __future__ import annotations

import json
from collections.abc import Mapping

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


TWO_QUANTITIES = (
    "In fiscal 2018, 2019 and 2020 sales to the distributor were $52,400, $48,100 and "
    "$9,600, respectively, and the related gross profit was $6,300, $5,900 and $1,750, "
    "respectively."
)


def test_two_quantities_over_the_same_years_are_two_rows() -> None:
    verdict = check(
        "Sales to the distributor collapsed to $9,600 in fiscal 2020, yet the margin on "
        "them rose to about 18.2%, from roughly 12.3% in fiscal 2019.",
        TWO_QUANTITIES,
    )

    assert flagged(verdict) == []


def test_a_margin_no_two_rows_give_is_flagged() -> None:
    verdict = check(
        "Sales to the distributor collapsed to $9,600 in fiscal 2020, yet the margin on "
        "them rose to about 18.2%, from roughly 14.3% in fiscal 2019.",
        TWO_QUANTITIES,
    )

    assert any("14.3" in text for text in flagged(verdict))


STAKE = (
    "The listed stake was valued at $8.2 million at December 31, 2020 (December 31, 2019: "
    "$13.1 million), against a carrying value of $36.0 million (December 31, 2019: $39.4 "
    "million)."
)


def test_a_share_of_this_periods_figures_passes() -> None:
    verdict = check(
        "At the end of 2020 the listed stake was worth $8.2 million, only about 22.8% of "
        "its $36.0 million carrying value.",
        STAKE,
    )

    assert flagged(verdict) == []


def test_a_stated_figure_of_the_other_period_is_not_passed_by_its_rows_cell() -> None:
    # The share is right for 2020's value, but the sentence states 2019's value in its
    # place and names no earlier period: the row's other cell is not the writer's.
    verdict = check(
        "At the end of 2020 the listed stake was worth $13.1 million, only about 22.8% of "
        "its $36.0 million carrying value.",
        STAKE,
    )

    assert flagged(verdict) != []


# ------------------------------------------------------------------ a missing period


def check_json(body: str, content: Mapping[str, object]) -> Verdict:
    items = [{"source_ref": "tool", "content": json.dumps(content)}]
    return validate(Bundle(query="What changed?", body=body, evidence=items), NUMBERS_ONLY)


ACCRUALS = {
    "line_items": {
        "Wages": {"2021": 820, "2020": 640},
        "Bonuses": {"2021": 240, "2020": 250},
        "Severance": {"2020": 90},
        "Warranty": {"2021": 150, "2020": 130},
        "Other": {"2021": 60, "2020": 65},
    }
}


def test_a_line_item_without_this_years_value_keeps_its_years_column() -> None:
    # Severance has no 2021 value: its 2020 value is still of the 2020 column, so the
    # 2021 total is 820 + 240 + 150 + 60 and the 2020 one 640 + 250 + 90 + 130 + 65.
    verdict = check_json(
        "Accrued liabilities totalled $1,270 thousand in 2021, up $95 thousand from "
        "$1,175 thousand, with wages at $820 thousand.",
        ACCRUALS,
    )

    assert flagged(verdict) == []


def test_a_total_that_mixes_the_years_is_flagged() -> None:
    verdict = check_json(
        "Accrued liabilities totalled $1,360 thousand in 2021, up $185 thousand from "
        "$1,175 thousand, with wages at $820 thousand.",
        ACCRUALS,
    )

    assert any("1,360" in text for text in flagged(verdict))
