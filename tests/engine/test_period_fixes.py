"""Issue 25, point 4: a figure quoted from another period of its line item is fixed to
the cell of the period its words name, when the evidence dates every cell plainly.

Two ways the evidence and the report date a figure, each tested both ways (the slip gets
the right cell; the right figure, or one whose period is unsure, gets no fix):

- a sentence of evidence prose that gives one quantity per year, each value followed by
  its year or the years listed with "respectively", dates each of its values;
- a paragraph that names an earlier year only as the base of a comparison ("against
  $8.4 million in 2022") does not date a change's end that follows it to that year.
"""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on
from validation.engine.checks.numeric._layout_years import short_fiscal_years

# ------------------------------------------------------------------ prose rows' periods

FREIGHT = (
    "Freight and handling costs were $84.6 million in 2023, $71.2 million in 2022 and "
    "$65.9 million in 2021. The Company operated 14 distribution centres at year-end."
)
LICENCES = (
    "During fiscal 2021, 2022 and 2023, licence revenue from the partner channel was "
    "$12,410, $13,905 and $15,112, respectively, and maintenance revenue was $4,021, "
    "$4,377 and $4,960, respectively."
)


def test_a_figure_from_a_prose_rows_other_year_is_fixed_to_the_year_its_words_name() -> None:
    verdict = check("Freight and handling costs were $71.2 million in 2023.", ("note", FREIGHT))

    assert fixes_on(verdict, "71.2") == [("$71.2 million", "$84.6 million")]


def test_a_prose_rows_figure_in_its_own_year_is_left_alone() -> None:
    verdict = check("Freight and handling costs were $84.6 million in 2023.", ("note", FREIGHT))

    assert verdict.fixes == []
    assert findings_on(verdict, "84.6") == []


def test_the_years_listed_respectively_date_each_value_of_the_row() -> None:
    verdict = check(
        "Partner-channel licence revenue reached $13,905 thousand in fiscal 2023.",
        ("note", LICENCES),
    )

    ((_find, replace),) = fixes_on(verdict, "13,905")
    assert "15,112" in replace


def test_a_respectively_value_named_with_its_own_year_is_left_alone() -> None:
    verdict = check(
        "Partner-channel licence revenue was $13,905 thousand in fiscal 2022.",
        ("note", LICENCES),
    )

    assert fixes_on(verdict, "13,905") == []


def test_a_prose_row_that_dates_no_value_gives_no_fix() -> None:
    """The years stand apart from the values, with no "respectively": which value is
    which year is the reader's guess, so a figure is not fixed to another."""
    evidence = (
        "Across 2021, 2022 and 2023 the Company's freight costs moved between $65.9 "
        "million, $84.6 million and $71.2 million as fuel surcharges changed."
    )
    verdict = check("Freight costs were $71.2 million in 2023.", ("note", evidence))

    assert fixes_on(verdict, "71.2") == []


# ------------------------------------------------------------------ a paragraph's base year

SEGMENTS = (
    "(in thousands)\n\n| | 2023 | 2022 |\n|---|---|---|\n"
    "| Services revenue | 59,512 | 64,430 |\n| Hardware revenue | 3,788 | 5,073 |\n"
)
BASE_PARAGRAPH = (
    "## Revenue\n\nServices revenue was $59.5 million against $64.4 million in 2022, a 7.6% drop. "
)


def test_a_changes_end_after_a_year_named_as_a_base_is_the_latest_periods() -> None:
    """The paragraph names 2022 only as what 2023 is compared against: "fell to $5.1
    million" still ends in the latest year, whose cell is 3,788."""
    verdict = check(
        BASE_PARAGRAPH + "Hardware revenue fell about 25.3% to $5.1 million.",
        ("segments", SEGMENTS),
    )

    assert fixes_on(verdict, "5.1") == [("$5.1 million", "$3.8 million")]


def test_a_changes_end_in_the_latest_period_after_a_base_year_is_left_alone() -> None:
    verdict = check(
        BASE_PARAGRAPH + "Hardware revenue fell about 25.3% to $3.8 million.",
        ("segments", SEGMENTS),
    )

    assert fixes_on(verdict, "3.8") == []
    assert findings_on(verdict, "3.8") == []


def test_a_paragraph_about_the_earlier_year_still_dates_its_changes_end() -> None:
    """ "In 2022" dates the paragraph itself, not a comparison: its change may end in
    2022's cell, and nothing is fixed."""
    verdict = check(
        "## Revenue\n\nIn 2022, services revenue was $64.4 million. Hardware revenue rose "
        "to $5.1 million.",
        ("segments", SEGMENTS),
    )

    assert fixes_on(verdict, "5.1") == []


# ------------------------------------------------------------------ a year before the figure

CASH = (
    "($ in billions)\n"
    "                                            2023          2022          2021\n"
    "Operating cash flow                        $14.8         $15.2         $16.7\n"
    "Cash and marketable securities             $ 9.0         $12.2         $12.8\n"
)


def test_a_figure_its_clause_dates_before_it_is_fixed_to_that_years_cell() -> None:
    """ "the 2023 balance of $12.8 billion": 12.8 is 2021's; the row's 2023 cell is 9.0,
    written "$ 9.0" with its sign set apart (no unit of its own, the row's currency)."""
    verdict = check(
        "Cash and marketable securities fell sharply: the 2023 balance of $12.8 billion "
        "leaves less room for buy-backs.",
        ("filing", CASH),
    )

    assert fixes_on(verdict, "12.8") == [("$12.8 billion", "$9.0 billion")]


def test_a_possessive_year_before_the_right_figure_is_left_alone() -> None:
    verdict = check(
        "Fiscal 2023's operating cash flow of $14.8 billion was the lowest of the three.",
        ("filing", CASH),
    )

    assert fixes_on(verdict, "14.8") == []
    assert findings_on(verdict, "14.8") == []


def test_a_year_that_starts_a_comparison_does_not_date_the_figure() -> None:
    """ "from 2021 ... $16.7 billion": the year is the change's start, and so is the
    figure; nothing is fixed."""
    verdict = check(
        "Operating cash flow has slipped every year from 2021 when it was $16.7 billion.",
        ("filing", CASH),
    )

    assert fixes_on(verdict, "16.7") == []


def test_a_year_before_a_figure_past_another_number_dates_nothing() -> None:
    verdict = check(
        "In 2023 3 plants closed and operating cash flow was $15.2 billion.",
        ("filing", CASH),
    )

    assert fixes_on(verdict, "15.2") == []


OBLIGATION = (
    "| | 2024 | 2023 | 2022 |\n|---|---|---|---|\n"
    "| Benefit obligation at beginning of year | $11,594 | 13,064 | 13,244 |\n"
    "| Service cost | 56 | 66 | 63 |\n"
    "| Benefit obligation at end of year | $12,217 | 11,594 | 13,064 |\n"
)


def test_a_figure_that_is_also_a_cell_of_the_year_named_is_left_alone() -> None:
    """11,594 opens 2024 and closes 2023: "at end of year ... in 2023" restates the 2023
    cell of the closing row, whichever row the look-up matched first."""
    verdict = check(
        "The benefit obligation at end of year was $11,594 million in 2023.",
        ("pension_note", OBLIGATION),
    )

    assert fixes_on(verdict, "11,594") == []
    assert findings_on(verdict, "11,594") == []


def test_a_year_before_a_figure_of_few_digits_dates_its_subject_not_the_figure() -> None:
    """ "Net income in 2024 is about 0.3 times ...": the year is the subject's; a figure of
    one digit is no cell quoted from another year."""
    table = (
        "| | 2024 | 2023 |\n|---|---|---|\n| Net income | 4,566 | 3,120 |\n"
        "| Basic earnings per share | 0.34 | 0.28 |\n"
    )
    verdict = check(
        "Net income in 2024 is about 0.3 times the 2024 weighted share count.",
        ("financials", table),
    )

    assert fixes_on(verdict, "0.3") == []


# ------------------------------------------------------------------ fiscal years written short

HOTELS = (
    "| | F24 | F23 |\n|---|---|---|\n| $ MILLION | 53 WEEKS | 52 WEEKS |\n"
    "| Sales | 1,671 | 1,612 |\n| Depreciation and amortisation | (111) | (102) |\n"
)


def test_a_figure_of_f23_said_of_f24_is_fixed_to_the_f24_cell() -> None:
    """ "F24" heads a column as "2024" would, and "in F24" names it as "in 2024" would."""
    verdict = check("- Depreciation and amortisation: $102 in F24.", ("table", HOTELS))

    ((_find, replace),) = fixes_on(verdict, "102")
    assert "111" in replace


def test_a_figure_said_of_its_own_short_fiscal_year_is_left_alone() -> None:
    verdict = check("- Depreciation and amortisation: $111 in FY24.", ("table", HOTELS))

    assert fixes_on(verdict, "111") == []
    assert findings_on(verdict, "111") == []


def test_only_a_fiscal_years_short_forms_are_read_as_years() -> None:
    assert short_fiscal_years("F24 | F23") == "2024 | 2023"
    assert short_fiscal_years("in FY24 and FY 2023") == "in 2024 and 2023"
    assert short_fiscal_years("FY 2020/2021") == "2021"
    # a form number, a word, a dash or a third digit: no year
    assert short_fiscal_years("Form F-19") == "Form F-19"
    assert short_fiscal_years("OF19 FIFA F190") == "OF19 FIFA F190"
