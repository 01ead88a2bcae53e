"""The level a prose figure's own change implies, for the derived search's operands
(:mod:`._derive_pool`).

"Interest expense in 2019 was $1,952 million, an increase of $473 million" gives the year
before too: $1,479 million, the level less its increase (plus a decrease). A writer who
states the level and its growth ("32.0% above the prior year") takes that earlier level,
which the evidence never writes. So a figure of the evidence's prose followed, in its own
sentence and with no other number between, by "an increase of" (a rise, a decline, a
decrease...) and a figure of its unit, has that earlier level as its row's other period.
Read once per evidence index, over each lone figure's label: linear.
"""

from __future__ import annotations

import re

from validation.engine.checks.numeric._derive_rows import _Rows
from validation.engine.checks.numeric._evidence import EvidenceIndex

_RISE = ("increase", "increased", "rise", "growth", "gain", "improvement")
_FALL = ("decrease", "decreased", "decline", "declined", "reduction", "drop", "fall")
# The change's own words: "an increase of", "a decline of approximately".
_CHANGE_OF = re.compile(
    r"\b(?P<word>" + "|".join(_RISE + _FALL) + r")\s+of(?:\s+(?:approximately|about|some))?\s*$",
    re.IGNORECASE,
)
_GAP = 48  # characters between the level and its change, at most


def implied_levels(index: EvidenceIndex, rows: _Rows) -> dict[int, tuple[int, int]]:
    """For each row holding a prose level its sentence then gives a change of ("was $1,952
    million, an increase of $473 million"): the change's entry, and +1 for a rise (the
    earlier level is the level less it) or -1 for a fall."""
    remembered: dict[int, tuple[int, int]] | None = index.memo.get(("derive-implied",))
    if remembered is not None:
        return remembered
    found: dict[int, tuple[int, int]] = {}
    for entries in rows.cells:
        if len(entries) != 1:
            continue
        change = entries[0]
        item = index.item_of(change)
        text = index.items[item].text
        said = _CHANGE_OF.search(index.label_of(change)) if text is not None else None
        if text is None or said is None:
            continue
        level = change - 1
        while level >= 0 and index.is_mantissa(level):
            level -= 1
        if level < 0 or index.item_of(level) != item or level not in rows.row_of:
            continue
        first, second = index.text_span(level), index.text_span(change)
        if first is None or second is None or not 0 <= second[0] - first[1] <= _GAP:
            continue
        between = text[first[1] : second[0]]
        if any(mark in between for mark in (". ", "\n", ";")) or any(c.isdigit() for c in between):
            continue
        one, other = index.number(level), index.number(change)
        if one.is_percent or other.is_percent or one.unit != other.unit:
            continue
        if one.has_scale != other.has_scale:
            continue
        sign = 1 if said.group("word").lower() in _RISE else -1
        found.setdefault(rows.row_of[level], (change, sign))
    index.remember(("derive-implied",), found)
    return found
