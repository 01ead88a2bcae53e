"""A multiple of a line's own earlier level, for the derived search (:mod:`._derive`).

"It rose to roughly 2.0 times its prior-year level", "2.4 times their 2018 balance", "1.9
times the previous year's level": the words after "times" make the base the same line a
period earlier. The candidates are the later cell over the earlier of each row the claim's
clause names or states, one period apart (or over the year the words name), their cells
dated by their headers: a "Change" or "%" column has no year and gives none. A handful of
candidates, weighed among themselves (`_derive.explain`): no ratio of two unrelated cells
crowds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import NEAR, STATED, Operand
from validation.engine.checks.numeric._derive_when import dated
from validation.engine.checks.numeric._evidence import EvidenceIndex

# "times its prior-year level", "times their 2018 balance", "times the previous year's".
_OWN_BASE = re.compile(
    r"(?i)[ \t]+times[ \t]+(?:its|their|the)[ \t]+(?:(?P<year>(?:19|20)\d\d)\b"
    r"|(?:fiscal[ \t]+(?P<fiscal>(?:19|20)\d\d))\b"
    r"|(?:prior|previous|preceding|last)(?:[- ]year)?\b|year[- ](?:earlier|ago)\b)"
)
_REACH = 60  # characters between the multiple and its "times"
_MAX_ROWS = 8  # rows of the clause looked at


def own_multiples(
    body: str, end: int, place: int, operands: Sequence[Operand], index: EvidenceIndex
) -> Iterator[Candidate]:
    """The later-over-earlier multiples of the rows of `operands` its clause names or states
    (strength `NEAR` and over), when the words after the multiple ending at `end` make its
    base the line's own earlier level; nothing otherwise. A row whose cell the sentence
    states before the multiple (at `place` among the report's numbers) is the levels the
    sentence states: a candidate of it takes every cell stated before ("from $36,974
    thousand to $12,186 thousand, about 5.4 times the 2017 level" is of those two)."""
    said = _OWN_BASE.match(body, end, end + _REACH)
    if said is None:
        return
    stated = {
        o.position: o.row
        for o in operands
        if o.strength == STATED and o.row >= 0 and not o.percent and 0 <= o.position < place
    }
    base = int(said.group("year") or said.group("fiscal") or 0)
    rows: dict[int, dict[int, Operand]] = {}
    for operand in operands:
        if operand.strength < NEAR or operand.row < 0 or operand.percent or not operand.value:
            continue
        cell = dated(operand, index)
        if cell.year and (operand.row in rows or len(rows) < _MAX_ROWS):
            rows.setdefault(operand.row, {}).setdefault(cell.year, cell)
    for cells in rows.values():
        for year, later in cells.items():
            earlier = cells.get(year - 1) if not base else cells.get(base) if year > base else None
            if earlier is None:
                continue
            if later.row in stated.values() and not set(stated) <= {
                later.position,
                earlier.position,
            }:
                continue  # the sentence states the line's levels: the multiple is of those
            yield 0, later.value / earlier.value, "{} / {}", "multiple", (later, earlier)
