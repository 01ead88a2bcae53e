"""A swing across zero is the sum of the two magnitudes: "added 7.6% to growth, after
taking off 2.3% the year before, a swing of 9.9 percentage points". The writer keeps the
second figure's sign in words; the evidence writes its cell negative, "(2.3)". Read as
magnitudes, the pair's difference (5.3) looked like the plain reading of the swing, and
the correct 9.9 was "fixed" to it. Where the pair's sum gives the stated result and one
of them is a negative cell, no one-signed reading is proposed as a fix. A difference of
two positive cells that misses ("-4 (1 less 3)") keeps its fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on

TABLE = (
    "| Breakup of revenue growth | FY 2019 (%) | FY 2018 (%) |\n|---|---|---|\n"
    "| Business growth | 11.4 | 6.7 |\n"
    "| Impact of exchange rate | 7.6 | (2.3) |\n"
    "| Total growth | 19.0 | 4.4 |\n"
)


def test_a_swing_from_a_negative_cell_is_not_fixed_to_the_difference() -> None:
    body = (
        "Currency movements added 7.6% to reported revenue growth in FY 2019, after "
        "taking off 2.3% in FY 2018, a swing of 9.9 percentage points."
    )
    verdict = check(body, ("table", TABLE))

    assert fixes_on(verdict, "9.9 percentage points") == []


def test_a_miss_of_two_positive_cells_keeps_its_fix() -> None:
    films = (
        "| Films | 2018 | 2017 |\n|---|---|---|\n"
        "| Hindi films | 10 | 8 |\n"
        "| Tamil films | 1 | 3 |\n"
    )
    verdict = check("The change in Tamil films works out to -4 (1 less 3).", ("table", films))

    assert fixes_on(verdict, "-4") == [("-4", "-2")]
