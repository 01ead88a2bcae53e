"""The arithmetic check: written calculations are found and recomputed with the
safe calculator."""

from decimal import Decimal

import pytest

from validation.engine.checks.numeric import extract
from validation.engine.checks.numeric._arithmetic import check, find_calculations
from validation.engine.checks.numeric._types import CheckedCalculation


def checked(body: str) -> list[CheckedCalculation]:
    mentions = extract(body)
    results = [check(calculation, mentions) for calculation in find_calculations(body, mentions)]
    return [result for result in results if result is not None]


def one(body: str) -> CheckedCalculation:
    results = checked(body)
    assert len(results) == 1, [result.calculation.expression for result in results]
    return results[0]


@pytest.mark.parametrize(
    ("body", "expression"),
    [
        ("a - b: 15.5 - 0.7 = 14.8", "15.5 - 0.7"),
        ("Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B", "15.5 - 0.7"),
        ("EPS surprise: (0.50 - 0.45) / 0.45 * 100 = 11.11%", "(0.50 - 0.45) / 0.45 * 100"),
        ("Total: 10,899 + 9,976 = 20,875 contracts", "10899 + 9976"),
        ("Ratio 190.68 / 6.5 = 29.3x", "190.68 / 6.5"),
        ("Cost 3 \u00d7 4 = 12 dollars", "3 * 4"),
        ("Cost 3 x 4 = 12 dollars", "3 * 4"),
        ("Net $15.5B \u2212 $0.7B = $14.8B", "15.5 - 0.7"),
        ("Owner earnings = OCF - CapEx = $15.5B - $0.7B = $14.8B", "15.5 - 0.7"),
        ("Total volume 20,875 = 10,899 + 9,976.", "10899 + 9976"),
        (
            "- **EPS surprise:** (0.50 - 0.45) / 0.45 * 100 = 11.11%",
            "(0.50 - 0.45) / 0.45 * 100",
        ),
        (
            "At $134.22, the margin of safety is (152.40 - 134.22) / 152.40 * 100 = 11.93%",
            "(152.40 - 134.22) / 152.40 * 100",
        ),
        (
            "Upside, i.e. ((160 - 134.22) / 134.22) * 100 = 19.21%",
            "((160 - 134.22) / 134.22) * 100",
        ),
    ],
)
def test_written_equations_are_found_and_correct(body: str, expression: str) -> None:
    result = one(body)
    assert result.calculation.kind == "equation"
    assert result.calculation.expression == expression
    assert result.correct


def test_mixed_scales_use_full_values() -> None:
    result = one("OCF 15.5B - capex 700M = 14.8B")
    assert result.calculation.expression == "15500000000 - 700000000"
    assert result.correct
    assert result.expected == Decimal("14.8")


def test_percent_operands_are_fractions() -> None:
    result = one("Tax: 10% \u00d7 $50B = $5B")
    assert result.calculation.expression == "0.1 * 50"
    assert result.correct


def test_all_percent_operands_stay_percentages() -> None:
    assert one("Margins: 12% + 3% = 15%").correct


def test_a_fraction_result_may_be_shown_as_a_percentage() -> None:
    assert one("Surprise: 0.05 / 0.45 = 11.11%").correct


def test_a_wrong_result_gives_the_recomputed_value_in_its_units() -> None:
    result = one("EPS surprise: (0.50 - 0.45) / 0.45 * 100 = 10.96%")
    assert not result.correct
    assert result.expected is not None
    assert result.expected.quantize(Decimal("0.01")) == Decimal("11.11")
    assert result.exact.startswith("11.111111")
    wrong_scale = one("Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B")
    assert not wrong_scale.correct
    assert wrong_scale.expected == Decimal("14.8")


def test_correct_at_the_precision_shown() -> None:
    assert one("Check: 10 / 3 = 3.33").correct
    assert one("Check: 10 / 3 = 3.3").correct
    assert not one("Check: 10 / 3 = 3.34").correct


def test_every_calculation_is_a_calculator_tool_call() -> None:
    result = one("Total: 10,899 + 9,976 = 20,875")
    call = result.tool_call
    assert call.tool == "calculator"
    assert call.input == {"expression": "10899 + 9976"}
    assert call.output == "20875"
    assert call.error is None
    assert call.duration_ms >= 0


def test_a_refused_expression_is_recorded_and_not_judged() -> None:
    result = one("Check: 5 / 0 = 7")
    assert result.correct  # nothing to say about it
    assert result.tool_call.error == "division by zero"


@pytest.mark.parametrize(
    "body",
    [
        "Owner earnings = $14.8B",  # one number is no calculation
        "Revenue 100, margin 20% = healthy",
        "P/E = 25.3",
        "In 2019 revenue 100 - 2018 revenue 90 = 10",  # a year in the middle: not clean
        "a <= 5 and b >= 6",
    ],
)
def test_things_that_are_not_calculations(body: str) -> None:
    assert checked(body) == []


# ------------------------------------------------------------------ prose forms


def test_from_to_up_percent() -> None:
    result = one("The stock rose from $188.33 to $190.68, up 1.25%.")
    assert result.calculation.kind == "change"
    assert result.calculation.expression == "(190.68 - 188.33) / 188.33 * 100"
    assert result.correct


def test_from_to_with_a_wrong_percentage() -> None:
    result = one("Revenue grew from $40B to $44B, up 12%.")
    assert not result.correct
    assert result.expected == Decimal("10")
    assert result.calculation.strict


def test_from_to_with_a_move_in_money() -> None:
    result = one("Shares went from $188.33 to $190.68, up $2.35 on the day.")
    assert result.calculation.expression == "190.68 - 188.33"
    assert result.correct


def test_percent_before_from() -> None:
    assert one("Sales rose 10% from $40B to $44B.").correct


def test_down_moves_compare_magnitudes() -> None:
    assert one("Margin fell from 50 to 45 (-10%).").correct


def test_percentage_points_are_a_difference() -> None:
    result = one("Margin went from 20% to 25%, up 5 percentage points.")
    assert result.calculation.expression == "25 - 20"
    assert result.correct


def test_a_of_b_share() -> None:
    result = one("Calls were 10,899 of 20,875 (52.2%).")
    assert result.calculation.kind == "share"
    assert result.correct
    assert not one("Calls were 10,899 of 20,875 (55.2%).").correct


def test_a_move_with_a_percentage_only_confirms() -> None:
    good = one("NVO at $190.68, up $2.35 (1.25%).")
    assert good.calculation.kind == "move"
    assert good.correct
    bad = one("NVO at $190.68, up $2.35 (4.25%).")
    assert not bad.correct
    assert not bad.calculation.strict  # the base is not written down: no finding
