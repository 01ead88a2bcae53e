"""The derived search's closed family, round 2 (issue 25): a row that writes a value twice
keeps both cells for its average, and a count times a price per unit is a total. Each case
is ours, with a slip beside it."""

from __future__ import annotations

from tests.engine.reports import NUMBERS_ONLY, flagged, status
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict


def check(body: str, evidence: str) -> Verdict:
    items = [{"source_ref": "table", "content": evidence}]
    return validate(Bundle(query="How did it go?", body=body, evidence=items), NUMBERS_ONLY)


ASSUMPTIONS = (
    "| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Risk-free rate | 3.9% | 1.2% | 0.6% |\n"
    "| Expected dividend yield | 2.6% | 2.2% | 2.2% |\n"
)


def test_an_average_takes_a_value_the_row_writes_twice() -> None:
    verdict = check(
        "The dividend yield assumption rose to 2.6%, for a three-year average of about 2.33%.",
        ASSUMPTIONS,
    )

    assert status(verdict, "2.33%") == "derived"
    assert flagged(verdict) == []


def test_an_average_the_row_does_not_give_is_flagged() -> None:
    verdict = check(
        "The dividend yield assumption rose to 2.6%, for a three-year average of about 2.47%.",
        ASSUMPTIONS,
    )

    assert any("2.47" in text for text in flagged(verdict))


BUYBACK = (
    "| Period | Shares bought | Average price paid per share |\n|---|---|---|\n"
    "| | (in thousands) | |\n"
    "| October | 1,310 | $24.10 |\n| November | 1,450 | $25.95 |\n"
    "| December | 1,360 | $26.02 |\n| Total | 4,120 | $25.40 |\n"
)


def test_a_count_times_its_price_per_unit_is_a_total() -> None:
    verdict = check(
        "At an average of $25.40, the quarter's buyback of 4,120 thousand shares cost about "
        "$104.6 million.",
        BUYBACK,
    )

    assert status(verdict, "$104.6 million") == "derived"
    assert flagged(verdict) == []


def test_a_total_no_count_and_price_give_is_flagged() -> None:
    verdict = check(
        "At an average of $25.40, the quarter's buyback of 4,120 thousand shares cost about "
        "$110.2 million.",
        BUYBACK,
    )

    assert any("110.2" in text for text in flagged(verdict))
