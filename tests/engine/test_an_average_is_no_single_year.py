"""A figure its words call an average over the years is judged as that average, not as the
one year's cell that writes the same digits.

"Services averaged 151 million a year across the period", where the services line reads
148, 151 and 133: 151 is 2018's figure, and the three years average 144. Matched to the
2018 cell, the slip passed as a restated figure. A figure stated right after "averaged"
or "averaging", with no year of its own, whose row's periods average to another value,
is now judged as a result. An evidence line that is itself an average ("Average daily
balance") keeps its match, and the operands of a stated mean ("the mean of 1,671 and
1,612") are no averages."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

REVENUES = (
    "|  | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
    "| Revenues from products | 9,381 | 9,461 | 8,175 |\n"
    "| Revenues from services | 148 | 151 | 133 |\n"
    "| Other revenues | 27 | 52 | 39 |\n"
    "| Total revenues | 9,556 | 9,664 | 8,347 |\n"
)
BALANCES = (
    "|  | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
    "| Average daily balance | 412 | 398 | 377 |\n"
    "| Year-end balance | 430 | 401 | 380 |\n"
)


def test_an_average_that_restates_one_years_cell_is_flagged() -> None:
    verdict = check("Services averaged 151 million a year across the period.", ("table", REVENUES))

    assert findings_on(verdict, "151 million") != []


def test_the_true_average_is_derived() -> None:
    verdict = check("Services averaged 144 million a year across the period.", ("table", REVENUES))

    assert status(verdict, "144 million") == "derived"


def test_a_figure_the_evidence_gives_as_an_average_keeps_its_match() -> None:
    verdict = check("Deposits averaged 398 million in daily balances.", ("table", BALANCES))

    assert findings_on(verdict, "398 million") == []


def test_the_operands_of_a_stated_mean_are_not_averages() -> None:
    verdict = check(
        "Average total revenues over the two years were 9,610 million (the mean of 9,556 "
        "million and 9,664 million).",
        ("table", REVENUES),
    )

    assert findings_on(verdict, "9,556 million") == []
    assert findings_on(verdict, "9,664 million") == []
