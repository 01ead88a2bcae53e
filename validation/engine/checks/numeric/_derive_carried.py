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

from validation.engine.checks.numeric._derive_rows import MAX_GROUP, _Rows, cell_at, same_label_rows
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim

_MAX_TWINS = 3  # rows of the same label taken for each stated row
# Words naming the period before ("a year earlier", "the prior year").
_PRIOR = re.compile(
    r"(?i)\b(?:prior|previous|preceding|last) year\b|\ba year (?:earlier|ago|before)\b|"
    r"\bthe year before\b"
)


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
    if low >= high or _PRIOR.search(words) is None:
        return []
    found: list[int] = []
    for claim in claims:
        hit = claim.hit
        if hit is None or not low <= claim.mention.start < high:
            continue
        entry = hit.number.entry
        if index.is_mantissa(entry) and entry > 0:
            entry -= 1  # the scaled twin stands before its digits
        row, column = rows.row_of.get(entry, -1), rows.column_of.get(entry, -1)
        if row < 0 or not rows.tokens[row]:
            continue
        found += rows.cells[row][:MAX_GROUP]
        twins = [
            cell
            for other in same_label_rows(index, rows, row)
            if (cell := cell_at(rows, other, column)) is not None
        ]
        found += twins[:_MAX_TWINS]
    return found
