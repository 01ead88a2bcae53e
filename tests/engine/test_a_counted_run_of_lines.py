"""A sum of consecutive lines of a table that the writer counts: "the three notes due
2027-2028 carry $1,288.9 million in total", "the first four years add up to $866". The
lines are named by their count, not by a heading or a span of years: the search offers,
for each column, the sum of every run of that many consecutive lines (never across a
total line), and the results taken from that sum follow it."""

from __future__ import annotations

from tests.engine.reports import check, flagged

NOTES = """\
| (In millions) | 2024 | 2023 |
|---|---|---|
| Term loan due 2026 | $ 310.5 | $ 355.0 |
| 3.25% notes due March 2027 | 398.7 | 398.1 |
| 4.10% notes due October 2027 | 449.6 | 449.2 |
| 5.00% notes due June 2028 | 440.6 | 440.3 |
| 6.20% notes due 2034 | 296.8 | 296.5 |
| Revolving credit | 41.0 | 112.4 |
| Total debt | $ 1,937.2 | $ 2,051.5 |
"""


def test_a_counted_run_of_notes_adds_up() -> None:
    # 398.7 + 449.6 + 440.6 = 1,288.9; 1,288.9 / 1,937.2 = 66.5 %.
    body = (
        "The three note issues maturing in 2027 and 2028 carry $1,288.9 million in total, "
        "about 66.5% of total debt."
    )
    assert flagged(check(body, ("table", NOTES))) == []


def test_a_wrong_sum_of_a_counted_run_is_flagged() -> None:
    body = "The three note issues maturing in 2027 and 2028 carry $1,298.9 million in total."
    assert "$1,298.9 million" in flagged(check(body, ("table", NOTES)))


SCHEDULE = """\
|  | Operating | Finance |
|---|---|---|
| 2025 | $241 | $9 |
| 2026 | 228 | 9 |
| 2027 | 213 | 8 |
| 2028 | 184 | 6 |
| 2029 | 151 | 4 |
| Thereafter | 602 | 21 |
| Total payments | 1,619 | 57 |
| Less: interest | (388) | (6) |
| Lease liabilities | $1,231 | $51 |
"""


def test_the_first_years_of_a_schedule_counted_add_up() -> None:
    # 241 + 228 + 213 + 184 = 866.
    body = "The first four years of operating payments add up to $866 million."
    assert flagged(check(body, ("table", SCHEDULE))) == []


def test_a_run_never_takes_a_total_line() -> None:
    # 151 + 602 + 1,619 = 2,372: a "run" into the total line is no sum of lines.
    body = "The three final lines of operating payments add up to $2,372 million."
    assert "$2,372 million" in flagged(check(body, ("table", SCHEDULE)))


OFFICERS = """\
| Name | Age | Title |
|---|---|---|
| A. Rivera | 52 | Chief Executive Officer |
| B. Osei | 45 | Chief Financial Officer |
| C. Lund | 61 | Chief Operating Officer |
| D. Park | 39 | General Counsel |
| E. Novak | 48 | Controller |
"""


def test_every_line_of_a_small_table_counted_in_digits_adds_up() -> None:
    # 52 + 45 + 61 + 39 + 48 = 245.
    body = "Added together, the ages of the 5 officers come to 245."
    assert flagged(check(body, ("table", OFFICERS))) == []


def test_a_run_of_a_table_without_a_total_line_is_no_sum_of_its_parts() -> None:
    # 52 + 45 + 61 = 158: three of five lines of a table with no total line are not
    # offered as a run (its lines need not be parts of one whole).
    body = "Added together, the ages of the three senior officers come to 158."
    assert "158" in flagged(check(body, ("table", OFFICERS)))
