"""The year a figure's words name right after it is read up to the next figure: in
"after selling 178 in 2018 and 178 in 2017", the first 178 is dated 2018 (where the row's
2018 cell is 135, and 178 is 2017's: a figure of another period), the second 2017."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on

TABLE = (
    "Refranchisings (dollars in thousands):\n"
    "                                          2019        2018        2017\n"
    "Restaurants sold to franchisees              —         135         178\n"
    "Gains on the sale of restaurants        $1,366     $46,164     $38,034\n"
)


def test_a_figure_of_another_year_before_a_second_figure_is_flagged_and_fixed() -> None:
    body = (
        "Gains on the sale of restaurants fell to $1,366 thousand in 2019. The company sold "
        "no restaurants to franchisees during the year, after selling 178 in 2018 and 178 "
        "in 2017."
    )
    verdict = check(body, ("filing_table", TABLE))

    assert findings_on(verdict, "178") != []
    assert fixes_on(verdict, "178") == [("178 in 2018", "135 in 2018")]


def test_each_figure_dated_by_its_own_year_passes() -> None:
    body = (
        "Gains on the sale of restaurants fell to $1,366 thousand in 2019. The company sold "
        "no restaurants to franchisees during the year, after selling 135 in 2018 and 178 "
        "in 2017."
    )
    verdict = check(body, ("filing_table", TABLE))

    assert findings_on(verdict, "135") == []
    assert findings_on(verdict, "178") == []
