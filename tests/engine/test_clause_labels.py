"""A number's own clause names its line item on either side of it (issue 25): "a $9.6
million drop in trade payables" says which row it is of after the number, and the words
before it ("partly offset by a") name nothing. And a figure its words date to the latest
period ("at the most recent year-end") is that period's. Figures and words are ours; each
rule has a wrong number with the same words beside it that must still be flagged."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged, status

# A table in millions with many rows of one column: a crowded neighbourhood, where a
# difference found among every row's cells is no better than chance.
PAYABLES = (
    "payables",
    {
        "table_title": "($ in millions) December 31,",
        "line_items": {
            "Trade payables": {"2021": 54.3, "2020": 63.9},
            "Customer deposits": {"2021": 21.8, "2020": "\u2014"},
            "Accrued freight": {"2021": 17.5, "2020": 16.2},
            "Warranty reserve": {"2021": 11.6, "2020": 11.9},
            "Accrued utilities": {"2021": 9.7, "2020": 9.7},
            "Sales taxes payable": {"2021": 5.1, "2020": 2.3},
            "Accrued royalties": {"2021": 4.4, "2020": 4.1},
            "Other": {"2021": 28.9, "2020": 25.6},
            "Total current payables": {"2021": 153.3, "2020": 133.7},
        },
    },
)

INTRO = (
    "Total current payables rose $19.6 million over the year. Most of it was a new "
    "$21.8 million balance of customer deposits, partly offset by a "
)


def test_the_line_item_named_after_the_number_is_its_row() -> None:
    verdict = check(INTRO + "$9.6 million drop in trade payables.", PAYABLES)

    assert status(verdict, "$9.6 million") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_change_named_after_the_number_is_still_flagged() -> None:
    verdict = check(INTRO + "$8.1 million drop in trade payables.", PAYABLES)

    assert any("8.1" in text for text in flagged(verdict))


# ------------------------------------------------------------------ the latest period

LEVELS = (
    "balances",
    "(in millions)\n\n| | 2021 | 2020 |\n|---|---|---|\n| Accrued warranty | 2.6 | 2.4 |\n"
    "| Total provisions | 171.2 | 158.9 |",
)
DATED = (
    "Warranty accruals went from $2.4 million to $2.6 million over the year.\n\n"
    "- Warranty is a small part of total provisions, which stood at {} at the most "
    "recent year-end."
)


def test_a_figure_dated_to_the_latest_period_may_be_its_cell() -> None:
    verdict = check(DATED.format("$171.2 million"), LEVELS)

    assert flagged(verdict) == []


def test_a_figure_dated_to_the_latest_period_but_of_an_earlier_one_is_fixed() -> None:
    verdict = check(DATED.format("$158.9 million"), LEVELS)

    assert any("158.9" in text for text in flagged(verdict))
    assert [replace for _, replace in fixes_on(verdict, "$158.9 million")] == ["$171.2 million"]


# ------------------------------------------------------------------ a change to a level

SHARES = (
    "per share",
    "(in thousands)\n\n| | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
    "| Net income | $41,870 | $47,215 | $38,904 |\n"
    "| Earnings allocated to unvested awards | (612) | (705) | (569) |\n"
    "| Earnings to common holders | 41,258 | 46,510 | 38,335 |\n"
    "| Weighted average shares, basic | 18,337 | 18,841 | 18,806 |\n"
    "| Weighted average shares, diluted | 18,337 | 18,841 | 18,806 |\n"
    "| Earnings per share, basic | $2.25 | $2.47 | $2.04 |",
)
EPS = (
    "Per share the decline was milder. Basic EPS came in at $2.25 versus $2.47, down about "
    "8.9%, because the weighted average share count fell approximately {} to 18,337 thousand."
)


def test_a_change_to_a_stated_level_is_sought_from_that_level() -> None:
    verdict = check(EPS.format("2.7%"), SHARES)

    assert status(verdict, "2.7%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_change_to_a_stated_level_is_still_flagged() -> None:
    verdict = check(EPS.format("3.2%"), SHARES)

    assert any("3.2%" in text for text in flagged(verdict))


# ------------------------------------------------------------------ words that judge a change

SUBSCRIBERS = (
    "subscribers",
    "| | 2021 | 2020 |\n|---|---|---|\n| Video net losses | (3,912) | (5,152) |\n"
    "| Internet net additions | 61,840 | 55,210 |\n| Phone net additions | 1,204 | 2,377 |",
)
NARROWING = (
    "Video net losses of 3,912 were 1,240 smaller than a year earlier, an improvement of about {}."
)


def test_an_improvement_of_losses_that_shrank_is_a_fall() -> None:
    verdict = check(NARROWING.format("24.1%"), SUBSCRIBERS)

    assert status(verdict, "24.1%") == "derived"
    assert flagged(verdict) == []


def test_an_improvement_taken_over_the_level_it_ended_at_is_still_flagged() -> None:
    verdict = check(NARROWING.format("31.7%"), SUBSCRIBERS)

    assert any("31.7%" in text for text in flagged(verdict))


# ------------------------------------------------------------------ an average over a span

PLAN_RATES = (
    "assumptions",
    "| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n| Discount rate | 2.5% | 2.4% | 3.2% |\n"
    "| Expected return on plan assets | 3.3% | 3.3% | 4.3% |\n"
    "| Rate of compensation increase | 2.3% | 2.3% | 2.2% |",
)
SPAN = "The discount rate averaged {} over fiscal 2017-2019, against a 4.3% return a year in."


def test_an_average_over_a_span_of_years_is_of_all_of_them() -> None:
    verdict = check(SPAN.format("2.7%"), PLAN_RATES)

    assert status(verdict, "2.7%") == "derived"


def test_an_average_of_two_of_the_spans_years_is_no_reading_of_it() -> None:
    verdict = check(SPAN.format("2.8%"), PLAN_RATES)  # (3.2 + 2.4) / 2: two of three years

    assert any("2.8%" in text for text in flagged(verdict))
