"""What a derivation of the closed search (:mod:`._derive`) takes from the rows the
claim's sentence states: a row's cell in place of the one its sentence gives (a conflict,
the stated figure's period mixed up), or a step of the same computation."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from validation.engine.checks.numeric._derive_pool import STATED, Operand, around
from validation.engine.checks.numeric._matching import Claim


def conflict_of(
    used: Sequence[Operand | str], operands: Sequence[Operand]
) -> tuple[Operand, Operand] | tuple[()] | None:
    """(stated, cell): the derivation takes a row's cell whose part the sentence gives another
    ("from $59 million", the row's 67); (): the row's cells stated only in other parts."""
    cells = [operand for operand in used if isinstance(operand, Operand)]
    found: list[tuple[Operand, Operand]] = []
    other_part = False
    for cell in cells:
        beside = [u for u in cells if u.strength == STATED and u.row == cell.row >= 0]
        if cell.strength == STATED or not beside:
            continue  # the result is of the row's periods only when its stated operand is too
        for stated in operands:
            if stated.strength != STATED:
                break
            if stated.row == cell.row and stated not in cells:
                side = (stated.column - beside[0].column) * (cell.column - beside[0].column)
                found += [(stated, cell)] if side > 0 else []
                other_part = other_part or side < 0
    return (found[0] if len(found) == 1 else None) if found else (() if other_part else None)


def computed_step(stated: Operand, cells: Sequence[Operand]) -> bool:
    """The stated number is the difference or the sum of two of the cells ("down $1,011
    million ... about 13.5%" over 7,500 and 6,489): when its own cell is of no period (a
    change column), a step of the same computation, not a figure in another period's place."""
    for first, second in combinations(cells, 2):
        for value in (abs(first.value - second.value), first.value + second.value):
            if value and any(
                abs(stated.value - value * scale) <= abs(stated.value) * 1e-3
                for scale in (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9)
            ):
                return True
    return False


def displaced_row(cells: Sequence[Operand], operands: Sequence[Operand]) -> int:
    """The derivation takes a row's cell that the sentence does not state, while the
    sentence states the row's other cell and takes no number of that row: "worth $13.1
    million, about 22.8% of $36.0 million" explained by the row's 8.2 beside the 13.1.
    Unless its words name another period, that is the stated figure's period mixed up.
    The row, or -1."""
    for cell in cells:
        if cell.strength == STATED or cell.row < 0:
            continue
        if any(used.strength == STATED and used.row == cell.row for used in cells):
            continue
        for stated in operands:
            if stated.strength != STATED:
                break
            if stated.row == cell.row and stated not in cells:
                return cell.row
    return -1


def stated_cells(claims: Sequence[Claim], position: int, low: int, high: int) -> int:
    """How many other numbers of the sentence match an evidence cell."""
    return sum(
        1
        for at in around(position, len(claims))
        if claims[at].hit is not None and low <= claims[at].mention.start < high
    )


def beside_in(claims: Sequence[Claim], position: int, low: int, high: int) -> Iterator[Claim]:
    """The other claims of the sentence from `low` to `high`, in a window around it."""
    for at in around(position, len(claims)):
        if low <= claims[at].mention.start < high:
            yield claims[at]


def apart(claims: Sequence[Claim], position: int, at: int, used: frozenset[int]) -> bool:
    """Another number stands between the result and the stated number, and the result's
    derivation does not take it: the stated number belongs to another clause's result,
    not in the place of this one's operand."""
    low, high = sorted((position, at))
    return any(claims[between].index not in used for between in range(low + 1, high))
