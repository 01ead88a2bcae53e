"""Which cells of a row are one quantity over several periods, for the closed search's
sums and averages (:mod:`._derive_candidates`) and its bound (:mod:`._derive_bound`): cells
of one unit, no column of changes between two of them; and which bare cells a rate
averaged over its row may be."""

from __future__ import annotations

from collections.abc import Sequence

from validation.engine.checks.numeric._derive_pool import Operand


def bare_rate(operand: Operand) -> bool:
    """A cell a rate averaged over its row may be written as, bare ("3.7 | 3.7 | 1.6" of a
    rate reconciliation): unscaled, and a value a rate may take."""
    return (
        not operand.percent
        and operand.row >= 0
        and operand.digits == 1.0
        and abs(operand.value) <= 100
    )


def like_cells(cells: Sequence[Operand]) -> list[Operand]:
    """The cells of a row (in column order) that are one quantity in several periods:
    those of the first cell's unit, without a column of changes between two of them.
    "1418 | 80 | $15 | $25" (an address, seats, prices) has no two like cells."""
    if not cells:
        return []
    unit = cells[0].unit
    # A table writes the currency once, in its first column ("$9.0 | 12.2 | 12.8").
    currency = unit not in _NOT_CURRENCY
    same = [cell for cell in cells if cell.unit == unit or (currency and not cell.unit)]
    kept: list[Operand] = []
    for at, cell in enumerate(same):
        if 0 < at < len(same) - 1 and _is_change(cell, same[at - 1], same[at + 1]):
            continue
        kept.append(cell)
    return kept


_NOT_CURRENCY = frozenset(("", "%", "pp", "bp", "x"))


def _is_change(cell: Operand, before: Operand, after: Operand) -> bool:
    difference = abs(abs(before.value) - abs(after.value))
    return bool(difference) and abs(abs(cell.value) - difference) <= 1e-6 * difference
