"""A column of changes in the report's own table: its header names the operation.

LLM writers often put a small table in a report with a computed column: two periods of a
line and a "Change" beside them. A small rate written to one decimal ("+0.7%") has a wide
rounding window, so a search over every pair of the report's numbers cannot tell the
writer's change from a chance one. The header says what the cell is (a change) and the
row says of what (its two amounts): when every change of the row's amounts lands on the
cell, the cell is the writer's arithmetic verified. A cell none of them reaches is still
flagged."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

SEGMENTS = (
    "($ millions)                  Fiscal 2019   Fiscal 2018\n"
    "Grocery & Snacks                  3,279.2       3,287.0\n"
    "Refrigerated & Frozen             2,804.0       2,753.0\n"
    "International                       843.5         906.2\n"
)


def _table(change: str) -> str:
    return (
        "| $ millions | Fiscal 2019 | Fiscal 2018 | Change |\n"
        "|---|---|---|---|\n"
        f"| Grocery & Snacks + Refrigerated & Frozen | 6,083.2 | 6,040.0 | {change} |\n"
        "| International | 843.5 | 906.2 | \u22126.9% |\n"
        "\nThe two domestic segments were flat; International shrank."
    )


def test_a_small_change_in_a_change_column_is_the_rows_own() -> None:
    verdict = check(_table("+0.7%"), ("segments", SEGMENTS))

    assert status(verdict, "+0.7%") == "derived"
    assert findings_on(verdict, "+0.7%") == []
    assert findings_on(verdict, "\u22126.9%") == []  # a minus sign, as LLMs write it


def test_a_wrong_change_in_a_change_column_is_flagged() -> None:
    verdict = check(_table("+0.9%"), ("segments", SEGMENTS))

    assert findings_on(verdict, "+0.9%") != []
