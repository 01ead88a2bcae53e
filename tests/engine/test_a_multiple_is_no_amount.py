"""A multiple is a ratio, never an amount restated at another scale.

"Foreign holdings are about 4.6 times the Canadian allocation": 4.6 is no amount of the
table, but read as thousands it lands, hedged, on the foreign line's 4,534 (4,600 give or
take the hedge), and the row's name vouches for it. A wrong multiple then passed as a
rounding of a cell. A number written as a multiple ("times", "x", "-fold") is read as
what it is: a ratio of two amounts, found (or not) by the derived search."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

ASSETS = (
    "| FOR THE YEAR ENDED DECEMBER 31 | 2019 | 2018 |\n"
    "|---|---|---|\n"
    "| Equity securities |  |  |\n"
    "| Canadian | 1,017 | 844 |\n"
    "| Foreign | 4,534 | 3,770 |\n"
)


def test_a_wrong_multiple_is_no_rounded_cell() -> None:
    verdict = check(
        "Foreign holdings are about 4.6 times the Canadian allocation.", ("assets", ASSETS)
    )

    assert status(verdict, "4.6") != "rounded"
    assert findings_on(verdict, "4.6") != []


def test_the_right_multiple_is_the_ratio_of_its_lines() -> None:
    verdict = check(
        "Foreign holdings are about 4.5 times the Canadian allocation.", ("assets", ASSETS)
    )

    assert status(verdict, "4.5") == "derived"
