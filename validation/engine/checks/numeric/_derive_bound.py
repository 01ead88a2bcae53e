"""Can the derived search (:mod:`._derive`) find anything at all? A bound, read first.

Most numbers the search looks at are explained by no candidate: no difference, sum,
average, ratio, share, change, compound rate or group total of their operands lands in
their rounding window. :func:`may_hit` answers that from the operands' sorted values with
a binary search per operand and family (a few hundred lookups), where the search itself
enumerates and weighs every candidate (hundreds of tuples, in tiers). It is a necessary
condition only: it over-approximates every family of the first look of
``_derive_candidates.candidates`` (both
orders of a pair, every tier, whatever operations the words name, whatever direction, a
pair with itself, windows widened by more than a rounding error), so when it says no,
the search would have found no hit and returns None; when it says maybe, the search runs
as before. The second look's own candidates, the changes of whole rows, are few:
:func:`changes_may_hit` enumerates them, and ``explain`` skips that look when neither
says maybe. A new operation in ``candidates`` needs its family here
(tests/engine/test_derive_bound.py enumerates the candidates and checks each one is
within the bound).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_candidates import (
    is_count,
    is_price,
    row_changes,
)
from validation.engine.checks.numeric._derive_columns import named_columns, net_columns
from validation.engine.checks.numeric._derive_like import bare_rate, like_cells
from validation.engine.checks.numeric._derive_pool import STATED, Operand
from validation.engine.checks.numeric._derive_rows import MAX_GROUP

_SLACK = 1e-9  # relative widening of every window: far above a float's rounding error


def may_hit(
    operands: Sequence[Operand],
    kind: str,
    readings: Sequence[tuple[float, float]],
    periods: Sequence[int],
) -> bool:
    """False when no candidate of the closed family over `operands` lands within half a
    rounding window of any reading (``explain``'s test of a hit); else True."""
    if not all(math.isfinite(operand.value) for operand in operands):
        return True
    amounts = sorted(operand.value for operand in operands if not operand.percent)
    percents = sorted(operand.value for operand in operands if operand.percent)
    every = sorted(operand.value for operand in operands)
    try:
        for target, width in readings:
            half = width / 2 * 1.000001
            low, high = target - half, target + half
            if kind == "amount":
                found = (
                    _sums(amounts, low, high)
                    or _ratios(amounts, low, high)
                    or _products(operands, low, high)
                    or _groups(operands, low, high, percent=False)
                )
            elif kind == "multiple":
                found = _ratios(amounts, low, high)
            elif kind == "points":  # a difference of any two values, or a rate row's average
                found = _sums(every, low, high) or _groups(operands, low, high, percent=True)
            else:  # "percent": shares, changes and compound rates, points, rate averages
                found = (
                    _sums(percents, low, high)
                    or _ratios(amounts, low / 100, high / 100)
                    or _changes(operands, amounts, low, high, periods)
                    or _groups(operands, low, high, percent=True)
                )
            if found:
                return True
    except (OverflowError, ZeroDivisionError, ValueError):
        return True  # an extreme value: let the search itself decide
    return False


def changes_may_hit(
    operands: Sequence[Operand], kind: str, readings: Sequence[tuple[float, float]]
) -> bool:
    """Does any change of one row over another's (the second look's own candidates,
    ``row_changes``) land within half a rounding window of a reading? Enumerated: a few
    dozen values. With ``may_hit`` False, False here means the second look finds no hit."""
    values = [found[1] for found in row_changes([o for o in operands if not o.percent], kind)]
    return any(
        abs(value - target) <= width / 2 * 1.000001 * (1 + _SLACK)
        for target, width in readings
        for value in values
    )


def _within(values: Sequence[float], low: float, high: float) -> bool:
    """Does sorted `values` hold a value in [low, high]?"""
    at = bisect_left(values, low)
    return at < len(values) and values[at] <= high


def _sums(values: Sequence[float], low: float, high: float) -> bool:
    """|a - b|, |a + b| or |a + b| / 2 within [low, high] for a pair of `values`."""
    for a in values:
        slack = _SLACK * (abs(a) + 2 * abs(high)) + 1e-300
        for start, end in (
            (a - high, a - low),  # |a - b|, b below a
            (a + low, a + high),  # |a - b|, b above a
            (low - a, high - a),  # |a + b|
            (-high - a, -low - a),
            (2 * low - a, 2 * high - a),  # |a + b| / 2
            (-2 * high - a, -2 * low - a),
        ):
            if _within(values, start - slack, end + slack):
                return True
    return False


def _ratios(values: Sequence[float], low: float, high: float) -> bool:
    """|a / b| within [low, high] for a pair of `values`, in either order."""
    sizes = sorted(abs(value) for value in values)
    for size in sizes:
        if size == 0:
            continue
        slack = _SLACK * size * (abs(low) + abs(high)) + 1e-300
        if _within(sizes, low * size - slack, high * size + slack):
            return True
    return False


def _products(operands: Sequence[Operand], low: float, high: float) -> bool:
    """|count * price| within [low, high] for a count and a price per unit of `operands`."""
    counts = sorted(abs(operand.value) for operand in operands if is_count(operand))
    prices = {
        abs(operand.value / (operand.digits or 1.0)) for operand in operands if is_price(operand)
    }
    for price in prices:
        if price == 0:
            continue
        slack = _SLACK * (abs(low) + abs(high)) / price + 1e-300
        if _within(counts, low / price - slack, high / price + slack):
            return True
    return False


def _changes(
    operands: Sequence[Operand],
    amounts: Sequence[float],
    low: float,
    high: float,
    periods: Sequence[int],
) -> bool:
    """A percentage change (top - bottom) / bottom * 100, or a compound rate over n periods
    ((top / bottom) ^ (1 / n) - 1) * 100, whose size is within [low, high]: both are a
    ratio top / bottom within a window."""
    growth = [(1 + low / 100, 1 + high / 100), (1 - high / 100, 1 - low / 100)]
    windows = list(growth)
    for n in _spans(operands, periods):
        for start, end in growth:
            if end > 0:
                windows.append((max(start, 0.0) ** n, end**n))
    for bottom in amounts:
        if bottom == 0:
            continue
        for start, end in windows:
            slack = _SLACK * abs(bottom) * (2 + abs(start) + abs(end)) + 1e-300
            first, second = sorted((bottom * start, bottom * end))
            if _within(amounts, first - slack, second + slack):
                return True
    return False


def _spans(operands: Sequence[Operand], periods: Sequence[int]) -> set[int]:
    """Every n a compound rate may be taken over: the periods named, and the distance
    between any two cells of one row."""
    spans = {n for n in periods if n > 0}
    columns: dict[int, list[int]] = {}
    for operand in operands:
        if operand.row >= 0:
            columns.setdefault(operand.row, []).append(operand.column)
    for found in columns.values():
        spans.update(abs(a - b) for a in found for b in found if a != b)
    return spans


def _groups(operands: Sequence[Operand], low: float, high: float, *, percent: bool) -> bool:
    """Sums and averages of a row's first cells (by column, all of them or its like cells
    only) or of the stated numbers, among the amounts or among the percentages."""
    rows: dict[int, list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0 and (operand.percent == percent or (percent and bare_rate(operand))):
            rows.setdefault(operand.row, []).append(operand)
    lists: list[Sequence[Operand]] = []
    for row in rows.values():
        ordered = sorted(row, key=lambda operand: operand.column)
        lists += [ordered, like_cells(ordered)]
    lists.append(
        [
            operand
            for operand in operands
            if operand.strength == STATED and operand.percent == percent
        ]
    )
    like = [operand for operand in operands if operand.percent == percent]
    for column in named_columns(like):  # a period's named line items, summed
        lists.append(sorted(column, key=lambda operand: operand.row))
    for _, net in net_columns(operands) if not percent else ():  # a column's lines, signed
        slack = _SLACK * (abs(net) + abs(high))
        if low - slack <= abs(net) <= high + slack:
            return True
    for members in lists:
        for size in range(3, min(len(members), MAX_GROUP) + 1):
            total = abs(sum(member.value for member in members[:size]))
            slack = _SLACK * (total + abs(high)) + 1e-300
            for value in (total, total / size):
                if low - slack <= value <= high + slack:
                    return True
    return False
