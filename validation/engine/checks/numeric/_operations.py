"""The operations a report states in words, and when a value meets a stated number.

A result written in words ("a decrease of $652 million", "averaged 27.9 percent",
"represents 23.5% of", "up 2.4 percentage points", "1.6 times", "a CAGR of 0.6%")
is one of a few operations over two (or, for sums and averages, more) numbers:

- ``diff``    |a - b|, in the operands' units (an amount, or points between rates);
- ``sum``     a + b (+ ...);
- ``mean``    (a + b (+ ...)) / n;
- ``share``   a / b x 100, a percentage;
- ``change``  (a - b) / b x 100, the percent change from the base b;
- ``ratio``   a / b, a multiple;
- ``product`` a% x b, an amount ("20% of $66.6 billion");
- ``cagr``    ((a / b) ^ (1 / n) - 1) x 100 over n years.

Values are magnitudes (signs are a matter of words: "down 5%" and "-5%" state
the same number). :class:`Target` says when a computed value *is* the stated
number at the precision shown: within half a unit of its last digit, or cut
short at it; a hedge ("about", "roughly") allows a whole unit, and a bound
("less than 1%", "more than 40%") is met on its side within a factor of two.
Operands written with fewer digits than the evidence widen the tolerance by as
much as they can move the result. Pure arithmetic on floats: no Django, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

DIFF = "diff"
SUM = "sum"
MEAN = "mean"
SHARE = "share"
CHANGE = "change"
RATIO = "ratio"
PRODUCT = "product"
CAGR = "cagr"

# Results in the operands' own units (an amount from amounts, points from rates).
SAME_UNITS = frozenset((DIFF, SUM, MEAN))
# Results that are percentages whatever the operands are.
PERCENT_RESULTS = frozenset((SHARE, CHANGE, CAGR))
_STEPS = 10 / 9  # of half a unit: 0.5 + 0.05 + 0.005 ... of the last digit shown

# Results that carry no scale: a ratio of two amounts is the same in any units.
SCALE_FREE = frozenset((SHARE, CHANGE, CAGR, RATIO))
# Operations of two operands whose order matters.
ORDERED = frozenset((SHARE, CHANGE, RATIO, CAGR))


@dataclass(frozen=True, slots=True)
class Operand:
    """A number an operation may take: a supported number of the report, or an
    evidence number. `value` is a magnitude in full units (15.5e9 for "$15.5B";
    22.5 for "22.5%") and `written` the number as shown (15.5); `half` is half a
    unit of its last digit in full units (0 for an evidence number, taken as exact);
    `precise` the full evidence value a rounded report number stands for, if any."""

    value: float
    written: float
    percent: bool
    half: float
    key: int  # a claim's position in the report (>= 0), or -1 - an evidence entry
    precise: float | None = None
    position: int = -1  # where the report writes it (-1: evidence only)
    explicit_scale: bool = False  # "$1.9 billion", not a bare 1,918 or "(in millions)"
    declared: float = 0.0  # bare evidence digits: the scale their document declares (0: none)
    item: int = -1  # the evidence item behind it, if one
    entry: int = -1  # the evidence number behind it, if one (neighbours: the same row)
    source: str = ""  # that item's source_ref
    cited: bool = True  # the report cites it (or its words name it, as a price for a gap)
    paragraph: int = -1  # the report paragraph it stands in
    year: int = 0  # the year it is of, when its words say
    mark: str = ""  # the word before it that gives its part: "from", "to", "of", "by" ...
    # For a number the fixpoint derived as a sum or difference: the keys of the numbers
    # it follows from (and theirs). A sum or difference of it and one of them only
    # undoes its derivation.
    sources: frozenset[int] = frozenset()

    @property
    def in_report(self) -> bool:
        return self.key >= 0

    @property
    def scale(self) -> float:
        return self.value / self.written if self.written else 1.0

    @property
    def known_scale(self) -> float:
        """The scale its digits are known to stand in: written ("$1.9 billion") or
        declared by its document ("(in millions)"); 0 when nothing says."""
        return self.scale if self.explicit_scale else self.declared


def one_figure(first: Operand, second: Operand) -> bool:
    """The two are one figure written at two scales, the coarser a rounding of the other
    ("$3.8 million" of a note, 3,777 of a table in thousands), as
    `_derive_candidates.one_figure` judges the closed search's operands."""
    if first.percent or second.percent or first.scale == second.scale:
        return False  # "87" and "86.8" of one table are two figures, however close
    if first.value == second.value:
        return False  # one value twice: an average of two equal periods is still one
    return abs(first.value - second.value) <= max(_half_unit(first), _half_unit(second)) * 1.000001


def _half_unit(operand: Operand) -> float:
    """Half a unit of the last digit it is written with, in full units (an evidence
    number counts as exact in a derivation, but "$3.8 million" is still one decimal)."""
    if operand.half:
        return operand.half
    written = abs(operand.written)
    text = repr(written)
    places = 0 if written.is_integer() or "e" in text else len(text.split(".")[1])
    return 0.5 * 10.0**-places * operand.scale


def misread(operands: Sequence[Operand], target_scale: float) -> bool:
    """Whether computing on the digits as written would read a scale wrongly: a
    result written at a scale ("$9.0 billion") from digits known to stand at
    another ("157.6" of a table in millions), or from digits whose scales are
    all known (no reading without them), or from digits written at two scales ("$2.62
    billion" and "$683 million": never 2.62 against 683)."""
    shown = {
        float(f"{operand.scale:.6g}")  # value / written: 999999.9999999999 is a million
        for operand in operands
        if operand.explicit_scale and not operand.percent
    }
    if len(shown) > 1:
        return True
    if not target_scale:
        return False
    if all(operand.explicit_scale for operand in operands):
        return True
    return any(
        operand.known_scale and not operand.percent and operand.known_scale != target_scale
        for operand in operands
    )


@dataclass(frozen=True, slots=True)
class Target:
    """A stated number as an operation's result must meet it.

    `value` is its magnitude in full units (for a percentage or points, the number
    as written) and `half` half a unit of its last digit in those units; `written`
    and `written_half` are the same as shown, before the number's own scale.
    `bound` is "below" ("less than 1%"), "above" ("more than 40%") or ""; `hedged`
    ("about", "roughly") allows a whole unit either way."""

    value: float
    half: float
    written: float
    written_half: float
    hedged: bool = False
    bound: str = ""

    def meets(self, outcome: Outcome) -> bool:
        """The outcome's value is this number at the precision shown (or within the
        slack its rounded operands allow)."""
        return self.meets_value(outcome.op, outcome.written, outcome.value, outcome.slack)

    def meets_value(self, op: str, written: bool, value: float, slack: float) -> bool:
        """`meets` for a value `measure` gave."""
        if written or op in SCALE_FREE:
            return self._meets(self.written, self.written_half, value, slack)
        return self._meets(self.value, self.half, value, slack)

    def _meets(self, stated: float, half: float, value: float, slack: float) -> bool:
        if self.bound == "below":
            return stated / 2 <= value <= stated + half + slack
        if self.bound == "above":
            return stated - half - slack <= value <= stated * 2
        # A whole unit for a hedge; else half a unit, or a little more for a value
        # rounded in steps (6.3949 to 6.395, then to 6.40).
        tolerance = half * (2.0 if self.hedged else _STEPS) * 1.000001 + stated * 1e-12
        difference = value - stated
        if -tolerance - slack <= difference <= tolerance + slack:
            return True
        # A value cut short at the last digit shown (0.65387 written as 0.6538).
        # (Strictly less, whatever the float rounding of the difference: 15.5 is no
        # 15.4 cut short.)
        return 0 <= difference < (2 * half + slack) * (1 - 1e-9)

    def distance(self, outcome: Outcome) -> float:
        """How far the outcome is from the stated number, relative to the larger of
        the two (43% for 53.97% is as far as 53.97% for 43%)."""
        stated = self.written if outcome.written or outcome.op in SCALE_FREE else self.value
        larger = max(stated, abs(outcome.value))
        if not larger:
            return 0.0
        return abs(outcome.value - stated) / larger


@dataclass(frozen=True, slots=True)
class Outcome:
    """One operation over operands: its value (in full units, or as written when
    `written`), the tolerance its operands' rounding allows, and the expression
    the calculator can recompute (in the units of `unit`: 1,918 for 1.918e9 when
    the operands are written in millions), written when asked for (the search
    weighs many outcomes and shows one)."""

    op: str
    value: float
    slack: float
    operands: tuple[Operand, ...]
    unit: float = 1.0
    written: bool = False
    precise: bool = False
    years: int = 0  # of a compound growth rate

    @property
    def expression(self) -> str:
        return describe(self, ())


@dataclass(frozen=True, slots=True)
class Miss:
    """A result its words name that the operation over supported numbers misses:
    the value it should have (in the mention's own units), the calculator's
    expression, and whether it is only the scale word that is wrong."""

    expected: Decimal
    expression: str
    operands: tuple[Operand, ...]
    scale: Decimal | None = None  # the right scale for a number at the wrong one
    clear: bool = True  # one value fits: a fix may be proposed
    confidence: float = 0.9  # the fix's
    # The operands are the numbers written beside the result (its sentence, or the one
    # before when its own states none): the writer's derivation is plain. Otherwise the
    # reading is only the nearest one found, and no fix is proposed.
    stated: bool = True


def describe(outcome: Outcome, names: Sequence[str]) -> str:
    """The outcome's expression with operands named where `names` gives a name
    ("call_volume 10,899 + put_volume 9,976"), each number in the expression's units."""
    op, operands = outcome.op, outcome.operands
    if op == CAGR:
        later, base = operands
        unit = _unit(operands)
        return (
            f"(({_plain(later.value / unit)} / {_plain(base.value / unit)}) "
            f"** (1 / {outcome.years}) - 1) * 100"
        )
    unit, values, _ = _numbers(operands, outcome.written, outcome.precise)
    texts = [
        f"{names[at]} {_plain(number)}" if at < len(names) and names[at] else _plain(number)
        for at, number in enumerate(values)
    ]
    if op == PRODUCT:
        texts[1] = _plain(values[1] * unit / outcome.unit)
    return _expression(op, texts, values)


def evaluate(
    op: str,
    operands: Sequence[Operand],
    *,
    written: bool = False,
    precise: bool = False,
) -> Outcome | None:
    """`op` over `operands` (in that order: the base of a change or share last), or
    None when it is undefined (a zero divisor). `written` takes the numbers as
    shown, ignoring their scales (a bare 1,918 in a table read "in millions");
    otherwise in full units. With `precise`, a rounded report number counts at the
    evidence value it stands for."""
    unit, values, halves = _numbers(operands, written, precise)
    measured = _measure(op, values, halves, unit, operands, written)
    if measured is None:
        return None
    value, slack, unit_out = measured
    return Outcome(op, value, slack, tuple(operands), unit_out, written, precise)


def measure(
    op: str, operands: Sequence[Operand], written: bool, precise: bool
) -> tuple[float, float] | None:
    """The value and slack of `evaluate` alone, without the expression: the search
    tries thousands of these and keeps one."""
    unit, values, halves = _numbers(operands, written, precise)
    measured = _measure(op, values, halves, unit, operands, written)
    return None if measured is None else (measured[0], measured[1])


def _numbers(
    operands: Sequence[Operand], written: bool, precise: bool
) -> tuple[float, list[float], list[float]]:
    """The operands' values and half-units in the units a formula writes them in."""
    unit = 1.0 if written else _unit(operands)
    values: list[float] = []
    halves: list[float] = []
    for operand in operands:
        exact = precise and operand.precise is not None
        full = operand.precise if exact and operand.precise is not None else operand.value
        scale = operand.scale if written else unit
        values.append(full / scale if scale else full)
        halves.append(0.0 if exact else abs(operand.half / scale if scale else operand.half))
    return unit, values, halves


def _measure(
    op: str,
    values: Sequence[float],
    halves: Sequence[float],
    unit: float,
    operands: Sequence[Operand],
    written: bool,
) -> tuple[float, float, float] | None:
    """(value, slack, the unit the value is in) of `op` over `values`."""
    count = len(values)
    if op in (SUM, MEAN):
        divisor = count if op == MEAN else 1
        return abs(sum(values)) / divisor * unit, sum(halves) / divisor * unit, unit
    if count != 2:
        return None
    a, b = values
    half_a, half_b = halves
    if op == DIFF:
        return abs(a - b) * unit, (half_a + half_b) * unit, unit
    if not b:
        return None
    size_a, size_b = abs(a), abs(b)
    if op == SHARE:
        value = size_a / size_b * 100
        return (
            value,
            value * (half_a / size_a + half_b / size_b) if a else 100 * half_a / size_b,
            1.0,
        )
    if op == CHANGE:
        value = abs(a - b) / size_b * 100
        return value, 100 * (half_a + half_b) / size_b + value * half_b / size_b, 1.0
    if op == RATIO:
        value = size_a / size_b
        return value, value * (half_a / size_a + half_b / size_b) if a else half_a / size_b, 1.0
    if op == PRODUCT:
        # a is the rate (a percentage), b the amount it applies to, in b's units
        unit_b = 1.0 if written else operands[1].scale
        if not unit_b:
            return None
        b_units = b * unit / unit_b
        value = abs(a * b_units) / 100
        slack = (half_a * abs(b_units) + size_a * half_b * unit / unit_b) / 100
        return value * unit_b, slack * unit_b, unit_b
    return None


def _expression(op: str, texts: Sequence[str], values: Sequence[float]) -> str:
    """The calculator's expression of `op` over operands written as `texts`."""
    if op == SUM:
        return " + ".join(texts)
    if op == MEAN:
        return f"({' + '.join(texts)}) / {len(texts)}"
    first, second = texts
    if op == DIFF:
        high, low = (first, second) if values[0] >= values[1] else (second, first)
        return f"{high} - {_parenthesized(low)}"
    if op == SHARE:
        return f"{first} / {_parenthesized(second)} * 100"
    if op == CHANGE:
        return f"({first} - {_parenthesized(second)}) / {_parenthesized(second)} * 100"
    if op == RATIO:
        return f"{first} / {_parenthesized(second)}"
    return f"{first} / 100 * {_parenthesized(second)}"  # PRODUCT


def _parenthesized(text: str) -> str:
    return f"({text})" if text.startswith("-") else text


def evaluate_cagr(later: Operand, base: Operand, years: int) -> Outcome | None:
    """The compound annual growth from `base` to `later` over `years`, a percentage."""
    if years <= 0 or not later.value or not base.value or (later.value > 0) != (base.value > 0):
        return None
    growth = later.value / base.value
    factor = math.pow(growth, 1 / years)
    value = abs(factor - 1) * 100
    slack = 100 * factor * abs(later.half / later.value + base.half / base.value) / years
    return Outcome(CAGR, value, slack, (later, base), years=years)


def _unit(operands: Sequence[Operand]) -> float:
    """The scale a formula writes its operands in: the first amount's own scale."""
    for operand in operands:
        if not operand.percent:
            return operand.scale or 1.0
    return 1.0


def _plain(value: float) -> str:
    """A number as the calculator reads it: thousands separators, no exponent."""
    if value != value or value in (math.inf, -math.inf):
        return "0"
    text = f"{value:,.10f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def mixed_periods(run: Sequence[Operand]) -> bool:
    """The years a run's numbers are dated to are neither one (line items of one period)
    nor each its own (one line item's periods): "$7,169K in 2019", "$1.3 million" of 2019
    and "$2.2 million in 2018" add up to no total an analyst writes."""
    years = [operand.year for operand in run if operand.year]
    return 1 < len(set(years)) < len(years)
