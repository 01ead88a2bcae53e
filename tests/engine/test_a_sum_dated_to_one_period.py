"""A figure of one period is no total of one line over several.

"Add the two lines together and operating costs consumed 206% of revenue in 2019, against
158% a year earlier": 158% is R&D and SG&A of 2018 (79 + 79), not R&D of 2019 and of 2018
added up (120 + 79 = 199), however close those two stand in the report. A sum of one line
item's figures, for a result the words right after it date to one period, is not the
writer's arithmetic: flagged at most, never "fixed" to it. A year written before the result
dates an operand, not the result ("adding $2,338K (December 31, 2019) and $1,975K (December
31, 2018) gives $4,436K" is still the sum of the two, and fixed when wrong).
"""

from __future__ import annotations

from pathlib import Path

from tests.engine.reports import check, check_record, fixes

HELD_OUT = Path(__file__).resolve().parents[2] / "bench/data/notes-extra18.jsonl"
TABLE = (
    "| (in thousands) | December 31, 2019 | December 31, 2018 |\n"
    "|---|---|---|\n"
    "| Deposits | $2,338 | $1,975 |\n"
    "| Right of use assets | 33,014 | — |\n"
)


def test_a_figure_a_year_earlier_is_not_fixed_to_one_lines_two_years() -> None:
    # notes-extra18 d199, a held-out writer's correct report: its 158% was "fixed" to 199%.
    verdict = check_record(HELD_OUT, "notes-extra18-d199-c")

    assert [fix.find for fix in verdict.fixes] == []


def test_a_sum_whose_operands_carry_their_dates_is_still_fixed() -> None:
    verdict = check(
        "Adding $2,338K (December 31, 2019) and $1,975K (December 31, 2018) gives $4,436K.",
        ("table", TABLE),
    )

    assert fixes(verdict) == {"$4,436K": "$4,313K"}
