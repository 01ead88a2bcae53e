"""A move and the level it reached, written "fell $X to $Y": X is how much the line moved
(the difference of its row's two periods), Y the level; neither is one end of a range.
And a level whose digits swap two of its named row's cell is a misquote of that cell,
not a difference assembled from figures of other lines."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes, flagged

SHIPMENTS = """\
| (in millions) | 2024 | 2023 | 2022 |
|---|---|---|---|
| Rail freight | $ 4,318 | $ 4,408 | $ 4,122 |
| Trucking | 2,674 | 2,590 | 2,311 |
| Air freight | 3,267 | 3,120 | 2,987 |
| Total logistics | 10,259 | 10,118 | 9,420 |
"""


def test_the_move_before_a_level_is_checked_as_a_difference() -> None:
    # 4,408 - 4,318 = 90 and 10,259 - 10,118 = 141: both read as what the lines moved.
    body = (
        "Rail freight dropped $90 million to $4,318 million in 2024, while total logistics "
        "revenue rose $141 million to $10,259 million."
    )
    assert flagged(check(body, ("table", SHIPMENTS))) == []


def test_a_miscomputed_move_is_flagged() -> None:
    body = "Rail freight dropped $96 million to $4,318 million in 2024."
    assert "$96 million" in flagged(check(body, ("table", SHIPMENTS)))


def test_a_level_with_two_digits_swapped_is_a_misquote_of_its_named_cell() -> None:
    # Trucking reads 2,674 (2,674 / 2,590 is up 3.2 %). "2,764" is also 2,674 plus rail's
    # move of 90: trucking's cell and another line's change, not the writer's sum.
    body = (
        "Rail freight fell $90 million to $4,318 million in 2024. Trucking, by contrast, "
        "grew about 3.2% to $2,764 million."
    )
    verdict = check(body, ("table", SHIPMENTS))
    assert findings_on(verdict, "$2,764 million") == ["close_but_wrong"]
    assert fixes(verdict)["$2,764 million"] == "$2,674 million"


OPERATING = """\
$ million                               2024        2023
Net revenue                            812.4       760.2
Distribution and warehousing costs     301.9       288.6
Administrative expenses                 97.3        99.0
"""


def test_a_sentence_under_a_heading_may_name_its_line_by_the_heading() -> None:
    # 301.9 - 288.6 = 13.3: "they" are the costs the heading names.
    body = (
        "### Did distribution and warehousing costs outgrow revenue?\n\n"
        "No. They rose $13.3 million while net revenue climbed $52.2 million.\n"
    )
    assert flagged(check(body, ("filing_table", OPERATING))) == []
    wrong = body.replace("$13.3 million", "$15.3 million")
    assert "$15.3 million" in flagged(check(wrong, ("filing_table", OPERATING)))


HEDGES = """\
| (in millions) | 2024 | 2023 | 2022 |
|---|---|---|---|
| Hedge gains recognized | $ 172 | $ 236 | $ 341 |
| Hedge gains reclassified | 298 | 164 | 512 |
"""


def test_a_change_base_stays_when_a_second_result_takes_an_older_period() -> None:
    # 172 / 236 - 1 = -27.1 % and 172 / 341 = 50.4 %: $236 million is the change's base,
    # not a slip for the 2022 cell the second result names.
    body = (
        "Hedge gains recognized were $172 million in 2024, down about 27.1% from $236 "
        "million, and only about 50.4% of the 2022 level."
    )
    assert flagged(check(body, ("table", HEDGES))) == []


LOSSES = {
    "table_title": "Year Ended December 31,",
    "line_items": {
        "Realized losses": {"2024 $": -4180, "2023 $": -5390, "2022 $": -15220},
        "Unrealized (losses) gains": {"2024 $": -9020, "2023 $": 14310, "2022 $": 60110},
    },
}


def test_a_figure_dated_by_its_own_words_is_no_other_periods_slip() -> None:
    # (5,390 - 4,180) / 5,390 = 22.4 %: the change takes 2023's cell, and $15,220 is the
    # 2022 cell its own words name, not a slip for 2023's 5,390.
    body = (
        "Realized losses came in at $4,180 in 2024, about 22.4% lower than in 2023, and "
        "far below the $15,220 booked in 2022."
    )
    verdict = check(body, ("financials_tool", LOSSES))
    assert flagged(verdict) == []
    assert fixes(verdict) == {}
