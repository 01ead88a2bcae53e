"""The support fixpoint's search weighs a hit by its chance of a coincidence, as the
closed search does (issue 25), and a sentence's "total", "combined" or "in all" names
a table's total row. Figures and wording are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status
from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric._operations import Outcome, Target
from validation.engine.checks.numeric._search import ACCEPT, chance


def share(value: float, slack: float = 0.0) -> Outcome:
    return Outcome(ops.SHARE, value, slack, ())


# ------------------------------------------------------------------ the estimate


def test_the_chance_grows_with_the_candidates_near_the_target() -> None:
    target = Target(41.37, 0.005, 41.37, 0.005)

    one, forty = chance(target, share(41.37), 1), chance(target, share(41.37), 40)

    assert forty == 40 * one
    assert one < ACCEPT


def test_a_coarse_result_is_a_likelier_coincidence_than_a_fine_one() -> None:
    coarse = Target(4.0, 0.5, 4.0, 0.5)
    fine = Target(4.18, 0.005, 4.18, 0.005)

    assert chance(coarse, share(4.0), 3) > ACCEPT > chance(fine, share(4.18), 3)


def test_a_hit_that_needs_its_operands_rounding_counts_the_wider_window() -> None:
    target = Target(63.0, 0.05, 63.0, 0.05)

    exact = chance(target, share(63.02), 5)
    blurred = chance(target, share(62.1, slack=1.0), 5)

    assert blurred > 10 * exact


# ------------------------------------------------------------------ end to end

PLANTS = (
    "table",
    "| | 2022 | 2021 |\n|---|---|---|\n"
    "| Plant output | 41.2 | 22.6 |\n| Staff costs | 13.9 | 12.8 |\n"
    "| Energy | 6.4 | 5.1 |\n| Freight | 3.3 | 2.9 |",
)
FIRST = (
    "Plant output reached 41.2 million units against 22.6 million a year earlier. "
    "Staff costs were $13.9 million and energy $6.4 million, with freight at $3.3 million."
)


def test_a_change_from_the_paragraph_before_is_still_derived() -> None:
    verdict = check(FIRST + "\n\nOutput therefore grew 82.3% in the year.", PLANTS)

    assert status(verdict, "82.3%") == "derived"
    assert "82.3%" not in flagged(verdict)


SALES = (
    "table",
    "| $ in thousands | 2022 | 2021 |\n|---|---|---|\n| Net sales | 18,093 | 9,474 |\n"
    "| Cost of sales | 11,265 | 6,020 |\n| Selling costs | 2,978 | 1,713 |\n"
    "| Research | 1,544 | 1,190 |",
)
ROUNDED = (
    "Net sales were $18.1 million in 2022, against $9.5 million in 2021. Cost of sales "
    "came to $11.3 million (2021: $6.0 million), selling costs to $3.0 million (2021: "
    "$1.7 million) and research to $1.5 million."
)


def test_a_slip_that_only_rounding_of_far_figures_reaches_is_not_explained() -> None:
    # 3.0 over 1.5 reaches 92.0% only if both lean as far as their rounding allows;
    # the sales figures give 90.5% (rounded) or 91.0% (exact).
    verdict = check(ROUNDED + "\n\nSales therefore rose 92.0% in the year.", SALES)

    assert status(verdict, "92.0%") != "derived"
    assert "92.0%" in flagged(verdict)


def test_the_change_of_the_rounded_figures_stated_is_derived() -> None:
    for written in ("90.5%", "91.0%"):
        verdict = check(ROUNDED + f"\n\nSales therefore rose {written} in the year.", SALES)

        assert status(verdict, written) == "derived", written
        assert flagged(verdict) == []


def test_a_named_difference_of_the_reports_own_figures_stands_however_coarse() -> None:
    verdict = check(
        "The two figures we need are $318 million and $321 million.\n\n"
        "So the difference comes to $3 million.",
        ("table", "| $ in millions | 2022 | 2021 |\n|---|---|---|\n| Deposits | 318 | 321 |"),
    )

    assert flagged(verdict) == []


# ------------------------------------------------------------------ total rows

REGIONS = (
    "regions_tool",
    {
        "table_title": "(in millions)",
        "line_items": {
            "Coastal": {"2022": 57, "2021": 49},
            "Inland": {"2022": 88, "2021": 80},
            "Northern": {"2022": 29, "2021": 31},
            "Total": {"2022": 174, "2021": 160},
        },
    },
)


def test_a_json_total_row_is_named_by_combined() -> None:
    verdict = check(
        "Coastal sales climbed to $57 million in 2022. "
        "That was roughly 32.8% of the three regions combined.",
        REGIONS,
    )

    assert status(verdict, "32.8%") == "derived"
    assert flagged(verdict) == []


def test_a_share_of_the_total_no_cell_gives_is_flagged() -> None:
    verdict = check(
        "Coastal sales climbed to $57 million in 2022. "
        "That was roughly 35.8% of the three regions combined.",
        REGIONS,
    )

    assert any("35.8" in text for text in flagged(verdict))


CHARGES = (
    "filing_table",
    "                              Years Ended December 31,\n"
    "                                 2022        2021\n"
    "                                 (in thousands)\n"
    "Severance                      $2,410      $3,905\n"
    "Facility exits                  1,877       1,204\n"
    "Other                             313         260\n"
    "                               $4,600      $5,369\n",
)


def test_an_unlabelled_line_that_sums_the_rows_above_is_the_total() -> None:
    verdict = check(
        "Facility exit costs rose to $1,877 thousand in 2022. They made up 40.8% of the total.",
        CHARGES,
    )

    assert status(verdict, "40.8%") == "derived"
    assert flagged(verdict) == []
