"""Two changes of one line in a row of years: "group revenue was up 2.5% in 2018, then
down 0.7% in 2019". The first is the total's change from 2017 to 2018; the second, written
to one digit, is a figure any of dozens of pairs of a regional table could land on by
chance, but its sentence has just taken one line over two years: the same line's change
over the next pair of years is the few candidates it is weighed among."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

TABLE = (
    "(in thousands)\n\n|  | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
    "| United States | $614,493 | $668,580 | $644,870 |\n"
    "| The Philippines | 250,888 | 231,966 | 241,211 |\n"
    "| Costa Rica | 127,078 | 127,963 | 132,542 |\n"
    "| Canada | 99,037 | 102,353 | 112,367 |\n"
    "| Germany | 94,166 | 91,703 | 81,634 |\n"
    "| Other | 428,100 | 403,122 | 373,374 |\n"
    "| | $1,614,762 | $1,625,687 | $1,586,008 |\n"
)
BODY = (
    "- **Scale:** consolidated revenue was $1.63 billion in 2018.\n"
    "- **Group revenue:** up 2.5% in 2018, then down {then} in 2019.\n"
    "- **Germany** rose 2.7% in 2019.\n"
)


def test_the_next_years_change_of_the_line_just_changed_is_found() -> None:
    verdict = check(BODY.format(then="0.7%"), ("table", TABLE))

    assert findings_on(verdict, "0.7%") == []
    assert status(verdict, "0.7%") == "derived"


def test_a_wrong_next_change_is_still_flagged() -> None:
    verdict = check(BODY.format(then="1.7%"), ("table", TABLE))

    assert findings_on(verdict, "1.7%") != []
