"""The candidates of the closed derived search (:mod:`._derive`): every value an analyst
could have computed from the operands (:mod:`._derive_pool`), tier by tier of how
strongly the operands are the writer's.

A pair gives a difference, sum, average, ratio or per-unit value (amounts), the product
of a count and a price per unit (two cells of one row, or two numbers of the sentence), a share,
percentage change or compound rate (percentages of amounts), a change in points or an
average (percentages), and a swing across zero of two rates the report states, one written
negative (their magnitudes added). A row gives the sum and average of its like cells (its periods:
one unit, no column of changes); a list of stated numbers the same. Within a tier, the
candidates whose operation fits how their cells lie (``_fits``) come first.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import chain

from validation.engine.checks.numeric._derive_columns import Candidate as Candidate
from validation.engine.checks.numeric._derive_columns import column_sums
from validation.engine.checks.numeric._derive_composed import shares_of_changes
from validation.engine.checks.numeric._derive_like import _NOT_CURRENCY, bare_rate, like_cells
from validation.engine.checks.numeric._derive_means import undoes
from validation.engine.checks.numeric._derive_pool import (
    BESIDE,
    NAMED,
    NEAR,
    STATED,
    Operand,
)
from validation.engine.checks.numeric._derive_rows import MAX_GROUP

TIERS = 8
WRITERS = 2  # tiers 0..2: operands stated in the sentence, or in those numbers' rows
_GROUP_TIER = {STATED: 0, NEAR: 2, NAMED: 3, BESIDE: 7}


def candidates(
    operands: Sequence[Operand],
    kind: str,
    periods: Sequence[int],
    direction: int,
    only: frozenset[str] = frozenset(),
    compound: bool = False,
    years: frozenset[int] = frozenset(),
    span: bool = False,
    based: bool = False,
) -> Iterator[Candidate]:
    """(tier, value, formula, operation, its operands) for every candidate, tier by tier. A change
    whose words say a rise (`direction` 1) or a fall (-1) is taken on that base only;
    `based`: the words name the base of a share themselves ("13.9% of the reported
    balance"), so a stated change over the level it reached is a share as well.
    `compound`: a row's change over another's too (more candidates: a second look).
    `years`: the years the sentence names (a pair of cells of none of them fits less).
    `span`: the sentence names a span of three periods or more ("over fiscal 2017-2019"):
    an average there is of every period of it, never of two values."""
    amounts = [operand for operand in operands if not operand.percent]
    percents = [operand for operand in operands if operand.percent]
    # Points are a difference of rates, whether or not the evidence writes a % sign.
    # An amount from an average and one of its values gives back a value the evidence
    # holds (which a figure may restate); a rate or a multiple of the two is no reading.
    chosen = _by_tier(amounts if kind != "points" else operands, undo=kind != "amount")
    points = _by_tier(percents, undo=True) if kind == "percent" else None
    ends = _ends(amounts)
    changes = row_changes(amounts, kind) if compound and kind in ("percent", "multiple") else []
    bare = [operand for operand in amounts if bare_rate(operand)]
    for tier in range(TIERS):
        gap = kind == "points"
        found = _pairs(chosen[tier], amounts, kind, tier, periods, direction, based, gap)
        if points is not None:
            found = chain(found, _pairs(points[tier], percents, "points", tier, periods, 0))
        if kind == "amount":
            found = chain(found, _groups(amounts, tier))
        elif kind in ("percent", "points"):
            found = chain(found, _groups(percents, tier, averages=True, bare=bare))
        if changes:
            found = chain(found, (change for change in changes if change[0] == tier))
        if only:
            found = (candidate for candidate in found if candidate[3] in only)
        if span:
            found = (c for c in found if c[3] != "average" or len(c[4]) != 2)
        # Within a tier, the candidates whose operation fits how their cells lie first.
        unfit: list[Candidate] = []
        # A pair's candidates come one after another: how its cells lie is read once.
        held: tuple[Operand | str | None, Operand | str | None] = (None, None)
        lie = _ANY
        for candidate in found:
            used = candidate[4]
            if not used:
                yield candidate
                continue
            first, second = held
            size = len(used)
            if not (
                1 < size <= 3
                and (
                    (used[0] is first and used[1] is second)
                    or (used[0] is second and used[1] is first)
                )
                and (size == 2 or not isinstance(used[2], Operand))
            ):
                lie = _lie(used, years, ends)
                held = (used[0], used[1]) if _two_cells(used) else (None, None)
            if lie == _ANY or (lie == _NOT_OVER_TIME and candidate[3] not in _OVER_TIME):
                yield candidate
            else:
                unfit.append((tier + 0.5, *candidate[1:]))
        yield from unfit


def _ends(operands: Sequence[Operand]) -> dict[int, list[float]]:
    """Each row's cell values, to tell whether a cell is an end of a stated change."""
    ends: dict[int, list[float]] = {}
    for operand in operands:
        if operand.row >= 0:
            ends.setdefault(operand.row, []).append(abs(operand.value))
    return ends


def _is_end(change: Operand, cell: Operand, ends: dict[int, list[float]]) -> bool:
    """The cell and another of its row differ by the stated change."""
    step = abs(change.value)
    tolerance = max(step * 0.01, change.digits * 0.5)
    level = abs(cell.value)
    return any(abs(abs(other - level) - step) <= tolerance for other in ends.get(cell.row, ()))


def _fits(
    operation: str,
    used: Sequence[Operand | str],
    years: frozenset[int],
    ends: dict[int, list[float]] | None = None,
) -> bool:
    """Does the operation fit how its two cells lie? Two periods of one line item (a row)
    fit any operation; two line items of one period (a column) fit all but a change over
    time or an average; cells of neither the same row nor the same column fit none; and where the
    sentence names years, two cells of none of them fit none ("3.7 times the 2019
    figure" takes a 2019 cell). A stated change fits over a cell only when the cell is
    an end of it; any other number without a cell (a result the report derives) fits
    whatever it is paired with."""
    lie = _lie(used, years, ends)
    return lie == _ANY or (lie == _NOT_OVER_TIME and operation not in _OVER_TIME)


_NONE, _ANY, _NOT_OVER_TIME = 0, 1, 2  # the operations two cells' places fit (`_lie`)


def _two_cells(used: Sequence[Operand | str]) -> bool:
    """Two cells first and nothing but words after them (a pair, a compound rate's)."""
    return (
        1 < len(used) <= 3
        and isinstance(used[0], Operand)
        and isinstance(used[1], Operand)
        and (len(used) == 2 or not isinstance(used[2], Operand))
    )


def _lie(
    used: Sequence[Operand | str],
    years: frozenset[int],
    ends: dict[int, list[float]] | None,
) -> int:
    """Which operations the places of the two cells fit (`_fits`): any, none, or all
    but those over time. The same whichever cell comes first."""
    first = used[0] if len(used) == 2 else None
    second = used[1] if len(used) == 2 else None
    if not (isinstance(first, Operand) and isinstance(second, Operand)):
        # Not simply a pair's two cells (the common case, read without a list).
        cells = [operand for operand in used if isinstance(operand, Operand)]
        if len(cells) != 2:
            return _ANY
        first, second = cells
    if ends is not None:
        change, cell = (first, second) if first.row <= second.row else (second, first)
        if change.change and change.row < 0 <= cell.row and not _is_end(change, cell, ends):
            return _NONE  # a stated change over a level that is no end of it
    if first.row < 0 or second.row < 0:
        return _ANY
    if first.year and second.year and years and not {first.year, second.year} & years:
        return _NONE
    return _place_lie(first, second)


def _place_lie(first: Operand, second: Operand) -> int:
    """How two cells lie (`_lie`), through any cell of their values (`Operand.also`)."""
    best = _NONE
    theirs = [(second.row, second.column, second.item), *second.also]
    for row, column, item in ((first.row, first.column, first.item), *first.also):
        if row >= 0 and any(row == other[0] for other in theirs):
            return _ANY
        if column >= 0 and any((column, item) == other[1:] for other in theirs):
            best = _NOT_OVER_TIME
    return best


# What two line items of one period do not make: a change over time, and an average (an
# average is of one quantity over periods, or of a list the words give).
_OVER_TIME = frozenset(("percent change", "CAGR", "average"))


def _by_tier(
    operands: Sequence[Operand], undo: bool = False
) -> list[list[tuple[Operand, Operand]]]:
    """Every pair of operands, by its tier (each pair's tier worked out once); with `undo`,
    none of a derived result and one of its own cells (`_undoes`)."""
    tiers: list[list[tuple[Operand, Operand]]] = [[] for _ in range(TIERS)]
    operands = [operand for operand in operands if not operand.repeat]  # its twin pairs
    for i, first in enumerate(operands):
        for second in operands[i + 1 :]:
            if (undo and _undoes(first, second)) or one_figure(first, second):
                continue
            tiers[_tier(first, second)].append((first, second))
    return tiers


def one_figure(first: Operand, second: Operand) -> bool:
    """The two are one figure written at two scales, the coarser a rounding of the finer
    ("$9.54 billion" of the prose, 9,538.4 of a table in millions): no analyst takes their
    difference, ratio or sum; what they give is rounding noise."""
    if first.digits == second.digits or first.percent or second.percent:
        return False
    coarse = first if first.digits > second.digits else second
    return abs(first.value - second.value) <= written_half(coarse)


def written_half(operand: Operand) -> float:
    """Half a unit of the last digit an operand is written with, in full units ("$24.2
    million": 50,000), a hair wide so a float's last bit never falls outside."""
    decimals = _DECIMALS.search(operand.text)
    places = len(decimals.group(1)) if decimals else 0
    return operand.digits * 0.5 * 10.0**-places * 1.000001


_DECIMALS = re.compile(r"\d\.(\d+)")


def _undoes(first: Operand, second: Operand) -> bool:
    """An average the report derives paired with one of its own values: their ratio or
    change is half the values' own, no reading an analyst makes (a stated change over one
    of its ends is one: a percentage change)."""
    return undoes(first, second)  # (or a change between its values: `_derive_means`)


def _tier(first: Operand, second: Operand) -> int:
    """How strongly a pair of operands is the writer's: 0 both stated in the claim's
    sentence; 1 one stated in it and the other a cell of its row (another period of its
    line item) or of its column (another line item of its period); 2 both near it
    (stated in it, or in the rows of those numbers or of its own label); 3 one near and
    the other in its row or column or stated elsewhere in the report, or a number the
    report states and a named cell of its row or column; 4 two cells of one row or
    column the sentence names (a line item's two periods, a line and its period's
    total); 5 one of them named by the sentence; 6 neither; 7 neither named, or one of
    a row only a result stated elsewhere was computed from (`Operand.far`)."""
    weaker, stronger = first.strength, second.strength
    if first.far or second.far:
        return 7  # a row only a result stated elsewhere was computed from
    if weaker > stronger:
        weaker, stronger = stronger, weaker
    if weaker == STATED:
        return 0
    linked = _place_lie(first, second) != _NONE
    if stronger == STATED and linked:
        return 1
    if weaker >= NEAR:
        return 2
    reported = first.reported or second.reported
    if stronger >= NAMED and linked and (stronger >= NEAR or reported):
        return 3
    if stronger >= NEAR and reported:
        return 4
    if weaker >= NAMED and linked:
        return 5
    return 6 if stronger >= NAMED else 7


def _pairs(
    pairs: Sequence[tuple[Operand, Operand]],
    operands: Sequence[Operand],
    kind: str,
    tier: int,
    periods: Sequence[int],
    direction: int,
    based: bool = False,
    gap: bool = False,  # written as points: a rate it names may cross zero from a stated one
) -> Iterator[Candidate]:
    if not pairs:
        return
    values = sorted(abs(operand.value) for operand in operands)
    for first, second in pairs:
        a, b = first.value, second.value
        ta, tb = first, second
        if kind == "amount":
            yield tier, abs(a - b), "{} - {}", "difference", (ta, tb)
            yield tier, abs(a + b), "{} + {}", "sum", (ta, tb)
            yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
            if b:
                yield tier, abs(a / b), "{} / {}", "per unit", (ta, tb)
            if a:
                yield tier, abs(b / a), "{} / {}", "per unit", (tb, ta)
            if tier == 0 or first.row == second.row >= 0:
                for count, price in ((first, second), (second, first)):
                    if is_count(count) and is_price(price):
                        value = abs(
                            count.value * price.value / (price.digits or 1.0)
                        )  # cents as written
                        yield tier, value, "{} * {}", "product", (count, price)
        elif kind == "multiple":
            if b:
                yield tier, abs(a / b), "{} / {}", "multiple", (ta, tb)
            if a:
                yield tier, abs(b / a), "{} / {}", "multiple", (tb, ta)
        elif kind == "points":
            yield tier, abs(a - b), "{} - {}", "points", (ta, tb)
            yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
            if first.negative != second.negative and _written_or_named(first, second, gap):
                # a gap across zero from a rate the report states: 7.6% after (2.3)%, "the
                # rate was negative 48.3%, some 83.3 points below the statutory 35.0%"
                yield tier, abs(a) + abs(b), "{} + {}", "points", (ta, tb)
        elif kind == "percent":
            for top, bottom, tt, tb_, part in (
                (a, b, ta, tb, first),
                (b, a, tb, ta, second),
            ):
                if not bottom:
                    continue
                if based or not (part.change and _wrong_base(top, bottom, direction, values)):
                    yield tier, abs(top / bottom * 100), "{} / {} * 100", "share", (tt, tb_)
                change = (top - bottom) / bottom * 100
                if direction * change < 0:
                    continue  # "up 15.3%" is never a change taken from the later value
                yield tier, abs(change), "({0} - {1}) / {1} * 100", "percent change", (tt, tb_)
                if top / bottom > 0:
                    for n in _periods(first, second, periods):
                        rate = ((top / bottom) ** (1 / n) - 1) * 100
                        formula = "(({} / {}) ^ (1 / {}) - 1) * 100"
                        yield tier, abs(rate), formula, "CAGR", (tt, tb_, str(n))


def is_price(operand: Operand) -> bool:
    """A value per unit: an amount of a currency written to the cent and nothing after it
    ("$68.97"; not "$1.25 billion", not a table's 4,120)."""
    return (
        not operand.percent
        and operand.unit not in _NOT_CURRENCY
        and _CENTS.fullmatch(operand.text.strip()) is not None
    )


_CENTS = re.compile(r"[^\d\s]{0,3}\s?\d[\d,]*\.\d\d")  # "$68.97", "US$ 4.10"


def is_count(operand: Operand) -> bool:
    """A number of units: an amount with no unit at all (shares, seats, tons)."""
    return not operand.percent and not operand.unit


def _wrong_base(change: float, base: float, direction: int, values: Sequence[float]) -> bool:
    """A rise of `change` taken over the level it rose *to* (or a fall over the level it
    fell to): the other end of the change is among the operands, on the wrong side."""
    if not direction:
        return False
    wrong = abs(base) - direction * abs(change)
    right = abs(base) + direction * abs(change)
    tolerance = abs(change) * 0.01
    position = bisect_left(values, wrong - tolerance)
    if position >= len(values) or values[position] > wrong + tolerance:
        return False
    position = bisect_left(values, right - tolerance)
    return position >= len(values) or values[position] > right + tolerance


def _periods(first: Operand, second: Operand, named: Sequence[int]) -> list[int]:
    """The periods a compound rate between two values is over: the span of the years
    its sentence names; two cells of one row span the columns between them, and
    with years named they must span one of those."""
    found = [n for n in named if n > 1]
    if first.row >= 0 and first.row == second.row:
        distance = abs(first.column - second.column)
        if found:
            return [distance] if distance in found else []
        return [distance] if distance > 1 else []
    return found


def _groups(
    operands: Sequence[Operand], tier: int, averages: bool = False, bare: Sequence[Operand] = ()
) -> Iterator[Candidate]:
    """Sums and averages of three or more: a row's periods, a list. Only like cells are
    summed: of one unit, and no column of changes (a cell that is the difference of its
    neighbours): "80 seats" and "$15" are never added up. `averages`: averages only.
    `bare`: cells of rates written bare, for the rows' averages (never the list's)."""
    groups: dict[tuple[str, int], list[Operand]] = {}
    for operand in [*operands, *bare]:
        if operand.row >= 0:
            groups.setdefault(("row", operand.row), []).append(operand)
    if tier == 0:
        near = [operand for operand in operands if operand.strength == STATED]
        if len(near) >= 3:
            groups[("list", 0)] = near
    for (kind, _), members in groups.items():
        strongest = max(member.strength for member in members)
        if kind == "row" and tier != _GROUP_TIER[strongest]:
            continue
        if kind == "row":
            members = like_cells(sorted(members, key=lambda operand: operand.column))
        for size in range(3, min(len(members), MAX_GROUP) + 1):
            chosen = members[:size]
            total = sum(member.value for member in chosen)
            written = " + ".join(member.text for member in chosen)
            if not averages:
                yield tier, abs(total), written, "sum", ()
            yield tier, abs(total) / size, f"({written}) / {size}", "average", ()
    if not averages:
        yield from column_sums(operands, tier, _GROUP_TIER)


def _written_or_named(first: Operand, second: Operand, gap: bool) -> bool:
    """Both rates are the report's, or, for a gap in points, one is and its sentence
    names the other's row."""
    if first.reported and second.reported:
        return True
    return gap and (
        (first.reported and second.strength >= NAMED)
        or (second.reported and first.strength >= NAMED)
    )


def row_changes(operands: Sequence[Operand], kind: str) -> list[Candidate]:
    """A change of one row over the same periods' change of another: "accounts for 84% of
    the increase" ((a1 - a2) / (b1 - b2), or over a change the report states), "grew 4.1
    times as much". The rows are taken
    whole (two cells of each, in the same columns of one evidence item); the pair's tier is
    that of their strongest cells, and never the sentence's own (tier 0). Every tier's, in
    one list (worked out once per search; `candidates` takes each tier's in turn)."""
    found: list[Candidate] = []
    rows: dict[tuple[int, int], list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0 and operand.column >= 0:
            rows.setdefault((operand.item, operand.row), []).append(operand)
    steps: dict[tuple[int, int, int], list[tuple[float, Operand, Operand, Operand]]] = {}
    for (item, _), cells in rows.items():
        cells = like_cells(sorted(cells, key=lambda operand: operand.column))
        strongest = max(cells, key=lambda operand: operand.strength, default=None)
        if strongest is None:
            continue
        for at, later in enumerate(cells):
            for earlier in cells[at + 1 : at + 1 + _STEP_COLUMNS]:
                step = later.value - earlier.value
                if step:
                    key = (item, later.column, earlier.column)
                    steps.setdefault(key, []).append((step, later, earlier, strongest))
    scale = 100.0 if kind == "percent" else 1.0
    stated = [operand for operand in operands if operand.change]  # "an increase of 65,400"
    for members in steps.values():
        for step, a1, a2, best in members:
            for change in stated:
                if change.value:
                    formula = f"({a1.text} - {a2.text}) / {change.text}"
                    if scale != 1.0:
                        formula += " * 100"
                    value = abs(step / change.value * scale)
                    tier = max(1, _tier(best, change))
                    found.append((tier, value, formula, "share of a change", ()))
        for first, second in ((a, b) for a in members for b in members if a is not b):
            part, a1, a2, a_best = first
            whole, b1, b2, b_best = second
            tier = max(1, _tier(a_best, b_best))
            formula = f"({a1.text} - {a2.text}) / ({b1.text} - {b2.text})"
            if scale != 1.0:
                formula += " * 100"
            found.append((tier, abs(part / whole * scale), formula, "share of a change", ()))
    return found + shares_of_changes(operands, kind, _tier)


_STEP_COLUMNS = 2  # a change is between a row's cell and one of the next two columns
