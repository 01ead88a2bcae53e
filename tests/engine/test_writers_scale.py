"""A table that states no scale is read at the scale its writer gives it.

A pension note's table of plan assets writes "| Real estate | 948 | 758 |" and says
nowhere that these are millions; the report says "real estate was up 25.1% to $948
million". The figure names its row and writes the cell's digits exactly: the writer read
the table in millions, and the figure is that cell. What follows reads it as evidence:
a change stated over the level it ends at is still the wrong base. A figure with other
digits, or whose sentence names no row of that cell, is not vouched for this way."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

PLAN_ASSETS = (
    "| FOR THE YEAR ENDED DECEMBER 31 | 2019 | 2018 |\n|---|---|---|\n"
    "| Private equities | 2,119 | 1,804 |\n"
    "| Hedge funds | 1,001 | 1,014 |\n"
    "| Real estate | 948 | 758 |\n"
    "| Total | 25,530 | 23,071 |\n"
)


def test_a_named_cell_written_at_the_writers_scale_is_that_cell() -> None:
    body = "Real estate was the fastest-growing bucket, up 25.1% to $948 million."
    verdict = check(body, ("table", PLAN_ASSETS))

    assert status(verdict, "$948 million") == "exact"
    assert flagged(verdict) == []


def test_other_digits_at_the_writers_scale_are_flagged() -> None:
    body = "Real estate was the fastest-growing bucket, up 25.1% to $984 million."
    verdict = check(body, ("table", PLAN_ASSETS))

    assert "$984 million" in flagged(verdict)


def test_a_cell_of_a_row_the_sentence_does_not_name_vouches_for_nothing() -> None:
    body = "The smallest sleeve of the plan came to $1,001 million at year-end."
    verdict = check(body, ("table", PLAN_ASSETS))

    assert "$1,001 million" in flagged(verdict)


def test_a_change_over_the_level_it_ends_at_is_still_the_wrong_base() -> None:
    """190 / 948 = 20.0 %; over the start, 190 / 758 = 25.1 %."""
    body = "Real estate rose $190 million, about 20.0%, to $948 million."
    verdict = check(body, ("table", PLAN_ASSETS))

    assert status(verdict, "$948 million") == "exact"
    assert "20.0%" in flagged(verdict)
