"""A swing across zero is the sum of the two magnitudes: "added 7.6% to growth, after
taking off 2.3% the year before, a swing of 9.9 percentage points". The writer keeps the
second figure's sign in words; the evidence writes its cell negative, "(2.3)". Read as
magnitudes, the pair's difference (5.3) looked like the plain reading of the swing, and
the correct 9.9 was "fixed" to it. Where the pair's sum gives the stated result and one
of them is a negative cell, no one-signed reading is proposed as a fix. A difference of
two positive cells that misses ("-4 (1 less 3)") keeps its fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged, status

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


def test_the_swing_of_two_rates_the_report_states_is_their_sum() -> None:
    body = (
        "Currency movements added 7.6% to reported revenue growth in FY 2019, after "
        "taking off 2.3% in FY 2018, a swing of 9.9 percentage points."
    )
    verdict = check(body, ("table", TABLE))

    assert status(verdict, "9.9 percentage points") == "derived"
    assert flagged(verdict) == []


def test_no_swing_with_a_negative_cell_the_report_does_not_state() -> None:
    """50% and a table's "(1)%" of another line add up to the 51.0 that follows from a
    figure no evidence supports: no swing of the writer's, no support."""
    shares = (
        "| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
        "| Cost of revenue | 43% | 50% | 55% |\n"
        "| Interest expense | (3)% | (1)% | (1)% |\n"
    )
    body = (
        "Adding 52 percent and 50 percent gives 102 percent, and dividing by two gives "
        "51.0 percent."
    )
    verdict = check(body, ("table", shares))

    assert status(verdict, "51.0 percent") != "derived"
