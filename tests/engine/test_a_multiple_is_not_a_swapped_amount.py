"""A number written as a multiple is a ratio, never an amount restated with two digits
swapped. "The valuation allowance is about 2.27 times its 2018 level" is 4,970 over
2,191; the table also holds "Deferred tax assets, net of valuation allowance" at 2,724
million, $2.72 billion, whose digits are 2.27's with two swapped. Read as that amount
misquoted, the writer's right multiple was dropped and flagged. A multiple that misses
its row's ratio is still flagged, and gets no fix to the amount."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged, status

TABLE = (
    "| | 2019 | 2018 |\n|---|---|---|\n"
    "| | (in millions) | |\n"
    "| Gross deferred tax assets | 7,694 | 4,731 |\n"
    "| Valuation allowance | (4,970) | (2,191) |\n"
    "| Deferred tax assets, net of valuation allowance | 2,724 | 2,540 |\n"
)


def test_a_multiple_of_a_line_over_its_earlier_year_is_derived() -> None:
    verdict = check(
        "Gross deferred tax assets grew to $7,694 million. The valuation allowance is "
        "about 2.27 times its 2018 level.",
        ("table", TABLE),
    )

    assert status(verdict, "2.27") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_multiple_is_not_fixed_to_the_amount_with_its_digits() -> None:
    verdict = check(
        "Gross deferred tax assets grew to $7,694 million. The valuation allowance is "
        "about 2.72 times its 2018 level.",
        ("table", TABLE),
    )

    assert flagged(verdict) == ["2.72"]
    assert fixes_on(verdict, "2.72") in ([], [("2.72", "2.27")])
