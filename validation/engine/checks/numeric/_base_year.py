"""A level quoted from the year its own multiple names as the base, for the derived search
(:mod:`._derive`).

"Unbilled revenues reached $12.7 million, 2.5 times the 2018 figure": the multiple's words
name its base by its year, so the level stated beside it is not that year's figure. When
the multiple (or a change "on the 2018 level") is derived over the level's own row, the
stated level is the cell of the base year, and the row's other cell is the one the multiple
runs to, the writer quoted the base year's figure as the level: it is that other cell, and
the multiple is the proof. (Where the evidence leaves the cells' years unread, the shape
alone says it: the level the words make the multiple's subject is its base.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_pool import STATED, Operand
from validation.engine.checks.numeric._matching import Claim

# Right after a multiple or a change: "(times) the 2018 figure", "on its 2018 level".
_BASE = re.compile(
    r"(?i)[ \t]*(?:times[ \t]+|x[ \t]+)?(?:on[ \t]+|over[ \t]+|above[ \t]+|versus[ \t]+)?"
    r"(?:the|its)[ \t]+(?:fiscal[ \t]+)?((?:19|20)\d\d)[ \t]+"
    r"(?:figure|level|amount|balance|value|total|number)s?\b"
)
_OPERATIONS = frozenset(("multiple", "percent change"))


def base_year(body: str, end: int) -> int:
    """The year the words right after a result (ending at `end`) name as its base, or 0."""
    found = _BASE.match(body, end, end + 60)
    return int(found.group(1)) if found else 0


def misquoted_level(
    claims: Sequence[Claim],
    position: int,
    operands: Sequence[Operand],
    operation: str,
    entries: Sequence[int],
    year: int,
) -> tuple[Claim, int] | None:
    """(the stated level's claim, the cell it should be) when the result at `position`,
    derived by `operation` over `entries` (its value's cell first, its base's second), takes
    a level its sentence states before it as the base of `year`, and the other cell of that
    level's row as what it runs to; None otherwise."""
    if operation not in _OPERATIONS or len(entries) != 2 or not year:
        return None
    cells = {operand.entry: operand for operand in operands if operand.entry >= 0}
    top, base = cells.get(entries[0]), cells.get(entries[1])
    if top is None or base is None or base.strength != STATED or top.strength == STATED:
        return None
    if top.row != base.row or base.row < 0:
        return None
    if (base.year or top.year) and (base.year != year or top.year in (0, year)):
        return None  # where the cells' years are known, the base must be of that year
    level = next((claim for claim in claims if claim.index == base.position), None)
    if level is None or level.hit is None or level.mention.start >= claims[position].mention.start:
        return None
    return level, top.entry
