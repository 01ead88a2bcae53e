"""A figure under one unit of its table's scale is that table's cell.

A table "in millions" writes a small line as "0.6"; the report writes it "$0.6 million".
Read at the table's scale the figure is 0.6, the cell's own digits. (Its full value,
600,000, is under one unit of a million, which no reading at that scale used to
allow: correct figures were flagged as in no evidence.) A figure this small has one or
two digits, so it takes its cell exactly: "$0.7 million" is no rounding of a 0.66 of
another line, and a wrong average still fails."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

SHARES = (
    "| | 2019 | 2018 |\n"
    "|---|---|---|\n"
    "| Weighted-average common stock outstanding | 44.8 | 44.3 |\n"
    "| Unvested restricted stock | 0.6 | 0.4 |\n"
    "| Preferred stock (as-converted basis) | 2.1 | 4.9 |\n"
    "| Net income attributable to participating security holders - Basic | 0.66 | 7.3 |\n"
)
NOTE = "The following table presents the reconciliation (in millions, except per share)."


def test_a_small_line_at_the_tables_scale_is_its_cell() -> None:
    verdict = check(
        "Unvested restricted stock was $0.6 million in 2019 and $0.4 million in 2018.",
        ("note", NOTE),
        ("table", SHARES),
    )

    assert status(verdict, "$0.6 million") == "exact"
    assert status(verdict, "$0.4 million") == "exact"


def test_a_small_figure_is_no_rounding_of_another_line() -> None:
    verdict = check(
        "Unvested restricted stock averaged $0.7 million over the two years (2019: $0.6 "
        "million; 2018: $0.4 million).",
        ("note", NOTE),
        ("table", SHARES),
    )

    assert findings_on(verdict, "$0.7 million") != []
