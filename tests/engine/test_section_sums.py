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
