"""A figure the report states as a result does not hide the evidence cell of the same value.

A note disaggregates revenue three ways (by region, by nature, by channel), each block
closing with the same "Total revenues" line. The report states two years' totals and
then "the three-year average is 7,337 million". Its 2018 total is supported as the sum
of the regions, a result of the report's own, with no cell; the pool once kept only that
figure for the value, so the total row offered two of its three years and no average of
three could be taken. The row's cell now joins the row's sums and averages beside it."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

REVENUES = (
    "|  | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
    "| Net revenues by region |  |  |  |\n"
    "| Europe | 1,812 | 1,990 | 1,701 |\n"
    "| Americas | 1,088 | 1,013 | 874 |\n"
    "| Asia | 4,750 | 4,741 | 4,041 |\n"
    "| Total revenues | 7,650 | 7,744 | 6,616 |\n"
    "| Net revenues by nature |  |  |  |\n"
    "| Products | 7,511 | 7,582 | 6,480 |\n"
    "| Services | 118 | 121 | 105 |\n"
    "| Other | 21 | 41 | 31 |\n"
    "| Total revenues | 7,650 | 7,744 | 6,616 |\n"
    "| Net revenues by channel |  |  |  |\n"
    "| Manufacturers | 5,376 | 5,067 | 4,440 |\n"
    "| Distribution | 2,274 | 2,677 | 2,176 |\n"
    "| Total revenues | 7,650 | 7,744 | 6,616 |\n"
)


def _memo(average: str) -> str:
    return (
        "**Top line slipped after a strong 2018.** Total net revenues were 7,650 million in "
        f"2019 against 7,744 million in 2018, down about 1.2%. The three-year average is "
        f"{average} million."
    )


def test_the_three_year_average_of_the_total_is_found() -> None:
    verdict = check(_memo("7,337"), ("table", REVENUES))

    assert status(verdict, "7,337 million") == "derived"


def test_a_wrong_three_year_average_is_flagged() -> None:
    verdict = check(_memo("7,470"), ("table", REVENUES))

    assert findings_on(verdict, "7,470 million") != []
