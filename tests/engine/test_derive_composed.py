"""A share taken over a change the report derives (issue 25, point 2): a number the
sentence states over the change between two cells of one column, such as an opening and
a closing balance. Each case is ours, with a slip beside it and a unit check of the pairs
that are no change."""

from __future__ import annotations

from tests.engine.reports import NUMBERS_ONLY, flagged, status
from validation.engine.checks.numeric._derive_composed import shares_of_changes
from validation.engine.checks.numeric._derive_pool import NAMED, STATED, Operand
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict


def check(body: str, evidence: str) -> Verdict:
    items = [{"source_ref": "table", "content": evidence}]
    return validate(Bundle(query="What happened?", body=body, evidence=items), NUMBERS_ONLY)


MOVEMENT = (
    "| $m | 2023 | 2022 |\n|---|---|---|\n"
    "| Opening balance | 120.4 | 118.0 |\n"
    "| Additions | 3.1 | 6.9 |\n"
    "| Write-down | (12.6) | - |\n"
    "| Disposals | (5.7) | (4.5) |\n"
    "| Closing balance | 105.2 | 120.4 |\n"
)


def test_a_stated_part_of_a_balance_decline_is_derived() -> None:
    # 12.6 / (120.4 - 105.2) = 82.9%
    verdict = check(
        "The balance slid over the year, and the $12.6 million write-down alone accounts "
        "for about 82.9% of that decline.",
        MOVEMENT,
    )

    assert status(verdict, "82.9%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_share_of_the_decline_is_flagged() -> None:
    verdict = check(
        "The balance slid over the year, and the $12.6 million write-down alone accounts "
        "for about 78.4% of that decline.",
        MOVEMENT,
    )

    assert any("78.4" in text for text in flagged(verdict))


def cell(value: float, text: str, row: int, column: int, unit: str = "$") -> Operand:
    return Operand(value, text, False, 1e6, NAMED, row, column, item=0, unit=unit)


def test_no_change_joins_a_level_and_a_cell_of_another_kind() -> None:
    part = Operand(6.0, "6.0", False, 1e6, STATED, -1, -1, unit="$")
    level = cell(60.0, "60.0", 0, 0)
    rate = cell(9.0, "9", 0, 1, unit="")  # a column of changes beside the level
    small = cell(2.0, "2.0", 1, 0)  # a tenth of the level is no end of its change

    found = shares_of_changes([part, level, rate, small], "percent", lambda a, b: 3)

    assert found == []
    assert shares_of_changes([part, level, small], "amount", lambda a, b: 3) == []


def test_a_part_of_another_order_than_the_change_gives_no_share() -> None:
    part = Operand(50.0, "50", False, 1.0, STATED, -1, -1, unit="$")
    opening = cell(38_700_000.0, "38,700", 0, 0)
    closing = cell(35_000_000.0, "35,000", 1, 0)

    assert shares_of_changes([part, opening, closing], "percent", lambda a, b: 3) == []


def test_a_cell_explains_only_its_own_periods_change() -> None:
    part = Operand(5.0, "5.0", False, 1e6, STATED, 2, 1, item=0, unit="$")
    opening = cell(60.0, "60.0", 0, 0)
    closing = cell(52.0, "52.0", 1, 0)

    assert shares_of_changes([part, opening, closing], "percent", lambda a, b: 3) == []
    same = Operand(5.0, "5.0", False, 1e6, STATED, 2, 0, item=0, unit="$")
    assert [
        found[1] for found in shares_of_changes([same, opening, closing], "percent", lambda a, b: 3)
    ] == [62.5]
