"""A multiple is a ratio, never an amount restated at another scale.

"Foreign holdings are about 4.6 times the Canadian allocation": 4.6 is no amount of the
table, but read as thousands it lands, hedged, on the foreign line's 4,534 (4,600 give or
take the hedge), and the row's name vouches for it. A wrong multiple then passed as a
rounding of a cell. A number written as a multiple ("times", "x", "-fold") is read as
what it is: a ratio of two amounts, found (or not) by the derived search."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status
from validation.engine.checks.numeric._derive_pool import STATED, Operand
from validation.engine.checks.numeric._derive_shares import unmixed

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


# A multiple landing, hedged, on a money amount's digits: "roughly 1.3 times" and the
# "$1.2 million" a paragraph writes. No ratio is a sum of money.
AWARDS = (
    "| Non-vested awards | Shares |\n|---|---|\n"
    "| Non-vested at December 31, 2018 | 1,187,586 |\n"
    "| Granted | 473,550 |\n"
    "| Vested | (365,223) |\n"
    "| Forfeited | (12,632) |\n"
    "| Non-vested at December 31, 2019 | 1,283,281 |\n"
)
EXPENSE = "The company capitalized compensation expense of $1.2 million in 2019."


def test_a_multiple_is_no_money_amount_it_rounds_to() -> None:
    verdict = check(
        "Grants outpaced vesting by roughly 1.1 times in 2019.",
        ("awards", AWARDS),
        ("note", EXPENSE),
    )

    assert status(verdict, "1.1") != "rounded"
    assert findings_on(verdict, "1.1") != []


def test_a_change_beside_a_multiple_is_the_writers_own() -> None:
    """Read as $1.2 million, "1.3" stood in the sentence as an amount, and the pool's
    growth (1,283,281 - 1,187,586) was taken for a miss of the writer's own figures."""
    verdict = check(
        "The year began with 1,187,586 non-vested shares. The company granted 473,550 "
        "shares, and 365,223 vested. Because grants outpaced "
        "vesting by roughly 1.3 times, the pool grew by 95,695 shares, or 8.1%, to 1,283,281.",
        ("awards", AWARDS),
        ("note", EXPENSE),
    )

    assert status(verdict, "1.3") == "derived"
    assert status(verdict, "95,695") == "derived"
    assert status(verdict, "8.1%") == "derived"


# An amount of money is no ratio of two amounts of money either: "$2.45 million" (a slip of
# $2.45 billion, a year-end goodwill of a table in millions) had passed as $2,035.5 million
# over $830.6 million, two figures the report states, read in the table's units.
def _stated(value: float, text: str, unit: str) -> Operand:
    return Operand(value, text, False, 1e6, STATED, -1, -1, reported=True, unit=unit)


def test_an_amount_of_money_is_no_ratio_of_two_amounts_of_money() -> None:
    average = _stated(2035.5e6, "$2,035.5 million", "$")
    rise = _stated(830.6e6, "$830.6 million", "$")
    years = _stated(2.5, "2.5", "")
    found = [
        (1, 2035.5 / 830.6, "{} / {}", "per unit", (average, rise)),
        (1, 2035.5e6 / 2.5, "{} / {}", "per unit", (average, years)),
    ]

    money = [candidate[4] for candidate in unmixed(iter(found), frozenset(), money=True)]
    counted = [candidate[4] for candidate in unmixed(iter(found), frozenset())]

    assert money == [(average, years)]  # a sum over a count of years stays an amount
    assert counted == [(average, rise), (average, years)]  # a bare ratio may be either
