"""Shares taken over a result the report itself derives (:mod:`._derive_candidates`'s second
look): a number the sentence states over the change between two cells of one period's
lines ("the write-down explains 62% of the decline" from the opening to the closing
balance). They join the second look's neighbourhood, so a hit among
them is weighed against every other such share and taken only when it is rare."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from validation.engine.checks.numeric._derive_pool import STATED, Operand

# (tier, value, a format of its formula, operation, the operands' texts), as `Candidate`
_Candidate = tuple[float, float, str, str, tuple["Operand | str", ...]]

# A part explains between a hundredth of a change and ten times it (other parts offset);
# a share outside that is a number of another order read against the change.
_LEAST, _MOST = 1.0, 1000.0
_MAX_LINE = 12  # a column of more cells than this gives no changes (bounded search)


def shares_of_changes(
    operands: Sequence[Operand], kind: str, tier_of: Callable[[Operand, Operand], int]
) -> list[_Candidate]:
    """A number stated in the sentence over the change between two cells of one column of one
    evidence item (a period's opening and closing lines), as a percentage: the share of that
    change it explains.
    At the tier (`tier_of`) of the stated number and the stronger cell, never below 1."""
    if kind != "percent":
        return []
    parts = [operand for operand in operands if operand.strength == STATED and operand.value]
    if not parts:
        return []
    lines: dict[tuple[int, int], list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0 and operand.column >= 0 and not operand.repeat:
            lines.setdefault((operand.item, operand.column), []).append(operand)
    found: list[_Candidate] = []
    for (item, column), cells in lines.items():
        if len(cells) > _MAX_LINE:
            continue
        # A cell of the table explains the change of its own column only (a movement of the
        # period between its opening and closing lines), never another period's.
        mine = [part for part in parts if part.item != item or part.column in (column, -1)]
        for at, first in enumerate(cells):
            for second in cells[at + 1 :]:
                if not _one_quantity(first, second):
                    continue
                step = abs(first.value - second.value)
                best = first if first.strength >= second.strength else second
                for part in mine:
                    if part is first or part is second:
                        continue
                    tier = max(1, tier_of(part, best))
                    formula = f"{part.text} / ({first.text} - {second.text}) * 100"
                    value = abs(part.value) / step * 100
                    if not _LEAST <= value <= _MOST:
                        continue  # a part of another order than the change: no share of it
                    found.append((tier, value, formula, "share of a change", ()))
    return found


def _one_quantity(first: Operand, second: Operand) -> bool:
    """Two cells that can be the two ends of one change: written in one unit and at one
    scale, of one sign, neither ten times the other (a level and a column of changes or
    of rates beside it are no such pair), and not equal."""
    if first.unit != second.unit or first.digits != second.digits:
        return False
    low, high = sorted((abs(first.value), abs(second.value)))
    return first.value * second.value > 0 and low != high and low * _SPREAD >= high


_SPREAD = 10.0
