"""The arithmetic check: every calculation the report writes out is recomputed
with the safe calculator.

Recognised forms (numbers may carry currency, scale and percent signs, and label
words may sit between them):

- equations: `a - b = c`, `Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B`,
  `(0.50 - 0.45) / 0.45 * 100 = 11.11%`, `X / Y = Z`, `X x Y = Z`, `c = a + b`;
- changes: "from $X to $Y, up Z%", "rose from X to Y (+Z%)", "rose Z% from X to Y",
  "from $X to $Y, up $D";
- shares: "A of B (Z%)";
- moves: "$190.68, up $2.35 (1.25%)" - only ever *confirms* a percentage, since
  the base of such a move is not written down.

A result is correct when the exact computed value, rounded to the precision the
report shows, equals it (`11.11%` for 11.111...; `$14.8B` for 14.8e9). Signs are
compared by magnitude ("down 5%" and "-5%" are the same claim). Percent operands
count as fractions (10% x $50B = $5B) unless every operand is a percentage
(12% + 3% = 15%); a percent result may be written as a percentage or a fraction.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from decimal import Decimal

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.checks.numeric import _calculations as calculations
from validation.engine.checks.numeric._equations import _changes, _common_scale, _moves, _shares
from validation.engine.checks.numeric._links import _from_link, check_link
from validation.engine.checks.numeric._precision import OperandFacts, _elapsed
from validation.engine.checks.numeric._types import (
    CheckedCalculation,
    NumberMention,
    WrittenCalculation,
)
from validation.engine.types import ToolCallRecord


def find_calculations(
    body: str,
    mentions: Sequence[NumberMention],
    reading: calculations.Reading | None = None,
) -> list[WrittenCalculation]:
    """Every written calculation of `body`; one per result mention."""
    found: dict[int, WrittenCalculation] = {}
    if reading is None:
        reading = calculations.read(body, mentions)
    for link in reading.links:
        calculation = _from_link(body, mentions, link)
        if calculation is not None:
            found.setdefault(calculation.result, calculation)
    for calculation in (*_changes(body, mentions), *_shares(body, mentions)):
        found.setdefault(calculation.result, calculation)
    for calculation in _moves(body, mentions):
        found.setdefault(calculation.result, calculation)
    return [found[key] for key in sorted(found)]


def check(
    calculation: WrittenCalculation,
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts] | None = None,
) -> CheckedCalculation | None:
    """Recompute one calculation (a parsed expression: see `check_link`; a change,
    share or move: its formula); None when the calculator refuses the expression."""
    if calculation.tree is not None:
        return check_link(calculation, mentions, facts)
    began = time.perf_counter()
    try:
        result = calculate(calculation.expression)
    except CalculatorError as exc:
        return CheckedCalculation(
            calculation,
            correct=True,
            exact="",
            expected=None,
            tool_call=ToolCallRecord(
                tool="calculator",
                input={"expression": calculation.expression},
                error=str(exc),
                duration_ms=_elapsed(began),
            ),
        )
    call = ToolCallRecord(
        tool="calculator",
        input={"expression": calculation.expression},
        output=result.exact,
        duration_ms=_elapsed(began),
    )
    target = mentions[calculation.result]
    readings = _readings(calculation, mentions, result.value)
    correct = any(_equal_at_precision(written, target) for written in readings)
    # The reading nearest the written number is the one the author meant.
    expected = min(readings, key=lambda written: _log_distance(written, target.written))
    scale = _common_scale([mentions[index] for index in calculation.operands])
    if (
        not correct
        and scale is not None
        and scale != 1
        and target.has_explicit_scale
        and scale != target.scale
        and _equal_at_precision(abs(result.value), target)
    ):
        # "from $1,918 million to $1,906 million, a decrease of 12 thousand": the digits
        # are right, the scale word is not.
        return CheckedCalculation(
            calculation, False, result.exact, abs(target.written), call, "scale", scale
        )
    return CheckedCalculation(calculation, correct, result.exact, expected, call)


# ------------------------------------------------------------------ reading


def _readings(
    calculation: WrittenCalculation, mentions: Sequence[NumberMention], value: Decimal
) -> list[Decimal]:
    """The computed value as the result would write it, in every reading that
    makes sense (in the result's scale; as a percentage or as a fraction)."""
    target = mentions[calculation.result]
    operands = [mentions[index] for index in calculation.operands]
    scale = _common_scale(operands)
    magnitude = abs(value)
    full = magnitude * scale if scale is not None else magnitude
    result_scale = target.scale if target.has_explicit_scale else Decimal(1)
    readings = [full / result_scale]
    if scale is not None and scale != result_scale and (scale == 1 or result_scale == 1):
        readings.append(magnitude)  # "15.5 - 0.7 = $14.8B": operands in the result's scale
    all_percent = all(operand.is_percent for operand in operands)
    if target.is_percent and not (calculation.percent_base or all_percent):
        readings.append(magnitude * 100)  # "0.05 / 0.45 = 11.11%"
    return readings


def _equal_at_precision(written: Decimal, target: NumberMention) -> bool:
    quantum = Decimal(1).scaleb(-target.decimals)
    half = quantum / 2 if not target.approx else quantum
    return abs(written - abs(target.written)) <= half * Decimal("1.000000001")


def _log_distance(value: Decimal, written: Decimal) -> float:
    if value == 0 or written == 0:
        return math.inf if value != written else 0.0
    return abs(math.log10(float(abs(value))) - math.log10(float(abs(written))))
