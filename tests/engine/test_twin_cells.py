"""A value a table writes in two cells is both cells (issue 25): a roll-forward's opening
balance is the previous period's closing one, and a table's only line is its total too.
The pool keeps one operand per value, so the operand carries its other cells
(`Operand.also`), and a pair lies in one row or one column through any of them. The
figures and sentences are ours."""

from __future__ import annotations

from decimal import Decimal

from tests.engine.reports import NUMBERS_ONLY, cell, flagged
from validation.engine.checks.numeric import build_index
from validation.engine.checks.numeric._derive_candidates import _fits, _tier
from validation.engine.checks.numeric._derive_pool import BESIDE, NEAR
from validation.engine.checks.numeric._derive_rows import _rows, twins
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EvidenceItem, Verdict


def test_a_closing_balance_that_opens_the_next_period_lies_in_that_periods_column() -> None:
    interest = cell(305.0, NEAR, 2, 0)
    closing_2018 = cell(8240.0, BESIDE, 5, 1, also=((0, 0),))  # also the 2019 opening

    assert _fits("share", (interest, closing_2018), frozenset())
    assert _tier(interest, closing_2018) < _tier(interest, cell(8240.0, BESIDE, 5, 1))


def test_a_value_in_no_cell_of_the_pairs_row_or_column_still_lies_apart() -> None:
    interest = cell(305.0, NEAR, 2, 0)
    elsewhere = cell(8240.0, BESIDE, 5, 1, also=((4, 2),))

    assert not _fits("share", (interest, elsewhere), frozenset())
    assert _tier(interest, elsewhere) == _tier(interest, cell(8240.0, BESIDE, 5, 1))


def test_a_twin_in_one_column_fits_no_change_over_time() -> None:
    interest = cell(305.0, NEAR, 2, 0)
    closing_2018 = cell(8240.0, BESIDE, 5, 1, also=((0, 0),))

    assert not _fits("percent change", (interest, closing_2018), frozenset())


PENSIONS = (
    "table",
    "| (Dollars in millions) | 2019 | 2018 |\n|---|---|---|\n"
    "| Benefit obligation at beginning of year | $8,240 | 8,915 |\n"
    "| Service cost | 41 | 47 |\n"
    "| Interest cost | 305 | 288 |\n"
    "| Benefits paid | (712) | (706) |\n"
    "| Actuarial (gain) loss | 1,066 | (304) |\n"
    "| Benefit obligation at end of year | $8,940 | 8,240 |",
)
RATE = (
    "The benefit obligation closed 2019 at $8,940 million after an actuarial loss. "
    "Interest cost equals roughly {} of the opening obligation in 2019."
)


def check(body: str) -> Verdict:
    items = [{"source_ref": PENSIONS[0], "content": PENSIONS[1]}]
    return validate(Bundle(query="How did it go?", body=body, evidence=items), NUMBERS_ONLY)


def test_a_share_of_the_opening_balance_the_prior_closing_cell_writes_passes() -> None:
    verdict = check(RATE.format("3.7%"))

    assert flagged(verdict) == []


def test_a_share_no_cell_of_the_table_gives_is_flagged() -> None:
    verdict = check(RATE.format("4.6%"))

    assert "4.6%" in flagged(verdict)


ADJUSTMENTS = (
    "| | Estimated | Adjustments | Final |\n|---|---|---|---|\n"
    "| Working capital adjustment | (52) | 20 | (32) |\n"
    "| Total consideration | 4,118 | 20 | 4,138 |\n"
    "| Intangible assets | 1,215 | - | 1,215 |\n"
    "| Net assets acquired | 2,903 | 20 | 4,118 |"
)


def twin_places(written: str) -> list[tuple[int, int]]:
    index = build_index([EvidenceItem(source_ref="table", content=ADJUSTMENTS)])
    rows = _rows(index)
    entry = next(e for e in rows.row_of if index.number(e).written == Decimal(written))
    return [(row, column) for row, column, _ in twins(index, rows, entry)]


def test_a_value_of_four_digits_in_two_rows_is_a_cell_of_both() -> None:
    assert len(twin_places("4118")) == 1


def test_a_value_of_two_digits_in_several_rows_is_no_twin() -> None:
    assert twin_places("20") == []
