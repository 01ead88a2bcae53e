"""A table's section summed where the table writes no total for it: the lines under a
heading row with no figures ("| Tax credit carryforwards: | | |"), added up by a writer who
names the section, and taken further (a line's share of that sum)."""

from __future__ import annotations

from tests.engine.reports import check, flagged

CARRYFORWARDS = """\
| (dollars in thousands) | Expires | Amount |
|---|---|---|
| Net operating loss carryforwards:(1) |  |  |
| Federal | 2037 | $41,870 |
| State | 2031 | $12,204 |
| Tax credit carryforwards:(1) |  |  |
| Research credits | 2035 | $8,316 |
| Foreign tax credits | 2029 | $2,957 |
| Other credits(2) | indefinite | $1,140 |
"""


def test_the_lines_of_a_named_section_add_up() -> None:
    # 8,316 + 2,957 + 1,140 = 12,413; 8,316 / 12,413 = 67.0 %.
    body = (
        "### What do the tax credit carryforwards come to?\n\n"
        "$12,413 thousand across research, foreign and other credits. Research credits "
        "alone are about 67.0% of that."
    )
    assert flagged(check(body, ("table", CARRYFORWARDS))) == []


def test_a_wrong_sum_of_a_section_is_flagged() -> None:
    body = (
        "### What do the tax credit carryforwards come to?\n\n"
        "$12,143 thousand across research, foreign and other credits."
    )
    assert "$12,143 thousand" in flagged(check(body, ("table", CARRYFORWARDS)))


WITH_TOTAL = CARRYFORWARDS + "| Total tax credit carryforwards |  | $12,413 |\n"


def test_a_section_with_its_own_total_is_read_from_that_line() -> None:
    body = "Tax credit carryforwards total $12,413 thousand."
    assert flagged(check(body, ("table", WITH_TOTAL))) == []


NEAR_THE_SUM = CARRYFORWARDS.replace(
    "| State | 2031 | $12,204 |", "| Research losses | 2031 | $12,170 |"
)


def test_a_sum_restated_at_another_scale_is_no_slip_for_a_cell_near_it() -> None:
    # $12.4 million is within 2 % of the research losses' 12,170: but it restates the sum
    # its own sentence derives, not that cell.
    body = (
        "### What do the tax credit carryforwards come to?\n\n"
        "$12,413 thousand, or roughly $12.4 million, across research, foreign and other "
        "credits."
    )
    assert flagged(check(body, ("table", NEAR_THE_SUM))) == []


SCHEDULE = """\
|  | Operating leases | Finance leases |
|---|---|---|
|  | (Dollars in millions) |  |
| 2025 | $512 | 64 |
| 2026 | 430 | 41 |
| 2027 | 377 | 33 |
| 2028 | 301 | 30 |
| Thereafter | 905 | 118 |
| Total lease payments | 2,525 | 286 |
"""


def test_a_schedule_with_a_line_per_year_sums_over_the_span_named() -> None:
    # 64 + 41 + 33 + 30 = 168.
    body = "Finance lease payments due from 2025 through 2028 sum to $168 million."
    assert flagged(check(body, ("table", SCHEDULE))) == []
    wrong = body.replace("$168 million", "$186 million")
    assert "$186 million" in flagged(check(wrong, ("table", SCHEDULE)))


OTHER_ASSETS = {
    "table_title": "December 31,",
    "line_items": {
        "Indemnification receivable": {"2024": 712, "2023": 2284},
        "Due from affiliates": {"2024": 203, "2023": 176},
        "Prepaid expenses": {"2024": 149, "2023": 138},
        "Other": {"2024": 391, "2023": 467},
    },
}


def test_a_table_with_no_total_line_is_summed_where_the_sentence_says_total() -> None:
    # 712 + 203 + 149 + 391 = 1,455 and 2,284 + 176 + 138 + 467 = 3,065.
    body = (
        "Total: the four line items sum to $1,455 thousand at December 31, 2024, down from "
        "$3,065 thousand a year earlier."
    )
    assert flagged(check(body, ("financials_tool", OTHER_ASSETS))) == []
    wrong = body.replace("$1,455 thousand", "$1,545 thousand")
    assert "$1,545 thousand" in flagged(check(wrong, ("financials_tool", OTHER_ASSETS)))


GROSS = """\
|  | 2024 | 2023 |
|---|---|---|
| Deferred tax assets |  |  |
| Pension costs | $1,204 | 1,150 |
| Loss carryforwards | 2,950 | 3,310 |
| Other | 612 | 587 |
| Gross deferred tax assets | 4,766 | 5,047 |
| Less valuation allowance | (1,288) | (1,302) |
"""


def test_a_section_whose_total_is_written_under_another_name_is_not_summed_again() -> None:
    # "Gross deferred tax assets" is the three lines' sum: offering the sum again would only
    # crowd the search. The change of one line (612 / 587 - 1 = 4.3 %) is still found.
    body = "Other deferred tax assets rose to $612 million, up about 4.3% on 2023."
    assert flagged(check(body, ("table", GROSS))) == []
