"""A report's own table with a column of totals ("| Three-year total |"): its header names
the operation for each cell, so a cell that sums its row is searched as a sum even when it
lands near some evidence cell, instead of being read as a slip of that cell."""

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
