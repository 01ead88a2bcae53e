"""The pairs a search tries: operands sorted by magnitude, paired within a window so
that only pairs whose outcome can reach the target are measured, and which pairs
the rules allow (cited enough, beside each other).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from functools import cached_property

from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric._operations import Operand, Outcome, Target

_PAIR_OPS = frozenset((ops.DIFF, ops.SUM, ops.MEAN, ops.SHARE, ops.CHANGE, ops.RATIO, ops.PRODUCT))


def _cited_enough(
    first: bool,
    second: bool,
    neighbours: bool,
    same_item: bool,
    change: bool,
    coarse: bool,
    named: bool,
) -> bool:
    """Whether a pair may explain a result, by what the report cites of it. A number the
    report does not cite is only the other end of a change (the prior year of a line
    item it cites), and for a result shown with under three significant digits only
    when its words name the change and the two stand side by side in the evidence (one
    row); two numbers it cites neither of come from one item, and never explain so
    coarse a result."""
    if first and second:
        return True
    if first or second:
        return change and (not coarse or (named and neighbours))
    return same_item and not coarse


def _beside(first: int, second: int) -> bool:
    return first >= 0 and second >= 0 and abs(first - second) <= _ROW_REACH


_ROW_REACH = 2  # evidence entries apart that are one row's cells


def _window(stated: float, half: float, bound: str) -> tuple[float, float]:
    """Values a target might accept, with room for any slack the search allows."""
    low = stated * (1 - _SLACK_SHARE * 1.1) - 2.5 * half
    high = stated * (1 + _SLACK_SHARE * 1.1) + 2.5 * half
    if bound == "below":
        low = min(low, stated / 2)
    elif bound == "above":
        high = max(high, stated * 2)
    return max(low, 0.0), high


class _Sorted:
    """One list of values sorted by value and by size, once: the windows of every
    operation over it are found by bisection."""

    __slots__ = ("_by_size", "keys", "order", "values")

    def __init__(self, values: Sequence[float]) -> None:
        self.values = values
        signed = sorted(range(len(values)), key=values.__getitem__)
        self.order = signed
        self.keys = [values[index] for index in signed]
        self._by_size: tuple[list[int], list[float]] | None = None

    def by_size(self) -> tuple[list[int], list[float]]:
        """The indices sorted by size and their sizes (for a ratio, share or product
        only: sorted on first use)."""
        found = self._by_size
        if found is None:
            size_of = [abs(value) for value in self.values]
            sizes = sorted(range(len(size_of)), key=size_of.__getitem__)
            found = self._by_size = (sizes, [size_of[index] for index in sizes])
        return found

    def pairs(self, op: str, low: float, high: float, ordered: bool) -> list[tuple[int, int]]:
        """Index pairs (i, j) whose `op` over the values may lie in [low, high] (>= 0):
        for each i, the j whose value lies in the window that puts the result there."""
        found: list[tuple[int, int]] = []
        values = self.values
        if op in (ops.RATIO, ops.SHARE, ops.PRODUCT):
            table, keyed = self.by_size()
            # A zero divisor measures nothing (as `_Paired._measure`): the zeros lead
            # the sizes, so a ratio's, share's or product's other operand starts past.
            nonzero = bisect_right(keyed, 0.0)
        else:
            table, keyed, nonzero = self.order, self.keys, 0
        # Each i's windows for the other operand, the operation chosen once (not per i).
        windows: list[tuple[int, float, float]] = []
        if op == ops.DIFF:
            windows = [
                window
                for i, a in enumerate(values)
                for window in ((i, a - high, a - low), (i, a + low, a + high))
            ]
        elif op in (ops.SUM, ops.MEAN):
            scale = 2.0 if op == ops.MEAN else 1.0
            low_sum, high_sum = low * scale, high * scale
            windows = [
                window
                for i, a in enumerate(values)
                for window in ((i, low_sum - a, high_sum - a), (i, -high_sum - a, -low_sum - a))
            ]
        elif op == ops.RATIO:
            windows = [
                (i, abs(a) / high if high else 0.0, abs(a) / low if low else _HUGE)
                for i, a in enumerate(values)
            ]
        elif op == ops.SHARE:
            windows = [
                (i, 100 * abs(a) / high if high else 0.0, 100 * abs(a) / low if low else _HUGE)
                for i, a in enumerate(values)
            ]
        elif op == ops.PRODUCT:
            windows = [
                (i, 100 * low / abs(a), 100 * high / abs(a)) for i, a in enumerate(values) if a
            ]
        else:  # CHANGE: i is the base b; the other a = b + |b| x change, either way
            add = windows.append
            for i, a in enumerate(values):
                size = abs(a)
                if not size:
                    continue  # a change from zero measures nothing
                step_low, step_high = size * low / 100, size * high / 100
                add((i, a + step_low, a + step_high))
                add((i, a - step_high, a - step_low))
        swap = op == ops.CHANGE
        loose, tiny, left, right = _LOOSE, _TINY, bisect_left, bisect_right
        for i, bottom, top in windows:
            first = left(keyed, bottom - abs(bottom) * loose - tiny)
            if first < nonzero:
                first = nonzero  # 0 but for a ratio, share or product
            last = right(keyed, top + abs(top) * loose + tiny)
            if first >= last:
                continue
            for j in table[first:last]:
                if j != i:
                    found.append((j, i) if swap else (i, j))
        if ordered or op in (ops.CHANGE, ops.RATIO, ops.SHARE, ops.PRODUCT):
            return found  # (current, base), (numerator, denominator), (rate, amount)
        return [(i, j) if i < j else (j, i) for i, j in found]


_HUGE = float("inf")
# Windows are widened a little for the float rounding of their bounds.
_LOOSE = 1e-9
_TINY = 1e-12


class _Paired:
    """The pool as plain arrays, for the pairwise search: the same rules as
    `candidates`, `fits_units` and `readings`, in one loop with no call per pair
    (a report's dozens of results each try a few hundred pairs)."""

    def __init__(
        self,
        pool: Sequence[Operand],
        target_scale: float,
        with_any: Sequence[Operand] = (),
        named: bool = True,
    ) -> None:
        self.pool = pool
        self.named = named
        wanted = {id(operand) for operand in with_any}
        # Pairs must hold one of these, when given (the rest were tried already).
        self.wanted = [id(operand) in wanted for operand in pool] if wanted else None
        self.full = [operand.value for operand in pool]
        self.percent = [operand.percent for operand in pool]
        self.rates = sum(self.percent)
        self.target_scale = target_scale
        self._sorts: dict[bool, _Sorted] = {}

    # The rest only once an operation the pool has the kinds for, or a candidate pair,
    # needs them: most pools give none.
    @cached_property
    def written(self) -> list[float]:
        return [operand.written for operand in self.pool]

    @cached_property
    def rescaled(self) -> bool:
        return any(operand.written != operand.value for operand in self.pool)

    @cached_property
    def derived(self) -> bool:
        return any(operand.sources for operand in self.pool)

    @cached_property
    def half(self) -> list[float]:
        return [operand.half for operand in self.pool]

    @cached_property
    def written_half(self) -> list[float]:
        return [
            abs(operand.half / operand.scale) if operand.scale else operand.half
            for operand in self.pool
        ]

    @cached_property
    def exact(self) -> list[float]:
        return [
            operand.precise if operand.precise is not None else operand.value
            for operand in self.pool
        ]

    @cached_property
    def has_precise(self) -> list[bool]:
        return [operand.precise is not None for operand in self.pool]

    @cached_property
    def cited(self) -> list[bool]:
        return [operand.cited for operand in self.pool]

    @cached_property
    def report(self) -> list[bool]:
        return [operand.in_report for operand in self.pool]

    @cached_property
    def item(self) -> list[int]:
        return [operand.item for operand in self.pool]

    @cached_property
    def entry(self) -> list[int]:
        return [operand.entry for operand in self.pool]

    @cached_property
    def year(self) -> list[int]:
        return [operand.year for operand in self.pool]

    @cached_property
    def keys(self) -> list[int]:
        return [operand.key for operand in self.pool]

    @cached_property
    def sources(self) -> list[frozenset[int]]:
        return [operand.sources for operand in self.pool]

    def _misread(self, i: int, j: int) -> bool:
        return bool(self.target_scale) and ops.misread(
            (self.pool[i], self.pool[j]), self.target_scale
        )

    def first(
        self, op: str, target: Target, percent_target: bool, coarse: bool, zero: bool
    ) -> Outcome | None:
        """The first pair `op` over which meets `target`, as an Outcome."""
        return next(self.hits(op, target, percent_target, coarse, zero), None)

    def hits(
        self, op: str, target: Target, percent_target: bool, coarse: bool, zero: bool
    ) -> Iterator[Outcome]:
        """The pairs `op` over which meets `target`, as Outcomes, in the search's order.
        Candidate pairs come from the sorted values (the other operand must lie in a
        window the target sets), then each is checked exactly."""
        if not self._has_kinds(op, percent_target):
            return  # the pool lacks the kinds of number this operation takes
        ordered = op in ops.ORDERED or op == ops.PRODUCT
        beside = op in (ops.DIFF, ops.CHANGE)
        dated = op == ops.CHANGE
        same_units = op in (ops.DIFF, ops.SUM, ops.MEAN)
        # "$15.5B - $139" is $15.5B at any precision a result shows: no operation.
        additive = op in (ops.DIFF, ops.SUM)
        scale_free = op in ops.SCALE_FREE
        reread = target.value != target.written or self.rescaled
        for written in (False, True) if reread else (False,):
            values = self._sorted(written)
            if written or scale_free:
                stated, half = target.written, target.written_half
            else:
                stated, half = target.value, target.half
            low, high = _window(stated, half, target.bound)
            shown = values.values
            for i, j in values.pairs(op, low, high, ordered):
                if self.wanted is not None and not (self.wanted[i] or self.wanted[j]):
                    continue
                if additive:
                    if 0 < min(abs(shown[i]), abs(shown[j])) < half:
                        continue  # an operand below the result's precision changes nothing
                    if self.derived and (
                        self.keys[j] in self.sources[i] or self.keys[i] in self.sources[j]
                    ):
                        continue  # (a - b) + b is a again: no support a has not given
                if written and self._misread(i, j):
                    continue  # every scale is known, or one disagrees with the result's
                if not self._allowed(
                    op, i, j, percent_target, coarse, zero, beside, dated, same_units
                ):
                    continue
                if ops.one_figure(self.pool[i], self.pool[j]):
                    continue  # "$3.8 million" and 3,777 thousand: their gap is rounding
                measured = self._measure(op, i, j, written, False)
                if measured is None or not target.meets_value(op, written, *measured):
                    continue
                value, slack = measured
                outcome: Outcome | None = None
                if slack <= _SLACK_SHARE * abs(value):
                    outcome = ops.evaluate(op, (self.pool[i], self.pool[j]), written=written)
                    if outcome is None:
                        return  # (as the first hit ends the search of `op`)
                    yield outcome
                    continue
                if self.has_precise[i] or self.has_precise[j]:
                    # Rounded operands blur it: at the evidence values they stand for?
                    measured = self._measure(op, i, j, written, True)
                    if (
                        measured is not None
                        and _informative(*measured)
                        and target.meets_value(op, written, *measured)
                    ):
                        outcome = ops.evaluate(
                            op, (self.pool[i], self.pool[j]), written=written, precise=True
                        )
                        if outcome is None:
                            return
                        yield outcome

    def crowd(
        self,
        op: str,
        target: Target,
        percent_target: bool,
        coarse: bool,
        zero: bool,
        tiers: Sequence[int],
        tier: int,
    ) -> int:
        """How many pairs the search would take, in any reading, give a value within a
        factor `SPREAD` of the target: the neighbourhood a hit of `op` is one of. Only
        pairs as close to the result as the hit's count (`tiers` of the operands, the
        pair's the weaker of its two, at most `tier`)."""
        if not self._has_kinds(op, percent_target):
            return 0
        ordered = op in ops.ORDERED or op == ops.PRODUCT
        beside = op in (ops.DIFF, ops.CHANGE)
        same_units = op in (ops.DIFF, ops.SUM, ops.MEAN)
        reread = target.value != target.written or self.rescaled
        near: set[tuple[int, int]] = set()  # a pair is one candidate, in any reading
        for written in (False, True) if reread else (False,):
            stated = target.written if written or op in ops.SCALE_FREE else target.value
            low, high = stated / SPREAD, stated * SPREAD
            for i, j in set(self._sorted(written).pairs(op, low, high, ordered)):
                if self.wanted is not None and not (self.wanted[i] or self.wanted[j]):
                    continue
                if self.tier(i, j, tiers) > tier:
                    continue
                if written and self._misread(i, j):
                    continue
                if not self._allowed(
                    op, i, j, percent_target, coarse, zero, beside, op == ops.CHANGE, same_units
                ):
                    continue
                measured = self._measure(op, i, j, written, False)
                if measured is not None and low <= measured[0] <= high:
                    near.add((i, j))
        return len(near)

    def tier(self, i: int, j: int, tiers: Sequence[int]) -> int:
        """How close a pair is to the result: the weaker of its operands' `tiers`, but
        a report number and the evidence cell beside its match (the same line's other
        period) as close as the report number."""
        report = self.report
        if report[i] != report[j] and _beside(self.entry[i], self.entry[j]):
            return tiers[i] if report[i] else tiers[j]
        if report[i] and report[j] and min(tiers[i], tiers[j]) == 0:
            return 1  # a number of the result's sentence and one the report states
        return max(tiers[i], tiers[j])

    def _has_kinds(self, op: str, percent_target: bool) -> bool:
        """Two numbers of the kinds `op` takes are in the pool (two percentages for
        points or a sum of rates, two amounts for a share, a rate and an amount for a
        product)."""
        rates = self.rates
        amounts = len(self.percent) - rates
        if op in (ops.DIFF, ops.SUM, ops.MEAN):
            return (rates if percent_target else amounts) >= 2
        if op == ops.PRODUCT:
            return not percent_target and rates >= 1 and amounts >= 1
        if op == ops.RATIO and percent_target:
            return False
        return rates >= 2 or amounts >= 2

    def _sorted(self, written: bool) -> _Sorted:
        """The pool's values in one reading, sorted once for every operation."""
        found = self._sorts.get(written)
        if found is None:
            found = self._sorts[written] = _Sorted(self.written if written else self.full)
        return found

    def _allowed(
        self,
        op: str,
        i: int,
        j: int,
        percent_target: bool,
        coarse: bool,
        zero: bool,
        beside: bool,
        dated: bool,
        same_units: bool,
    ) -> bool:
        percent = self.percent
        if same_units:
            if percent[i] != percent[j] or percent[i] != percent_target:
                return False
        elif op == ops.PRODUCT:
            if percent_target or not percent[i] or percent[j]:
                return False
        elif op == ops.RATIO:
            if percent_target or percent[i] != percent[j]:
                return False
        elif not percent_target or percent[i] != percent[j]:
            return False  # a share or a change is a percentage of like numbers
        if self.full[i] == self.full[j] and not zero and op not in (ops.SUM, ops.MEAN):
            return False  # a number against itself: 0, or 1, or 100%
        if dated and self.year[i] and self.year[j] and self.year[i] <= self.year[j]:
            return False  # the base is the earlier year
        return _cited_enough(
            self.cited[i],
            self.cited[j],
            _beside(self.entry[i], self.entry[j]),
            self.item[i] == self.item[j],
            beside,
            coarse,
            self.named,
        )

    def _measure(
        self, op: str, i: int, j: int, written: bool, precise: bool
    ) -> tuple[float, float] | None:
        if written:
            a, b = self.written[i], self.written[j]
            half_a, half_b = self.written_half[i], self.written_half[j]
            if precise:
                operands = (self.pool[i], self.pool[j])
                return ops.measure(op, operands, True, True)
        elif precise:
            a, b = self.exact[i], self.exact[j]
            half_a = 0.0 if self.has_precise[i] else self.half[i]
            half_b = 0.0 if self.has_precise[j] else self.half[j]
        else:
            a, b = self.full[i], self.full[j]
            half_a, half_b = self.half[i], self.half[j]
        if op == ops.DIFF:
            return abs(a - b), half_a + half_b
        if op == ops.SUM:
            return abs(a + b), half_a + half_b
        if op == ops.MEAN:
            return abs(a + b) / 2, (half_a + half_b) / 2
        if not b:
            return None
        if op == ops.PRODUCT:
            return ops.measure(op, (self.pool[i], self.pool[j]), written, precise)
        size_a, size_b = abs(a), abs(b)
        if op == ops.SHARE:
            value = size_a / size_b * 100
            return value, (
                value * (half_a / size_a + half_b / size_b) if a else 100 * half_a / size_b
            )
        if op == ops.CHANGE:
            value = abs(a - b) / size_b * 100
            return value, 100 * (half_a + half_b) / size_b + value * half_b / size_b
        value = size_a / size_b  # RATIO
        return value, (value * (half_a / size_a + half_b / size_b) if a else half_a / size_b)


def _informative(value: float, slack: float) -> bool:
    return slack <= _SLACK_SHARE * abs(value)


# An outcome its operands' rounding can move by more than this share of itself says
# nothing at the target's precision ("0.1% - 0.1%" is anything from -0.1 to 0.1).
_SLACK_SHARE = 0.1
SPREAD = 3.0  # outcomes within this factor of a result make its neighbourhood
