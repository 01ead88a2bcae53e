"""Issue 25: a figure compared with a line item's figure of another period, restating
another line item of its own period, is that line's cell misplaced; a two-level header
(a year over several sub-columns) dates each sub-column. Every case is written anew."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on
from validation.engine.checks.numeric._layout_years import _layout_period, fiscal_years

RESULTS = (
    "| $ million | 2022/2023 | 2023/2024 |\n|---|---|---|\n"
    "| Operating profit | 540 | 610 |\n"
    "| Finance costs | -75 | -68 |\n"
    "| Profit before tax | 465 | 542 |\n"
    "| Tax | -120 | -150 |\n"
)


def test_a_figure_from_the_line_below_in_the_earlier_period_is_flagged_and_fixed() -> None:
    """Operating profit went from 540 to 610; 465 is the earlier profit before tax."""
    body = "Operating profit climbed from $465 million in 2022/2023 to $610 million in 2023/2024."
    verdict = check(body, ("accounts", RESULTS))

    assert findings_on(verdict, "$465 million")
    assert fixes_on(verdict, "465") == [("$465 million", "$540 million")]
    assert not findings_on(verdict, "$610 million")


def test_the_same_line_over_two_periods_is_approved() -> None:
    body = "Operating profit climbed from $540 million in 2022/2023 to $610 million in 2023/2024."
    verdict = check(body, ("accounts", RESULTS))

    assert verdict.decision == "APPROVE"


def test_two_line_items_each_named_by_its_own_words_are_not_mixed_up() -> None:
    """A figure whose own words name its line item is that line's, whatever stands
    beside it."""
    body = (
        "Operating profit reached $610 million in 2023/2024, while profit before tax "
        "had been $465 million in 2022/2023."
    )
    verdict = check(body, ("accounts", RESULTS))

    assert not findings_on(verdict, "$465 million")


def test_a_figure_of_a_total_line_beside_one_segment_is_flagged() -> None:
    segments = (
        "| $ thousand | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
        "| Retail | 8,840 | 7,320 | 2,150 |\n"
        "| Wholesale | (310) | (95) | (40) |\n"
        "| Total | 8,530 | 7,225 | 2,110 |\n"
    )
    body = (
        "Retail: revenue grew from $2,150 thousand in 2019 to $7,225 thousand in 2020 "
        "and reached $8,840 thousand in 2021."
    )
    verdict = check(body, ("segments", segments))

    assert findings_on(verdict, "$7,225 thousand")
    assert fixes_on(verdict, "7,225") == [("$7,225 thousand", "$7,320 thousand")]


LAYOUT = (
    "                                      2024              2023\n"
    "                                     Units      $k     Units      $k\n"
    "Opening balance                      410.5   8,120     398.0   7,805\n"
    "Issued under the savings plan          6.2     140      12.5     305\n"
)


def test_a_two_level_header_dates_each_sub_column() -> None:
    years = {}
    for value in ("410.5", "8,120", "398.0", "7,805", "6.2", "140", "12.5", "305"):
        years[value] = _layout_period(LAYOUT, LAYOUT.index(value))
    assert years == {
        "410.5": 2024,
        "8,120": 2024,
        "398.0": 2023,
        "7,805": 2023,
        "6.2": 2024,
        "140": 2024,
        "12.5": 2023,
        "305": 2023,
    }


CENTRED = (
    "              Year ended 2024            Year ended 2023       \n"
    "             Revenue    Share of group    Revenue    Share of group\n"
    "Nordics       $62,410       28.5%         $51,020       33.0%\n"
    "Iberia         41,300       18.9%          30,150       19.5%\n"
)
CHANGES = (
    "                      2024        2023      Change    Change %\n"
    "                    Amount      Amount      Amount     Percent\n"
    "Licences             8,410       7,950         460        5.8%\n"
)


def test_sub_columns_named_again_under_each_centred_year_are_that_years() -> None:
    """Each year's caption spans its group of sub-columns, off their edges: the labels
    under it, repeated once per year, give the group's size."""
    years = {
        value: _layout_period(CENTRED, CENTRED.index(value))
        for value in ("$62,410", "28.5", "$51,020", "33.0", "41,300", "18.9", "30,150", "19.5")
    }
    assert years == {
        "$62,410": 2024,
        "28.5": 2024,
        "$51,020": 2023,
        "33.0": 2023,
        "41,300": 2024,
        "18.9": 2024,
        "30,150": 2023,
        "19.5": 2023,
    }


def test_sub_column_labels_that_do_not_repeat_per_year_date_nothing_by_order() -> None:
    # Two years over four columns whose labels differ: the change columns are no year's.
    assert _layout_period(CHANGES, CHANGES.index("460")) is None
    assert _layout_period(CHANGES, CHANGES.index("5.8")) is None


def test_a_share_a_fall_ends_at_quoted_from_the_earlier_year_is_fixed() -> None:
    body = "The Nordics' share of the group fell 4.5 points to 33.0% over the year."
    verdict = check(body, ("regions", CENTRED))

    assert findings_on(verdict, "33.0%")
    assert fixes_on(verdict, "33.0") == [("33.0%", "28.5%")]


def test_a_share_a_fall_ends_at_in_the_later_year_is_left_alone() -> None:
    body = "The Nordics' share of the group fell 4.5 points to 28.5% over the year."
    verdict = check(body, ("regions", CENTRED))

    assert findings_on(verdict, "28.5%") == []
    assert verdict.fixes == []


MARGINS = (
    "| Year | 2024 | 2023 | 2022 |\n|---|---|---|---|\n"
    "| Service revenue | 410.2 | 388.9 | 350.4 |\n"
    "| Service margin % | 31.6% | 29.8% | 26.1% |\n"
)


def test_a_changes_start_quoted_from_the_year_before_its_base_is_fixed() -> None:
    """The stated gain, 1.8 points, lies between 31.6% and 29.8%: the change came from
    2023's margin, so the 26.1% it is said to come from is another year's."""
    body = "Service margin widened to 31.6% from 26.1%, a gain of 1.8 points."
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "26.1%")
    assert fixes_on(verdict, "26.1") == [("26.1%", "29.8%")]


def test_a_changes_start_its_stated_change_agrees_with_is_left_alone() -> None:
    body = "Service margin widened to 31.6% from 26.1%, a gain of 5.5 points over two years."
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "26.1%") == []


def test_a_changes_start_in_the_year_its_change_is_taken_from_is_left_alone() -> None:
    body = "Service margin widened to 31.6% from 29.8%, a gain of 1.8 points."
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "29.8%") == []
    assert verdict.fixes == []


def test_a_start_of_one_change_is_not_judged_by_the_next_change_of_its_sentence() -> None:
    """The 2.3-point gain lies between 2024 and 2023; the margin the sentence starts
    from, 26.1%, is 2022's and begins the first change, not that one."""
    body = (
        "Service margin climbed from 26.1% in 2022 to 29.8% in 2023, and then added "
        "a further 1.8 points to 31.6% in 2024."
    )
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "26.1%") == []
    assert verdict.fixes == []


def test_a_start_named_after_the_change_it_began_is_fixed_to_the_changes_base() -> None:
    """The 21.3 rise (about 5.5%) is 2024 over 2023; the start written after it, 350.4,
    is 2022's."""
    body = "Service revenue rose 21.3 in 2024, or about 5.5%, from 350.4 the year before."
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "350.4")
    assert fixes_on(verdict, "350.4") == [("350.4", "388.9")]


def test_a_start_named_after_the_change_it_truly_began_is_left_alone() -> None:
    body = "Service revenue rose 21.3 in 2024, or about 5.5%, from 388.9 the year before."
    verdict = check(body, ("segment", MARGINS))

    assert findings_on(verdict, "388.9") == []
    assert verdict.fixes == []


def test_an_earlier_periods_sub_column_compared_with_that_period_is_fixed() -> None:
    """The plan issued $140 thousand this year; $305 thousand was the year before, so a
    figure "smaller than in 2023" cannot be 2023's."""
    body = (
        "The savings plan issued shares worth $305 thousand during the year, a smaller "
        "amount than in 2023."
    )
    verdict = check(body, ("register", LAYOUT))

    assert findings_on(verdict, "$305 thousand")
    assert fixes_on(verdict, "305") == [("$305 thousand", "$140 thousand")]


def test_a_fiscal_year_written_as_two_calendar_years_is_one_period() -> None:
    assert fiscal_years("FY 2020/2021") == "FY 2021"
    assert fiscal_years("2020/21") == "2021"
    # not one fiscal year: two years apart, or in the wrong order, or a month and a year
    assert fiscal_years("2019/2021") == "2019/2021"
    assert fiscal_years("2021/2020") == "2021/2020"
    assert fiscal_years("06/2021") == "06/2021"


def test_two_columns_of_one_period_are_not_two_periods() -> None:
    """ "Cost | Fair value" under one year: a figure of one line's fair value beside
    another line's cost is no comparison over time."""
    table = (
        "| | 2021 | | 2020 | |\n|---|---|---|---|---|\n"
        "| (in millions) | Cost | Fair value | Cost | Fair value |\n"
        "| Bonds due 2026 | 310.5 | 322.8 | 309.9 | 318.0 |\n"
        "| Notes due 2028 | 205.0 | 219.6 | 204.1 | 211.3 |\n"
    )
    body = "The inputs are 310.5 million and 219.6 million, which add up to $530.1 million."
    verdict = check(body, ("debt", table))

    assert not findings_on(verdict, "219.6 million")


def test_the_figure_a_stated_change_is_computed_from_stands_and_its_neighbour_is_flagged() -> None:
    """ "up $70 million" is 610 - 540: the writer took 610 as written, so 610 is the
    right line's figure and 465 (the earlier profit before tax) the misplaced one."""
    body = "It went from $465 million in 2022/2023 to $610 million in 2023/2024, up $70 million."
    verdict = check(body, ("accounts", RESULTS))

    assert not findings_on(verdict, "$610 million")
    assert fixes_on(verdict, "465") == [("$465 million", "$540 million")]


# ------------------------------------------------------------------ finer than the cell

GROWTH_NOTE = (
    "Management attributes 58% of organic growth to Germany, and the Nordic region contributed 26%."
)


def test_a_figure_finer_than_a_cell_about_something_else_is_no_restatement_of_it() -> None:
    # 25.9% is written to a tenth; the coarser 26% is the Nordic region's share.
    verdict = check(
        "Iberian orders were down about 25.9% in relative terms.", ("note", GROWTH_NOTE)
    )

    assert findings_on(verdict, "25.9%") == ["orphan"]


def test_a_figure_finer_than_a_cell_about_the_same_thing_still_restates_it() -> None:
    body = "The Nordic region contributed roughly 25.9% of organic growth."
    verdict = check(body, ("note", GROWTH_NOTE))

    assert findings_on(verdict, "25.9%") == []


TWO_NET_LINES = (
    "| $ thousand | 2024 | 2023 |\n|---|---|---|\n"
    "| Gross deferred tax assets | 310,412 | 295,870 |\n"
    "| Less valuation allowance | (101,540) | (83,226) |\n"
    "| Net deferred tax assets | 208,872 | 212,644 |\n"
    "| Deferred tax liabilities | (121,305) | (109,488) |\n"
    "| Net deferred tax assets | 87,567 | 103,156 |\n"
)


def test_a_start_from_a_line_of_the_same_name_is_fixed_to_the_line_its_change_is_of() -> None:
    """Two lines share the label "Net deferred tax assets": the words cannot tell them apart,
    the stated change can. A fall of $15,589 thousand to 87,567 starts at 103,156, not at the
    other line's 212,644 of the same year."""
    body = (
        "Net deferred tax assets after liabilities fell from $212,644 thousand in 2023 to "
        "$87,567 thousand in 2024, a drop of $15,589 thousand."
    )
    verdict = check(body, ("note", TWO_NET_LINES))

    assert fixes_on(verdict, "212,644") == [("$212,644 thousand", "$103,156 thousand")]
    right = check(body.replace("$212,644", "$103,156"), ("note", TWO_NET_LINES))
    assert right.decision == "APPROVE"
