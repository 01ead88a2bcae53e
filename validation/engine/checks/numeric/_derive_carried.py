"""Operands a sentence carries over from the one before it, for the derived search
(:mod:`._derive_pool`).

"It comes to $16.4 million: $1.9 million finite-lived plus $14.5 million indefinite-lived.
The same pair totalled $17.2 million a year earlier." The second sentence states no number
of the evidence and names no line item: it speaks of the line items the sentence before it
states, in another period. So when a sentence that names another period ("a year earlier",
"the prior year") states no supported number and names no row, the cells of the rows the
previous sentence's numbers are cells of are its operands: those rows' other periods, and
the cells in the same column of the rows of their table with the same label (the same line
items in another period's section of the table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_rows import (
    MAX_GROUP,
    _Rows,
    cell_at,
    cells_of,
    same_label_rows,
)
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim

_MAX_TWINS = 3  # rows of the same label taken for each stated row
# Words naming the period before ("a year earlier", "the prior year").
_PRIOR = re.compile(
    r"(?i)\b(?:prior|previous|preceding|last) year\b|\ba year (?:earlier|ago|before)\b|"
    r"\bthe year before\b"
)
_YEAR = re.compile(r"\b(?:19|20)[0-9]{2}\b")  # a sentence naming a year names a period


def carried_over(
    claims: Sequence[Claim],
    previous: tuple[int, int],
    words: str,
    index: EvidenceIndex,
    rows: _Rows,
) -> list[int]:
    """The entries a sentence naming another period takes from the rows the previous
    sentence (`previous`, its bounds) states cells of; none when it names no other period."""
    low, high = previous
    if low >= high:
        return []
    # A sentence naming a year, not the period before, takes only the rows it shares a
    # word with ("The 2017 interest bill was ...": "Interest expense").
    shared = None if _PRIOR.search(words) else label_tokens(words)
    if shared is not None and (not shared or _YEAR.search(words) is None):
        return []
    found: list[int] = []
    for claim in claims:
        if not low <= claim.mention.start < high:
            continue
        for entry in _cells_stated(claim, index):
            row, column = rows.row_of.get(entry, -1), rows.column_of.get(entry, -1)
            if row < 0 or not rows.tokens[row]:
                continue
            if shared is not None and not shared & rows.tokens[row]:
                continue
            found += rows.cells[row][:MAX_GROUP]
            twins = [
                cell
                for other in same_label_rows(index, rows, row)
                if (cell := cell_at(rows, other, column)) is not None
            ]
            found += twins[:_MAX_TWINS]
    return found


def _cells_stated(claim: Claim, index: EvidenceIndex) -> tuple[int, ...]:
    """The evidence cells a number of the previous sentence stands for: the cell it
    restates, or the cells of the result it derives ("fell by $1,258 thousand": the
    line's two years)."""
    if claim.hit is not None:
        entries: tuple[int, ...] = (claim.hit.number.entry,)
    elif claim.derivation is not None:
        entries = tuple(claim.derivation.entries)
    else:
        return ()
    return cells_of(index, entries)
