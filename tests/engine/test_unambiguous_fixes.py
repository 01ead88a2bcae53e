"""Issue 25, point 4: a fix only when the writer's derivation is unambiguous.

A number is fixed when its operands are written beside it, when it restates the one
evidence cell its sentence names with two digits swapped, or when its digits are that
cell's at another scale. A result whose nearest reading takes operands from elsewhere
is flagged "cannot verify" with that candidate, and gets no fix; a correct number is
never "fixed" by a calculation that merely lands near it. Every case is written anew."""

from __future__ import annotations

from tests.engine.reports import NUMBERS_ONLY, check, findings_on, fixes_on, status
from validation.engine.fixes import FixToApply, apply_fixes, judge_edit
from validation.engine.types import EvidenceItem

# ------------------------------------------------------------------ the memo cases

SALES = (
    "(in millions)\n\n| | 2024 | 2023 | 2022 | 2021 |\n|---|---|---|---|---|\n"
    "| Net sales | 288.0 | 251.0 | 231.0 | 200.0 |\n"
    "| Order backlog | 410.0 | 385.0 | 362.0 | 330.0 |\n"
    "| Net income | 36.0 | 30.0 | 27.5 | 24.0 |\n"
)


def test_a_three_year_compound_rate_is_not_fixed_with_one_years_growth() -> None:
    """(288 / 200) ** (1/3) - 1 = 12.9 %; 2024 alone grew 14.7 %."""
    body = (
        "Net sales reached $288.0 million in 2024 against $200.0 million in 2021, "
        "compounding at about 12.9% a year over the three years."
    )
    verdict = check(body, ("annual_report", SALES))

    assert fixes_on(verdict, "12.9%") == []


def test_a_three_year_average_is_not_fixed_to_one_years_figure() -> None:
    """(288 + 251 + 231) / 3 = 256.7: a correct average, whatever one year reads."""
    body = "Over 2022 to 2024, net sales averaged roughly $256.7 million a year."
    verdict = check(body, ("annual_report", SALES))

    assert fixes_on(verdict, "256.7") == []


def test_a_price_earnings_multiple_is_not_fixed_with_unrelated_figures() -> None:
    """A multiple whose operands (a share price and earnings per share) the evidence
    does not hold is flagged at most, never "fixed" by a ratio of backlog and sales."""
    body = (
        "Net income rose to $36.0 million in 2024. At the current price the shares "
        "trade at about 16.5 times earnings."
    )
    verdict = check(body, ("annual_report", SALES))

    assert fixes_on(verdict, "16.5") == []


def test_a_result_whose_operands_are_written_elsewhere_is_unverified_without_a_fix() -> None:
    """The growth stated in a later paragraph, with no figure beside it and other
    figures in the report it could be of: the nearest reading is shown as a candidate,
    no fix is proposed, and the report is not approved on it."""
    body = (
        "Net income was $36.0 million in 2024 and $30.0 million in 2023.\n\n"
        "The order backlog stood at $410.0 million, up from $385.0 million.\n\n"
        "All told, earnings grew roughly 23.5% over the year."
    )
    verdict = check(body, ("annual_report", SALES))

    assert fixes_on(verdict, "23.5%") == []
    assert findings_on(verdict, "23.5%")
    assert verdict.decision != "APPROVE"


def test_a_wrong_change_whose_figures_stand_beside_it_gets_its_fix() -> None:
    body = "Net income rose to $36.0 million from $30.0 million, an increase of 25.0%."
    verdict = check(body, ("annual_report", SALES))

    ((_find, replace),) = fixes_on(verdict, "25.0%")
    assert "20.0%" in replace


def test_a_correct_number_beside_a_result_is_not_fixed_to_another_period() -> None:
    """The figure is the base of a multiple in the same sentence: the writer used it as
    it is, whichever cell some other result of the sentence seems to need."""
    table = (
        "| | 2024 | 2023 | 2022 |\n|---|---|---|---|\n"
        "| Grant-date fair value per option | 41.80 | 40.60 | 25.90 |\n"
    )
    body = (
        "The grant-date fair value per option edged up to $41.80, about 3.0% above the "
        "prior year, and is now some 1.6 times the $25.90 of 2022."
    )
    verdict = check(body, ("option_note", table))

    assert fixes_on(verdict, "25.90") == []


# ------------------------------------------------------------------ restated figures


def test_a_figure_with_two_digits_swapped_is_fixed_to_the_cell_its_sentence_names() -> None:
    table = (
        "(in thousands)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
        "| Research and development | 7,364 | 6,918 |\n| Marketing | 4,127 | 3,990 |\n"
    )
    body = "Research and development spending rose to $7,346 thousand in 2024."
    verdict = check(body, ("cost_table", table))

    ((_find, replace),) = fixes_on(verdict, "7,346")
    assert "$7,364 thousand" in replace
    (fix,) = [fix for fix in verdict.fixes if "7,346" in fix.find]
    assert fix.evidence and fix.evidence[0].source_ref == "cost_table"


def test_a_swap_that_two_cells_could_explain_gets_no_fix() -> None:
    table = (
        "| | 2024 | 2023 |\n|---|---|---|\n"
        "| Service revenue | 5,816 | 5,168 |\n| Product revenue | 2,310 | 2,250 |\n"
    )
    body = "Service revenue came to $5,186 thousand."
    verdict = check(body, ("revenue_table", table))

    assert fixes_on(verdict, "5,186") == []
    assert findings_on(verdict, "$5,186 thousand")


def test_a_restated_figure_at_the_wrong_scale_is_fixed_to_the_named_cell() -> None:
    table = (
        "(in thousands)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
        "| Deferred revenue | 148,505 | 120,301 |\n"
    )
    body = "Deferred revenue grew sharply and stood at $148.5 billion at year-end."
    verdict = check(body, ("balance_sheet", table))

    ((_find, replace),) = fixes_on(verdict, "148.5")
    assert "$148.5 million" in replace


def test_a_figure_reading_a_cells_digits_as_dollars_is_at_the_wrong_scale() -> None:
    """3,063,117 in a table in thousands is $3.06 billion; "$3.06 million" rounds the digits
    read as dollars, against the table's own scale word."""
    table = (
        "(Dollars in thousands)          2019          2018\n"
        "Modules               $ 1,460,116     $ 502,001\n"
        "Net sales             $ 3,063,117   $ 2,244,044\n"
    )
    verdict = check("Net sales reached $3.06 million in 2019.", ("segments", table))

    ((_find, replace),) = fixes_on(verdict, "3.06")
    assert "$3.06 billion" in replace


def test_a_figure_writing_a_cells_digits_without_a_scale_word_is_left_alone() -> None:
    table = (
        "(in thousands)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
        "| Net sales | 3,063,117 | 2,244,044 |\n"
    )
    verdict = check("Net sales reached 3,063,117 in 2024.", ("segments", table))

    assert verdict.fixes == []
    assert findings_on(verdict, "3,063,117") == []


# A table that states no scale, introduced by a paragraph that does.
PER_SHARE = (
    "| | 2024 | 2023 |\n|---|---|---|\n"
    "| Net income | $ 1,169 | $ 116 |\n"
    "| Shares used in basic computation | 254 | 268 |\n"
)
INTRODUCED = (
    "The following is a calculation of net income per share (in millions, except per share "
    "amounts):"
)


def test_a_figure_at_another_scale_than_its_documents_declared_one_is_fixed() -> None:
    """The paragraph says "in millions": 1,169 is $1.17 billion, not $1.17 million (the
    digits read as thousands, as a table stating no scale may be read)."""
    wrong = check(
        "Net income came in at $1.17 million in 2024.",
        ("intro", INTRODUCED),
        ("table", PER_SHARE),
    )
    right = check(
        "Net income came in at $1.17 billion in 2024.",
        ("intro", INTRODUCED),
        ("table", PER_SHARE),
    )

    assert fixes_on(wrong, "1.17") == [("$1.17 million", "$1.17 billion")]
    assert findings_on(right, "$1.17 billion") == [] and right.fixes == []


# A table whose scale no header states: the report's other figures say how it reads it.
SEGMENTS = (
    "| | 2022 | 2021 |\n|---|---|---|\n"
    "| Parts revenue | 61,437 | 55,902 |\n"
    "| Service revenue | 38,214 | 35,118 |\n"
    "| Operating profit | 17,866 | 15,309 |\n"
)
SEGMENT_READING = (
    "Parts revenue rose to $61.4 million from $55.9 million, and service revenue to $38.2 million. "
)


def test_a_figure_reading_its_cell_at_another_scale_than_the_rest_of_the_table_is_fixed() -> None:
    """The report reads the table in thousands three times; "$17.9 billion" reads 17,866
    in millions."""
    wrong = check(
        SEGMENT_READING + "Operating profit came to $17.9 billion.", ("segments", SEGMENTS)
    )
    right = check(
        SEGMENT_READING + "Operating profit came to $17.9 million.", ("segments", SEGMENTS)
    )

    assert fixes_on(wrong, "17.9") == [("$17.9 billion", "$17.9 million")]
    assert findings_on(right, "$17.9 million") == [] and right.fixes == []


def test_a_figure_whose_table_is_read_two_ways_is_not_rescaled() -> None:
    """One figure in thousands, one in millions: no scale the table is plainly read at."""
    body = (
        "Parts revenue rose to $61.4 million, service revenue was $38.2 billion and "
        "operating profit came to $17.9 billion."
    )
    verdict = check(body, ("segments", SEGMENTS))

    assert fixes_on(verdict, "billion") == []


def test_an_unnamed_figure_at_the_wrong_scale_of_a_table_the_report_reads_is_fixed() -> None:
    """No word of the sentence names the row, but the report reads the table in thousands
    and 17,866 is the one cell the digits fit at another scale."""
    body = SEGMENT_READING + "The segment's earnings then reached $17.9 billion."
    verdict = check(body, ("segments", SEGMENTS))

    assert fixes_on(verdict, "17.9") == [("$17.9 billion", "$17.9 million")]


def test_an_unnamed_figure_two_cells_could_explain_is_not_rescaled() -> None:
    table = SEGMENTS + "| Other income | 17,911 | 12,004 |\n"
    body = SEGMENT_READING + "The segment's earnings then reached $17.9 billion."
    verdict = check(body, ("segments", table))

    assert fixes_on(verdict, "17.9") == []


WARRANTY = (
    "(in thousands)\n\n| | 2020 | 2019 |\n|---|---|---|\n"
    "| Accrued warranty costs | 5,020 | 4,310 |\n| Customer deposits | 2,115 | 2,460 |\n"
)


def test_the_end_of_a_change_quoted_from_the_prior_period_is_fixed_to_the_latest() -> None:
    """A change goes to where it ended: with no other period named, the row's 2020 cell."""
    wrong = check("Accrued warranty costs climbed to $4,310 thousand.", ("note", WARRANTY))
    right = check("Accrued warranty costs climbed to $5,020 thousand.", ("note", WARRANTY))

    assert fixes_on(wrong, "4,310") == [("$4,310 thousand", "$5,020 thousand")]
    assert findings_on(right, "$5,020 thousand") == [] and right.fixes == []


def test_the_end_of_a_change_in_a_period_its_paragraph_names_is_left_alone() -> None:
    """The paragraph speaks of 2019: the change to 4,310 is that year's."""
    body = (
        "## A look back at 2019\n\n"
        "That year was busy. Accrued warranty costs climbed to $4,310 thousand."
    )
    verdict = check(body, ("note", WARRANTY))

    assert findings_on(verdict, "$4,310 thousand") == [] and verdict.fixes == []


def test_a_figure_compared_with_the_year_before_is_the_latest_periods() -> None:
    """ "..., $710 thousand more than the year before": the figure is the later side."""
    body = "Accrued warranty costs stood at ${}, $710 thousand more than the year before."
    wrong = check(body.format("4,310 thousand"), ("note", WARRANTY))
    right = check(body.format("5,020 thousand"), ("note", WARRANTY))

    assert fixes_on(wrong, "4,310") == [("$4,310 thousand", "$5,020 thousand")]
    assert right.fixes == []


def test_a_figure_its_own_words_date_to_the_year_before_is_left_alone() -> None:
    """ "posted a year earlier" dates the figure itself: it is the prior year's, rightly."""
    body = "Accrued warranty costs were well above the $4,310 thousand posted a year earlier."
    verdict = check(body, ("note", WARRANTY))

    assert verdict.fixes == []


# A filing's text layout: the years head right-aligned columns.
LAYOUT = (
    "                                  Years Ended June 30,\n"
    "                              2021        2020        2019\n"
    "Freight costs               $3,412      $2,877      $2,540\n"
    "Packaging                      918         864         802\n"
)


def test_a_layout_columns_year_is_read_under_its_header() -> None:
    """2,877 stands under 2020: a change that ends there, with no year named, ends in 2021."""
    wrong = check("Freight costs kept rising, to $2,877 thousand.", ("filing", LAYOUT))
    right = check("Freight costs kept rising, to $3,412 thousand.", ("filing", LAYOUT))

    assert fixes_on(wrong, "2,877") == [("$2,877 thousand", "$3,412 thousand")]
    assert findings_on(right, "$3,412 thousand") == []


def test_a_layout_figure_whose_sentence_names_its_year_is_left_alone() -> None:
    verdict = check("In 2020 freight costs rose to $2,877 thousand.", ("filing", LAYOUT))

    assert findings_on(verdict, "$2,877 thousand") == [] and verdict.fixes == []


# Columns out of line with their header: the row's values are read in the header's order.
SKEWED = (
    "(in thousands)        As of June 30, 2021As of June 30, 2020\n"
    "Freight costs                 $3,412          $2,877\n"
    "Packaging                        918.5           864.2\n"
)


def test_a_figure_in_a_report_tables_year_column_is_of_that_year() -> None:
    """The report's own table heads its column "End of 2021": 2,877 there is 2020's."""
    table = (
        "| Item | End of 2021 | Change vs. 2020 |\n|---|---|---|\n| Freight costs | {} | +535 |\n"
    )
    wrong = check(table.format("2,877"), ("filing", SKEWED))
    right = check(table.format("3,412"), ("filing", SKEWED))

    assert fixes_on(wrong, "2,877") == [("2,877", "3,412")]
    assert right.fixes == []


def test_a_march_year_end_table_orders_its_periods_for_a_changes_end() -> None:
    """Columns dated 31 March are named either fiscal year, but their order is sure."""
    table = (
        "| | 31 March 2022 | 31 March 2021 |\n|---|---|---|\n"
        "| Goodwill, Europe | 512.4 | 548.9 |\n| Goodwill, Asia | 120.7 | 118.2 |\n"
    )
    body = "**Europe:** goodwill of ${} million, down 6.6% year on year."
    wrong = check(body.format("548.9"), ("note", table))
    right = check(body.format("512.4"), ("note", table))

    assert fixes_on(wrong, "548.9") == [("$548.9 million", "$512.4 million")]
    assert right.fixes == []


def test_a_derived_figure_under_the_wrong_scale_word_is_fixed_to_the_right_one() -> None:
    """(61,437 + 55,902) / 2 = 58,669.5 thousand, about $58.7 million, not billion."""
    body = "Averaged across the two years, parts revenue came to about ${}."
    wrong = check(body.format("58.7 billion"), ("segments", "(in thousands)\n\n" + SEGMENTS))
    right = check(body.format("58.7 million"), ("segments", "(in thousands)\n\n" + SEGMENTS))

    assert fixes_on(wrong, "58.7") == [("$58.7 billion", "$58.7 million")]
    assert findings_on(right, "$58.7 million") == [] and right.fixes == []


PENSION = (
    "(in thousands)\n\n| | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
    "| Service cost | 812 | 790 | 745 |\n"
    "| Curtailment gain on the plan freeze | - | (1,236) | - |\n"
    "| Net periodic pension cost | 2,837 | 1,653 | 2,185 |\n"
)


def test_a_swapped_cell_its_sentence_names_is_fixed_though_a_reading_is_a_candidate() -> None:
    """Words of a sum make the figure a result; the nearest reading takes numbers from
    another paragraph (a candidate, not the writer's). Its digits are the one cell the
    sentence names with two swapped: a misquote, fixed to that cell."""
    body = (
        "Net periodic pension cost rose to $2,837 thousand in 2021 from $1,653 thousand, "
        "after $2,185 thousand in 2019; service cost was $812 thousand.\n\n"
        "- **Why the jump looks so big:** 2020 included a one-time ${} thousand curtailment "
        "gain on the plan freeze. Add that back and 2020's cost would have been higher."
    )
    wrong = check(body.format("1,263"), ("pension_note", PENSION))
    right = check(body.format("1,236"), ("pension_note", PENSION))

    assert fixes_on(wrong, "1,263") == [("$1,263 thousand", "$1,236 thousand")]
    assert findings_on(right, "$1,236 thousand") == [] and right.fixes == []


# ------------------------------------------------------------------ stable verdicts


def test_an_unchanged_sentence_keeps_its_verdict_when_another_is_fixed() -> None:
    body = (
        "Net sales grew to $288.0 million from $251.0 million, up 14.7%.\n\n"
        "Net income rose to $36.0 million from $30.0 million, an increase of 25.0%."
    )
    first = check(body, ("annual_report", SALES))
    (fix,) = [fix for fix in first.fixes if "25.0%" in fix.find]
    revised = apply_fixes(body, [FixToApply(key=1, find=fix.find, replace=fix.replace)]).body
    second = check(revised, ("annual_report", SALES))

    kept = ("$288.0 million", "$251.0 million", "14.7%", "$36.0 million", "$30.0 million")
    for text in kept:
        assert status(second, text) == status(first, text), text
    assert not [f for f in second.findings if f.check == "claims_supported"]


# ------------------------------------------------------------------ a reviewer's edit


def test_an_edit_is_judged_by_the_engines_rule_in_the_edited_report() -> None:
    body = "Net income rose to $36.0 million from $30.0 million, an increase of 25.0%."
    evidence = [EvidenceItem(source_ref="annual_report", content=SALES)]

    right = judge_edit(body, evidence, "increase of 25.0%", "increase of 20.0%", NUMBERS_ONLY)
    wrong = judge_edit(body, evidence, "increase of 25.0%", "increase of 22.0%", NUMBERS_ONLY)

    assert right.status == "supported"
    assert wrong.status == "flagged"


def test_a_hedged_figure_is_not_fixed_to_a_cell_its_hedge_would_cover() -> None:
    """ "about $4,377 thousand" swaps to 3,477 or 4,737, not to the 3,640 that a whole
    unit of hedge might reach: no fix from a cell that is no swap."""
    record = {"line_items": {"Lease payments": {"2024": 5120, "2025": 3640}}}
    body = "Lease payments come to about $4,377 thousand a year on average."
    verdict = check(body, ("lease_tool", record))

    assert fixes_on(verdict, "4,377") == []


def test_a_swap_of_digits_that_are_not_neighbours_is_no_misquote() -> None:
    table = "| | 2024 | 2023 |\n|---|---|---|\n| Total liabilities | 311.4 | 298.0 |\n"
    body = "Total liabilities stood at $113.4 billion."
    verdict = check(body, ("balance_sheet", table))

    assert fixes_on(verdict, "113.4") == []


# ------------------------------------------------------------------ plain readings kept


def test_a_result_of_the_only_figures_listed_before_it_gets_its_fix() -> None:
    """A small list whose only figures are the operands: no other candidate, so the
    average is fixed though it stands on its own line."""
    body = "- 2024: $310K\n- 2023: $250K\n- Average: $270K"
    fees = "Service fees were $310 thousand in 2024, $250 thousand in 2023."
    verdict = check(body, ("filing", fees))

    ((_find, replace),) = fixes_on(verdict, "$270K")
    assert "$280K" in replace


def test_a_change_of_the_line_item_its_sentence_names_gets_its_fix() -> None:
    """The result's paragraph names the line item and its two periods; a figure of
    another line item stands between: the change of the named line is the reading."""
    table = (
        "(in millions)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
        "| Licence revenue | 412.5 | 388.0 |\n| Hosting revenue | 96.0 | 90.0 |\n"
    )
    body = (
        "Licence revenue was $412.5 million in 2024, compared with $388.0 million in 2023. "
        "Hosting revenue was $96.0 million in 2024, which does not enter the calculation.\n\n"
        "Licence revenue therefore rose by $22.5 million from 2023 to 2024."
    )
    verdict = check(body, ("filing", table))

    ((_find, replace),) = fixes_on(verdict, "22.5")
    assert "$24.5 million" in replace


def test_a_gap_between_two_lines_is_not_fixed_with_one_lines_change_of_other_years() -> None:
    """The sentence names 2021 and 2023; the only reading found is one line's change
    over 2021 to 2022, stated in another paragraph: a candidate, not a fix."""
    body = (
        "The discount rate went from 4.6% in 2021 to 3.4% in 2022 and held in 2023.\n\n"
        "The spread between the expected return and the discount rate narrowed from "
        "1.3 points in 2021 to 0.9 points in 2023."
    )
    table = (
        "| | 2023 | 2022 | 2021 |\n|---|---|---|---|\n"
        "| Discount rate | 3.4% | 3.4% | 4.6% |\n| Expected return | 4.3% | 4.5% | 5.9% |\n"
    )
    verdict = check(body, ("plan_note", table))

    assert fixes_on(verdict, "1.3 points") == []
    assert fixes_on(verdict, "0.9 points") == []


# ------------------------------------------------------------------ a period its words name

NET_SALES_YEARS = (
    "(in millions)\n\n| | Fiscal 2024 | Fiscal 2023 | Fiscal 2022 |\n|---|---|---|---|\n"
    "| Net sales | 1,204.6 | 1,118.2 | 997.4 |\n"
)


def test_a_figure_of_another_year_than_its_words_name_is_fixed_to_that_years_cell() -> None:
    body = "Net sales: $1,204.6 million for fiscal 2024, versus $997.4 million for fiscal 2023."
    verdict = check(body, ("selected_data", NET_SALES_YEARS))

    ((_find, replace),) = fixes_on(verdict, "997.4")
    assert "$1118.2 million" in replace.replace(",", "")


def test_a_figure_whose_words_name_its_own_year_is_left_alone() -> None:
    body = "Net sales: $1,204.6 million for fiscal 2024, versus $1,118.2 million for fiscal 2023."
    verdict = check(body, ("selected_data", NET_SALES_YEARS))

    assert verdict.fixes == []
    assert not [f for f in verdict.findings if f.check == "claims_supported"]


def test_a_year_after_a_date_is_not_read_as_the_figures_period() -> None:
    """ "as of June 30, 2023" is a date, not "for fiscal 2023": no period is read."""
    body = "Net sales were $997.4 million as of June 30, 2023 on the trailing basis."
    verdict = check(body, ("selected_data", NET_SALES_YEARS))

    assert fixes_on(verdict, "997.4") == []


def test_a_year_the_figure_comes_before_is_not_its_period() -> None:
    """ "bottoming at $997.4 million before the fiscal 2024 rebound": the words put the
    year after the figure's time, so it dates the rebound, not the figure (2022's)."""
    body = "Net sales bottomed at $997.4 million before the fiscal 2024 rebound."
    verdict = check(body, ("selected_data", NET_SALES_YEARS))

    assert fixes_on(verdict, "997.4") == []
    assert not [f for f in verdict.findings if f.check == "claims_supported"]


# ------------------------------------------------------------------ digits that slipped


def test_a_result_with_two_neighbouring_digits_swapped_is_fixed_by_its_derivation() -> None:
    """ "up 14.7%" is no derivation; 17.4% is (704.5 / 600.0 - 1), from the two figures
    stated beside it."""
    table = "(in millions)\n\n| | 2024 | 2023 |\n|---|---|---|\n| Fee income | 704.5 | 600.0 |\n"
    body = "Fee income grew to $704.5 million from $600.0 million, up 14.7% on the year."
    verdict = check(body, ("income_table", table))

    ((_find, replace),) = fixes_on(verdict, "14.7%")
    assert "17.4%" in replace


def test_a_share_shown_without_the_hundredfold_is_fixed_to_the_percentage() -> None:
    table = (
        "| | 2024 |\n|---|---|\n| Current obligations | 3,423 |\n| Total obligations | 7,478 |\n"
    )
    body = (
        "Current obligations of $3,423 thousand make up 0.458% of total obligations "
        "of $7,478 thousand."
    )
    verdict = check(body, ("obligations", table))

    ((_find, replace),) = fixes_on(verdict, "0.458%")
    assert "45.8%" in replace


PROFIT = {
    "net_income_2023_millions": 100,
    "net_income_2024_millions": 120,
    "effective_tax_rate_percent": 22.0,
}


def test_a_result_is_not_passed_by_a_cell_about_something_else() -> None:
    """ "up 22.0%" from 100 to 120 is 20.0 %: the 22.0 in the evidence is a tax rate."""
    wrong = "Net income rose to $120 million in 2024 from $100 million in 2023, up 22.0%."
    right = wrong.replace("22.0%", "20.0%")

    assert findings_on(check(wrong, ("filing", PROFIT)), "22.0%") == ["close_but_wrong"]
    assert findings_on(check(right, ("filing", PROFIT)), "20.0%") == []
    edited = judge_edit(
        right, [EvidenceItem(source_ref="filing", content=PROFIT)], "20.0%", "22.0%", NUMBERS_ONLY
    )
    assert edited.status == "flagged"


CONTRACTS = (
    "| June 30, |  |  |\n|---|---|---|\n|  | 2021 | 2020 |\n| (In thousands) |  |  |\n"
    "| Customer deposits | $52,310 | $47,020 |\n| Other | 2,101 | 1,877 |\n"
    "| Total contract liabilities | 54,411 | 48,897 |\n| Unbilled receivables | 12,260 | 9,940 |\n"
    "| Net contract liabilities | $42,151 | $38,957 |\n"
)


def test_a_change_taken_over_the_level_it_ended_at_is_fixed_to_the_start() -> None:
    """(42,151 - 38,957) / 38,957 = 8.2 %; the 3.2 over the June 2021 level reads 7.6 %.
    The change is found by the closed search only once the average after it is derived."""
    body = (
        "Net contract liabilities stood at $42.2 million at June year-end, up from "
        "$39.0 million a year earlier, an increase of $3.2 million, or about {}. Averaged "
        "across the two year-ends, the net balance comes to roughly $40.6 million."
    )
    wrong = check(body.format("7.6%"), ("note", CONTRACTS))
    right = check(body.format("8.2%"), ("note", CONTRACTS))

    assert fixes_on(wrong, "7.6%") == [("7.6%", "8.2%")]
    assert findings_on(right, "8.2%") == [] and right.fixes == []


# -------------------------------------------------------------- what a near value does not prove

CARRYFORWARDS = (
    "(dollars in thousands)\n\n| | Last Year of Expiry | Amount |\n|---|---|---|\n"
    "| Operating loss carryforwards: | | |\n| Onshore\u2013state | 2038 | $59,700 |\n"
    "| Offshore | 2040 or never | $512,400 |\n| Credit carryforwards: | | |\n"
    "| Onshore\u2013federal | 2031 | $41,200 |\n| Onshore\u2013state | 2028 | $3,150 |\n"
    "| Offshore | 2029 or never | $15,900 |\n"
)


def test_a_figure_said_again_at_another_scale_is_not_fixed_to_a_cell_near_it() -> None:
    # 41,200 + 3,150 + 15,900 = 60,250 thousand; "$60.3 million" says the same sum again.
    # The state losses' 59,700 lie within 1 % of it: a neighbour, not its source.
    verdict = check(
        "The credit carryforwards total $60,250 thousand, or roughly $60.3 million, across "
        "onshore-federal, onshore-state and offshore credits.",
        ("table", CARRYFORWARDS),
    )
    assert fixes_on(verdict, "$60.3 million") == []


def test_a_label_two_rows_share_names_no_cell_to_fix_to() -> None:
    # "Onshore-state" heads a row of losses and a row of credits: $59.0 million is off from
    # 59,700, but nothing says which row it restates.
    verdict = check("Onshore-state amounts reached $59.0 million.", ("table", CARRYFORWARDS))
    assert findings_on(verdict, "$59.0 million") != []
    assert fixes_on(verdict, "$59.0 million") == []


GRANTS = [
    "In March 2021, we granted 120,000 performance units with certain targets.",
    "In June 2019, we granted 150,000 performance units with financial targets.",
    "In 2023, two further grants were made under the plan.",
]


def test_a_pair_another_result_stands_between_is_not_a_far_off_results_operands() -> None:
    # 120,000 is 20.0 % smaller than 150,000: the pair is that result's. The 2023 grants'
    # 190,500 is 29 % off their sum (270,000), no slip of it: flagged, never "fixed" to it.
    verdict = check(
        "The March 2021 grant (120,000 units) was about 20.0% smaller than the 150,000 units "
        "granted in June 2019, but the two 2023 grants in May and November together came "
        "to 190,500 units.",
        *((f"p{number}", text) for number, text in enumerate(GRANTS, start=1)),
    )
    assert findings_on(verdict, "190,500") != []
    assert fixes_on(verdict, "190,500") == []


def test_a_swapped_figure_beside_its_rows_other_period_is_fixed_to_that_row() -> None:
    """No word of the sentence names the row, but it restates the row's 2019 cell: the
    figure with two digits swapped is that row's other cell (5,020 written 5,002)."""
    body = "It climbed to $5,002 thousand from $4,310 thousand."
    verdict = check(body, ("notes", WARRANTY))

    assert fixes_on(verdict, "5,002") == [("$5,002 thousand", "$5,020 thousand")]


def test_a_swapped_figure_beside_a_figure_of_another_row_is_not_fixed() -> None:
    body = "It climbed to $5,002 thousand from $2,460 thousand."
    verdict = check(body, ("notes", WARRANTY))

    assert fixes_on(verdict, "5,002") == []
