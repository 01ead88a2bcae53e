"""A sum the report states, taken in another period, for the derived search's operands
(:mod:`._derive_pool`).

A writer who adds up lines for one period and then compares the total with another
period adds up the same lines there: "Monetary liabilities in other currencies totalled
about RMB20,471 million, up about 46.0% on the prior year" sums the prior year's two
lines too, and "USD assets came to RMB28,101 million, current and non-current combined.
That is up about 35.9% from RMB20,683 million a year earlier" writes that second sum
out. Neither sum is a cell, so the search is given it as one operand: the stated sum's
lines in another column of their rows (a table's other period), or in the rows that
repeat their labels further down the same table (a balance sheet's block "As at 31
December 2018" under the block of 2019).

A stated result counts as a sum only when its cells, each in its own line, add up to it
exactly: which operation the writer named is read from the numbers, not the formula.
"""

from __future__ import annotations

from collections.abc import Sequence

from validation.engine.checks.numeric._derive_carried import _PRIOR
from validation.engine.checks.numeric._derive_finer import in_full_units
from validation.engine.checks.numeric._derive_pool import (
    NEAR,
    Operand,
    _evidence_operand,
    _rows,
    around,
)
from validation.engine.checks.numeric._derive_rows import (
    MAX_GROUP,
    _Rows,
    cell_at,
    cells_of,
    same_label_rows,
)
from validation.engine.checks.numeric._derive_sections import summed
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim

_MAX_MOVED = 6  # sums in other periods offered for one stated sum
_MAX_SHIFTS = 2  # blocks of repeated labels read (the periods before and after)


def sums_in_other_periods(
    claims: Sequence[Claim],
    position: int,
    index: EvidenceIndex,
    units: dict[int, float],
    sentence: tuple[int, int],
    previous: tuple[int, int],
    words: str,
) -> list[Operand]:
    """The other periods' sums of the lines the claim's sentence sums in a result it
    states, and, where the sentence names the period before ("a year earlier"), of those
    the sentence before it sums."""
    rows = _rows(index)
    prior = previous[0] < previous[1] and _PRIOR.search(words) is not None
    found: list[Operand] = []
    for at in around(position, len(claims)):
        other = claims[at]
        start = other.mention.start
        if other.hit is not None or other.derivation is None:
            continue
        if sentence[0] <= start < sentence[1] or (prior and previous[0] <= start < previous[1]):
            found += moved_sums(other, index, rows, units)
    return found


def moved_sums(
    claim: Claim, index: EvidenceIndex, rows: _Rows, units: dict[int, float]
) -> list[Operand]:
    """The sums, in other periods, of the lines a stated result sums: none when it is no
    plain sum of cells of two or more lines."""
    derivation = claim.derivation
    if derivation is None or claim.mention.is_percent or len(derivation.entries) < 2:
        return []
    value = in_full_units(float(derivation.value), float(claim.mention.value))
    cells = [
        _evidence_operand(index, rows, units, entry, NEAR)
        for entry in cells_of(index, derivation.entries)
    ]
    lines = [cell.row for cell in cells]
    if min(lines) < 0 or len(set(lines)) < len(lines) or any(cell.percent for cell in cells):
        return []
    total = sum(abs(cell.value) for cell in cells)
    if abs(total - abs(value)) > 1e-6 * max(1.0, total):
        return []  # not a sum of its cells (a difference, an average, a share)
    places: list[list[int | None]] = []
    columns = {cell.column for cell in cells}
    if len(columns) == 1:
        (column,) = columns
        for other in range(MAX_GROUP):
            if other != column:
                places.append([cell_at(rows, line, other) for line in lines])
    for shift in _block_shifts(index, rows, lines):
        places.append([cell_at(rows, cell.row + shift, cell.column) for cell in cells])
    found: list[Operand] = []
    for place in places:
        entries = [entry for entry in place if entry is not None]
        if len(entries) < len(place):
            continue  # a line without a cell there: no sum of the same lines
        moved = [_evidence_operand(index, rows, units, entry, NEAR) for entry in entries]
        if any(cell.percent for cell in moved):
            continue
        found.append(summed(moved, NEAR))
        if len(found) >= _MAX_MOVED:
            break
    return found


def _block_shifts(index: EvidenceIndex, rows: _Rows, lines: Sequence[int]) -> list[int]:
    """How far down (or up) the table every line's label is written again, the same
    distance for all of them: another block of the same lines (a table whose lines
    alternate labels may map one of the sum's lines onto another: no block)."""
    shifts: set[int] | None = None
    for line in lines:
        own = {other - line for other in same_label_rows(index, rows, line)}
        shifts = own if shifts is None else shifts & own
        if not shifts:
            return []
    # Another block: none of its lines is one of the stated sum's own.
    apart = [shift for shift in shifts or () if not {line + shift for line in lines} & set(lines)]
    return sorted(apart, key=abs)[:_MAX_SHIFTS]
