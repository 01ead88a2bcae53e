"""A report's table whose "Change" column writes each change as an amount and its rate
in one cell ("-362 (-22.3%)"): the percent sign is the rate's, so the amount is read at
the table's scale like every other amount of it, and found as the difference of the two
years. A column whose cells write a lone percentage first and last (the way statements
print a column of rates) is still a column of percentages."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status
from validation.engine.checks.numeric._extract import extract

EVIDENCE = (
    "Unrecognized tax benefits (in thousands)\n"
    "                                   2019      2018\n"
    "Balance at the beginning of year  $1,264    $1,626\n"
    "Balance at the end of year        $1,258    $1,264\n"
)
REPORT = (
    "### Unrecognized tax benefits ($ thousands)\n\n"
    "| Metric | FY2019 | FY2018 | Change |\n|---|---|---|---|\n"
    "| Balance at beginning of year | 1,264 | 1,626 | -362 (-22.3%) |\n"
    "| Balance at end of year | 1,258 | 1,264 | -6 (-0.5%) |\n"
)


def test_the_amount_beside_a_rate_in_one_cell_is_an_amount_at_the_tables_scale() -> None:
    amounts = {mention.text: mention for mention in extract(REPORT)}

    assert not amounts["-362"].is_percent
    assert amounts["-362"].value == -362_000


def test_the_change_in_a_cell_with_its_rate_is_found() -> None:
    verdict = check(REPORT, ("filing_table", EVIDENCE))

    assert flagged(verdict) == []
    assert status(verdict, "-362") == "derived"
    assert status(verdict, "-6") == "derived"


def test_a_column_of_lone_percentages_first_and_last_is_still_of_percentages() -> None:
    table = (
        "| Segment | Margin |\n|---|---|\n| Products | 41.2% |\n| Services | 38.0 |\n"
        "| Total | 40.1% |\n"
    )
    assert {mention.text: mention.is_percent for mention in extract(table)}["38.0"]
