"""How close is close: the slack a rounded operand allows, unit and scale
conversions, and rendering a result the way the report writes it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from validation.engine.checks.numeric import _calculations as calculations
from validation.engine.checks.numeric import _expressions as expressions
from validation.engine.checks.numeric._types import Node, NumberMention, WrittenCalculation


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _elapsed(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)


# ------------------------------------------------------------------ linked expressions


@dataclass(frozen=True, slots=True)
class OperandFacts:
    """What the evidence says of one operand: the scale its digits stand in
    ("44.1" in a table "in millions" -> 1e6; None when nothing says), and whether
    the digits are exact or a rounding (of evidence, or of a value computed earlier
    in the report) whose last digit may be off by half a unit."""

    scale: Decimal | None = None
    inexact: bool = False
    cited: bool = False  # found in the evidence


_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class _Operands:
    """The operands as a calculation uses them (by mention index)."""

    values: dict[int, Fraction]  # as written; percentages as fractions unless all are
    scale: Decimal | None  # the one scale the quantities share (None: unknown)
    hundred: bool  # a plain 100 turns a ratio into a percentage
    all_percent: bool  # every operand that is not a constant is a percentage
    dimension: int | None  # 0: a ratio; 1: a quantity in the operands' units


def _vector(values: Mapping[int, Fraction], size: int) -> Sequence[Fraction | None]:
    return _Sparse(values, size, None)


class _Sparse(Sequence[_V]):
    """A vector by mention index that holds only a calculation's operands (any other
    index reads as `default`). A list as long as the report for each calculation
    made a report of thousands of calculations quadratic."""

    __slots__ = ("_default", "_size", "_values")

    def __init__(self, values: Mapping[int, _V], size: int, default: _V) -> None:
        self._values, self._size, self._default = values, size, default

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> _V:  # type: ignore[override]
        return self._values.get(index, self._default)


def _slack(
    tree: Node,
    calculation: WrittenCalculation,
    written: Mapping[int, Fraction],
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts],
    value: Fraction,
) -> Fraction:
    """How far the result may move when each inexact operand moves by half its
    last digit (a first-order bound, summed over at most six operands)."""
    total = Fraction(0)
    inexact = [
        index
        for index in calculation.operands
        if (facts.get(index) or _EXACT).inexact and index in written
    ]
    for index in inexact[:6]:
        mention = mentions[index]
        step = Fraction(1, 2 * 10**mention.decimals)
        if written[index] != calculations.exact(mention.written) and mention.written:
            step *= abs(
                written[index] / calculations.exact(mention.written)
            )  # same units as `written`
        moved = dict(written)
        moved[index] = written[index] + step
        shifted = expressions.evaluate(tree, _vector(moved, len(mentions)))
        if shifted is not None:
            total += abs(shifted - value)
    return total


_EXACT = OperandFacts()


_NUDGE = Fraction(1000000001, 1000000000)  # equality survives a last-digit tie


def _close(
    expected: Fraction, written: Fraction, target: NumberMention, slack: Fraction, approx: bool
) -> bool:
    """`expected` equals the written result at the precision shown (a whole last
    digit when the report hedges), give or take `slack`."""
    quantum = Fraction(1, 10**target.decimals) if target.decimals >= 0 else Fraction(1)
    half = quantum if (approx or target.approx) else quantum / 2
    tolerance = half * _NUDGE + slack
    magnitude = abs(expected)
    if abs(magnitude - written) <= tolerance:
        return True
    if abs(magnitude - written) <= quantum * DOUBLE_ROUNDING + slack:
        return True  # rounded in steps: 6.3949 to 6.395, then to 6.40
    # Truncated rather than rounded (101.497 shown as 101.4): the digits shown are
    # the value's own, cut short.
    return written <= magnitude < written + quantum + slack


# How far from the digits shown a value rounded in steps can be (0.5 + 0.05 + 0.005
# ... of a unit in the last place): 6.3949 shown as 6.40 is rounded, 6.3933 is not.
DOUBLE_ROUNDING = Fraction(5, 9)


def _conversion(tree: Node | None, mentions: Sequence[NumberMention]) -> Decimal:
    """How a written calculation moves its amount between scale words: x1,000 for a
    division by a bare 1,000 ("$7,412 million / 1,000 = $7.412 billion"), /1,000 for a
    multiplication by one; 1 when it does neither."""
    if tree is None or tree.op not in ("/", "*") or tree.right is None:
        return Decimal(1)
    right = tree.right
    if right.op != "num":
        return Decimal(1)
    constant = mentions[right.operand]
    if constant.written not in _THOUSANDS or constant.unit or constant.has_explicit_scale:
        return Decimal(1)
    return constant.written if tree.op == "/" else 1 / constant.written


_THOUSANDS = frozenset((Decimal(1000), Decimal(1_000_000)))


def _power_of_ten(ratio: Fraction) -> Decimal | None:
    if ratio <= 0:
        ratio = abs(ratio)
    if ratio == 0:
        return None
    exponent = round(math.log10(float(ratio)))
    if abs(float(ratio) / 10**exponent - 1) > 1e-6:
        return None
    return Decimal(10) ** exponent


def _render(
    calculation: WrittenCalculation, mentions: Sequence[NumberMention], operands: _Operands
) -> str:
    """The calculator input: operands as the report writes their digits, unless the
    calculation had to convert them (a percentage to a fraction, mixed scales)."""
    assert calculation.tree is not None
    texts: dict[int, str] = {}
    for index, operand in operands.values.items():
        mention = mentions[index]
        same = operand == calculations.exact(mention.written)
        texts[index] = _written_text(mention) if same else _fraction_text(operand)
    return expressions.render(calculation.tree, _Sparse(texts, len(mentions), ""))


def _written_text(mention: NumberMention) -> str:
    """The operand's digits as the report shows them ("0.50"), signed, no separators."""
    digits = mention.text[mention.num_start - mention.start : mention.num_end - mention.start]
    digits = digits.replace(",", "")
    return f"(-{digits})" if mention.written < 0 else digits


def _fraction_text(value: Fraction) -> str:
    text = _plain(_decimal(abs(value)))
    return f"(-{text})" if value < 0 else text


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)
