"""A figure its own words date to one year is that year's value (`_derive_years`): an
average over the years of its row is no reading of it, however close the two land. Each
case is written anew: the figures and words are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

DEPOSITS = (
    "table",
    "| ($ in millions) | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
    "| Customer deposits | $7.4 | $11.9 | $12.5 |\n"
    "| Escrow balances | 3.3 | 2.8 | 2.1 |",
)


def test_a_figure_dated_to_one_year_is_not_the_average_of_its_row() -> None:
    # 10.6 is the mean of the three years (31.8 / 3), not the 2019 cell (12.5).
    verdict = check(
        "Customer deposits were $7.4 million in 2021, $11.9 million in 2020 and"
        " $10.6 million in 2019.",
        DEPOSITS,
    )

    assert any("10.6" in text for text in flagged(verdict))


def test_an_average_its_words_name_over_the_years_is_still_derived() -> None:
    verdict = check(
        "Customer deposits averaged $10.6 million across 2021, 2020 and 2019 ($7.4 million"
        " in 2021, $11.9 million in 2020 and $12.5 million in 2019).",
        DEPOSITS,
    )

    assert status(verdict, "$10.6 million") == "derived"
    assert flagged(verdict) == []


def test_a_year_that_opens_a_span_does_not_date_the_figure() -> None:
    # "in 2019-2021" is a span of years: the mean over it stands.
    verdict = check(
        "Customer deposits ran at about $10.6 million a year on average in 2019-2021.",
        DEPOSITS,
    )

    assert status(verdict, "$10.6 million") == "derived"


def test_a_year_followed_by_and_another_figure_still_dates_its_own() -> None:
    # "in 2019 and $7.4 million in 2021" is no list of years: the 10.6 is 2019's figure.
    verdict = check(
        "Customer deposits went from $10.6 million in 2019 and $7.4 million in 2021.",
        DEPOSITS,
    )

    assert any("10.6" in text for text in flagged(verdict))
