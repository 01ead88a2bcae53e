"""The two ends of a range are quantities when each restates an evidence cell: "the
units changed hands between $14.20 and $19.65" states the quarter's low and high, and the
writer may go on to compute with them (their spread, its share of the high, their
midpoint). A bound of a range the evidence does not write ("growth of 5% to 7%") stays
no operand."""

from __future__ import annotations

from tests.engine.reports import check, flagged

PRICES = """\
|  | Q4 2024 | Q3 2024 | Q2 2024 | Q1 2024 |
|---|---|---|---|---|
| High | $19.65 | $18.02 | $17.40 | $16.85 |
| Low | $14.20 | $15.31 | $15.07 | $13.96 |
"""


def test_the_spread_of_a_range_its_ends_restate() -> None:
    # 19.65 - 14.20 = 5.45: the gap between the two ends the sentence states.
    body = (
        "In the fourth quarter the units changed hands between $14.20 and $19.65, "
        "a spread of $5.45, the widest of the year."
    )
    assert flagged(check(body, ("table", PRICES))) == []


def test_a_spread_stated_before_its_range() -> None:
    # The headline gives the spread first; the next sentence gives its two ends.
    body = (
        "Fourth-quarter trading spanned $5.45 from trough to peak.\n\n"
        "Over those weeks the units traded between $14.20 and $19.65."
    )
    assert flagged(check(body, ("table", PRICES))) == []


def test_a_wrong_spread_of_a_range_is_flagged() -> None:
    body = (
        "In the fourth quarter the units changed hands between $14.20 and $19.65, "
        "a spread of $5.85, the widest of the year."
    )
    assert "$5.85" in flagged(check(body, ("table", PRICES)))
