"""How the closed derived search orders its candidates and weighs a hit (issue 25): the
pairs that are plainly the writer's come first, each tier's pairs whose operation fits how
their cells lie come before the rest, and the chance of a coincidence counts the windows
the candidates cover, so a crowd of unrelated pairs no longer drowns the writer's own
calculation. The figures and sentences are ours."""

from __future__ import annotations

import json
from dataclasses import replace

from tests.engine.reports import NUMBERS_ONLY, cell, flagged
from validation.engine.checks.numeric._derive_accept import _covered
from validation.engine.checks.numeric._derive_candidates import _tier, candidates
from validation.engine.checks.numeric._derive_pool import BESIDE, NAMED, NEAR, STATED, Operand
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict


def stated(value: float, row: int = -1, column: int = -1) -> Operand:
    """A number the report states, in that evidence cell (or none)."""
    return replace(cell(value, STATED, row, column), reported=True)


# ------------------------------------------------------------------ tiers


def test_a_stated_number_and_another_period_of_its_line_come_before_two_near_cells() -> None:
    revenue_now = stated(540.0, row=0, column=0)
    revenue_before = cell(480.0, NEAR, 0, 1)
    other_line = cell(75.0, NEAR, 3, 2)

    assert _tier(revenue_now, revenue_before) == 1
    assert _tier(revenue_before, other_line) == 2


def test_two_periods_of_a_named_line_come_before_a_named_cell_and_an_unrelated_one() -> None:
    named_now = cell(880.0, NAMED, 5, 0)
    named_before = cell(640.0, NAMED, 5, 1)
    unrelated = cell(92.0, BESIDE, 9, 2)

    assert _tier(named_now, named_before) < _tier(named_now, unrelated)


def test_a_near_cell_and_its_periods_total_come_before_a_number_stated_elsewhere() -> None:
    segment = cell(361.0, NEAR, 2, 1)
    period_total = cell(1612.0, NAMED, 1, 1)
    elsewhere = Operand(
        value=40.0,
        text="$40 million",
        percent=False,
        digits=1.0,
        strength=BESIDE,
        row=-1,
        column=-1,
        reported=True,
    )

    assert _tier(segment, period_total) < _tier(segment, elsewhere)


# ------------------------------------------------------------------ operations that fit


def _tiers_of(operands: list[Operand], operation: str, value: float) -> list[float]:
    return [
        tier
        for tier, found, _, name, _ in candidates(operands, "percent", [], 0)
        if name == operation and abs(found - value) < 0.01
    ]


def test_a_share_of_two_line_items_of_one_period_fits_and_their_change_does_not() -> None:
    part = cell(300.0, NAMED, 1, 0)
    whole = cell(1200.0, NAMED, 4, 0)

    share = _tiers_of([part, whole], "share", 25.0)
    change = _tiers_of([part, whole], "percent change", 300.0)

    assert share and share[0] == int(share[0])
    assert change and change[0] == int(change[0]) + 0.5


def test_a_stated_change_fits_only_over_a_level_that_is_an_end_of_it() -> None:
    change = Operand(
        value=20.0,
        text="$20 million",
        percent=False,
        digits=1.0,
        strength=STATED,
        row=-1,
        column=-1,
        reported=True,
        change=True,
    )
    before = cell(125.0, NAMED, 6, 1)
    after = cell(105.0, NAMED, 6, 0)
    unrelated = cell(250.0, NAMED, 8, 1)

    over_its_end = _tiers_of([change, before, after], "share", 16.0)
    over_another_level = _tiers_of([change, unrelated, after], "share", 8.0)

    assert over_its_end and over_its_end[0] == int(over_its_end[0])
    assert over_another_level and over_another_level[0] != int(over_another_level[0])


def test_an_average_is_of_one_line_over_periods_not_of_two_lines_of_one_period() -> None:
    line_now = cell(300.0, NAMED, 1, 0)
    line_before = cell(260.0, NAMED, 1, 1)
    other_line_now = cell(500.0, NAMED, 2, 0)

    def average_tiers(pair: list[Operand], value: float) -> list[float]:
        return [
            tier
            for tier, found, _, name, _ in candidates(pair, "amount", [], 0)
            if name == "average" and abs(found - value) < 0.01
        ]

    over_periods = average_tiers([line_now, line_before], 280.0)
    across_lines = average_tiers([line_now, other_line_now], 400.0)

    assert over_periods and over_periods[0] == int(over_periods[0])
    assert across_lines and across_lines[0] != int(across_lines[0])


def test_a_change_between_two_periods_of_one_line_fits() -> None:
    later = cell(1150.0, NAMED, 2, 0)
    earlier = cell(1000.0, NAMED, 2, 1)

    change = _tiers_of([later, earlier], "percent change", 15.0)

    assert change and change[0] == int(change[0])


def test_two_cells_of_no_year_the_sentence_names_fit_less() -> None:
    this_year = cell(6912.0, NAMED, 4, 0, year=2020)
    same_period_line = cell(34157.0, NAMED, 5, 0, year=2020)
    pair = [this_year, same_period_line]

    share = [
        tier
        for tier, _, _, name, _ in candidates(pair, "percent", [], 0, years=frozenset({2019}))
        if name == "share"
    ]

    assert share and all(tier != int(tier) for tier in share)


# ------------------------------------------------------------------ the chance counts windows


def test_one_value_reached_several_ways_covers_one_window() -> None:
    width = 0.1
    same_value = [[0.2209, 0.2211, 0.2214, 0.2215]]
    apart = [[0.22, 0.45, 0.70, 0.95]]

    assert _covered(same_value, [(0.2, width)]) < 1.1
    assert _covered(apart, [(0.2, width)]) > 3.9


# ------------------------------------------------------------------ end to end


def check(body: str, *evidence: tuple[str, str]) -> Verdict:
    items = [{"source_ref": ref, "content": content} for ref, content in evidence]
    return validate(Bundle(query="How did it go?", body=body, evidence=items), NUMBERS_ONLY)


HEDGES = (
    "financials_tool",
    json.dumps(
        {
            "unit": "thousands",
            "line_items": {
                "Interest rate swaps": {"2020": 38417, "2019": 7322},
                "Foreign currency forwards": {"2020": 1688, "2019": 1305},
                "Commodity contracts": {"2020": 964, "2019": 2140},
                "Total derivative liabilities": {"2020": 41069, "2019": 10767},
                "Current portion": {"2020": 6912, "2019": 1873},
                "Non-current portion": {"2020": 34157, "2019": 8894},
            },
        }
    ),
)
OPENING = (
    "Derivative liabilities climbed to $41.1 million at year-end 2020 from $10.8 million. "
    "The current portion was $6,912 thousand, "
)


def test_a_multiple_of_the_year_the_sentence_names_passes() -> None:
    verdict = check(OPENING + "3.7 times the 2019 figure.", HEDGES)

    assert flagged(verdict) == []


def test_multiples_no_cell_of_the_named_year_gives_are_flagged() -> None:
    for written in ("5.3", "4.3"):
        verdict = check(OPENING + f"{written} times the 2019 figure.", HEDGES)

        assert written in flagged(verdict)


GRANTS = (
    "table",
    "| | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"
    "| Options granted (thousands) | 1,240 | 1,315 | 1,402 |\n"
    "| Weighted-average grant-date fair value | $42.10 | $40.83 | $22.40 |\n"
    "| Expected volatility | 31.5% | 29.8% | 27.1% |\n"
    "| Risk-free rate | 1.9% | 0.6% | 2.4% |\n"
    "| Expected term (years) | 6.1 | 6.0 | 5.8 |",
)
FAIR_VALUE = (
    "The weighted-average grant-date fair value edged up to $42.10, about {} above the prior "
    "year, and now stands at roughly 1.9 times the $22.40 granted in 2019."
)


def test_a_figure_that_another_clauses_result_takes_is_not_another_periods_figure() -> None:
    verdict = check(FAIR_VALUE.format("3.1%"), GRANTS)

    assert flagged(verdict) == []
    assert all(fix.find != "$22.40" for fix in verdict.fixes)


def test_a_change_over_the_prior_year_that_no_cell_gives_is_still_flagged() -> None:
    verdict = check(FAIR_VALUE.format("5.1%"), GRANTS)

    assert "5.1%" in flagged(verdict)
    assert all(fix.find != "$22.40" for fix in verdict.fixes)


# ------------------------------------------------------------------ a row named by its acronym


EARNINGS = (
    "table",
    "| € million | 2020/2021 | 2021/2022 |\n|---|---|---|\n"
    "| Earnings before interest and taxes EBIT | 655 | 761 |\n"
    "| Net financial result | (121) | (98) |\n"
    "| Earnings before taxes EBT | 534 | 663 |\n"
    "| Income taxes | (187) | (262) |\n"
    "| Profit for the period | 347 | 401 |\n"
    "| Employees (thousands) | 142 | 139 |",
)
TAXES = (
    "Profit for the period reached €401 million in 2021/2022 as financing costs eased. "
    "Income taxes rose about 40.1%, an implied rate of roughly {} of EBT."
)


def test_a_word_in_capitals_of_a_rows_label_names_that_row() -> None:
    verdict = check(TAXES.format("39.5%"), EARNINGS)

    assert flagged(verdict) == []


def test_a_rate_that_the_named_row_does_not_give_is_flagged() -> None:
    verdict = check(TAXES.format("41.5%"), EARNINGS)

    assert "41.5%" in flagged(verdict)


# ------------------------------------------------------------------ a period's line items summed


PORTFOLIO = (
    "table",
    "(in thousands)\n\n| | Amortized cost | Fair value |\n|---|---|---|\n"
    "| Money market funds | 58,210 | 58,210 |\n| Municipal bonds | 21,480 | 21,502 |\n"
    "| Corporate notes | 96,315 | 96,118 |\n| Mortgage-backed securities | 41,902 | 41,377 |\n"
    "| Treasury bills | 33,640 | 33,655 |\n| Total investments | 251,547 | 250,862 |",
)
HOLDINGS = (
    "The portfolio holds $58.2 million in money market funds. Corporate notes, "
    "mortgage-backed securities and treasury bills together carry a fair value of {}."
)


def test_the_line_items_a_sentence_names_summed_in_one_column() -> None:
    verdict = check(HOLDINGS.format("$171.2 million"), PORTFOLIO)

    assert flagged(verdict) == []


def test_a_total_the_named_line_items_do_not_make_is_flagged() -> None:
    verdict = check(HOLDINGS.format("$177.2 million"), PORTFOLIO)

    assert "$177.2 million" in flagged(verdict)
