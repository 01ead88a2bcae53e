"""A report's own table with a column of totals or averages ("| Three-year total |",
"| Two-year average |"): its header names the operation for each cell, so a cell that sums
or averages its row is searched as such even when it lands near some evidence cell,
instead of being read as a slip of that cell."""

from __future__ import annotations

from tests.engine.reports import check, flagged

CASH_FLOWS = """\
|  | 2024 | 2023 | 2022 |
|---|---|---|---|
| Operating activities | $(512) | $(2,310) | $12,905 |
| Investing activities | (330) | (6,120) | (4,870) |
| Financing activities | 6,214 | 3,418 | 7,951 |
| Net increase (decrease) in cash | $5,372 | $(5,012) | $17,350 |
"""


def test_a_total_cell_summing_its_row_is_no_slip_of_a_cell_near_it() -> None:
    # 6,214 + 3,418 + 7,951 = 17,583, within 1.4 % of the 2022 net increase, 17,350: the
    # header says it is its row's sum, not that cell misquoted.
    body = (
        "| $ thousands | 2024 | 2023 | 2022 | Three-year total |\n"
        "|---|---|---|---|---|\n"
        "| Cash provided by financing | 6,214 | 3,418 | 7,951 | 17,583 |\n"
    )
    assert flagged(check(body, ("table", CASH_FLOWS))) == []


def test_a_wrong_total_cell_is_flagged() -> None:
    body = (
        "| $ thousands | 2024 | 2023 | 2022 | Three-year total |\n"
        "|---|---|---|---|---|\n"
        "| Cash provided by financing | 6,214 | 3,418 | 7,951 | 17,853 |\n"
    )
    assert "17,853" in flagged(check(body, ("table", CASH_FLOWS)))


COSTS = """\
| €m | 2024 | 2023 |
|---|---|---|
| Investment income | 512 | 640 |
| Financing costs | (1,960) | (1,110) |
| Net financing costs | (1,448) | (470) |
| Net financing costs before tax settlements | (1,520) | (820) |
"""


def test_an_average_cell_of_its_row_is_no_slip_of_a_cell_near_it() -> None:
    # (1,960 + 1,110) / 2 = 1,535, within 1 % of the 2024 cost before tax settlements.
    body = (
        "| €m | 2024 | 2023 | Two-year average |\n"
        "|---|---|---|---|\n"
        "| Financing costs | (1,960) | (1,110) | 1,535 |\n"
    )
    assert flagged(check(body, ("table", COSTS))) == []


def test_a_wrong_average_cell_is_flagged() -> None:
    body = (
        "| €m | 2024 | 2023 | Two-year average |\n"
        "|---|---|---|---|\n"
        "| Financing costs | (1,960) | (1,110) | 1,553 |\n"
    )
    assert "1,553" in flagged(check(body, ("table", COSTS)))
