"""A multiple of a line's own earlier level.

"Research and development ... rose to roughly 2.0 times its prior-year level", "accrued
expenses grew to about 2.4 times their 2018 balance": the base is the same line a period
earlier, so the multiple is one of two cells of one row, the later over the earlier. Those
few candidates are weighed among themselves, not against every ratio of the table's
cells. A column that is no period (a "Change" column) gives none.
"""

from __future__ import annotations

from tests.engine.reports import check, status

TABLE = (
    "|  | 2019 | 2018 | Change | % |\n"
    "|---|---|---|---|---|\n"
    "| Revenue | 61,330,112 | 52,405,950 | 8,924,162 | 17.0 |\n"
    "| Sales and marketing | 12,630,884 | 9,216,245 | 3,414,639 | 37.0 |\n"
    "| Research, development and engineering | 7,496,012 | 3,766,160 | 3,729,852 | 99.0 |\n"
    "| General and administrative | 8,118,446 | 6,918,211 | 1,200,235 | 17.3 |\n"
)


def test_a_multiple_of_the_lines_prior_year_level() -> None:
    verdict = check(
        "Research, development and engineering is the striking line: it rose to roughly "
        "2.0 times its prior-year level.",
        ("table", TABLE),
    )

    assert status(verdict, "2.0") == "derived"


def test_a_multiple_of_the_lines_named_years_level() -> None:
    verdict = check(
        "Sales and marketing grew to about 1.37 times its 2018 level.", ("table", TABLE)
    )

    assert status(verdict, "1.37") == "derived"


def test_a_wrong_multiple_of_its_prior_year_level_is_not_passed() -> None:
    verdict = check(
        "Research, development and engineering is the striking line: it rose to roughly "
        "2.4 times its prior-year level.",
        ("table", TABLE),
    )

    assert status(verdict, "2.4") != "derived"


SALES = {
    "table_title": "(In thousands)",
    "line_items": {
        "United States": {"2019": 300853, "2018": 288843, "2017": 508178},
        "Mexico": {"2019": 90795, "2018": 12186, "2017": 2246},
        "Other international": {"2019": 60351, "2018": 60997, "2017": 36974},
        "Total": {"2019": 530061, "2018": 529277, "2017": 666900},
    },
}


def test_a_multiple_of_levels_the_sentence_states_is_of_those_levels() -> None:
    # The sentence gives the line's 2017 level itself, wrongly (36,974 is another line's
    # 2017 figure): the multiple is of the levels it states, so it does not hold, and the
    # report is not approved on the line's own cells.
    verdict = check(
        "- **Mexico, 2017 to 2018:** sales rose by **$9,940 thousand**, from $36,974 "
        "thousand to $12,186 thousand, about 5.4 times the 2017 level.",
        ("sales_tool", SALES),
    )

    assert status(verdict, "5.4") != "derived"
    assert verdict.decision != "APPROVE"
