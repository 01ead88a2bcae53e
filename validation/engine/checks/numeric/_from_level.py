"""A change's start quoted from the wrong period: "the margin improved to 21.2% from
17.2%, a gain of 1.3 points", where 21.2% and 17.2% are cells of one row and the
sentence's own change, 1.3, is the difference of 21.2% and that row's other cell (19.9%),
not of the two figures as written.

The change the sentence states names the two levels it lies between: its derivation
takes the figure the change goes to and a cell of the same row. When the figure the
change comes *from* ("from 17.2%") is a different cell of that row, and the written
change is no reading of the two figures as written, the start was quoted from another
period: it is fixed to the cell the change was taken from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._misquotes import row_of

# "from 17.2%", "from about $40.1 million": the words right before a change's start.
_FROM = re.compile(r"(?i)\bfrom (?:about |roughly |around |approximately |nearly |some )?$")
_BEFORE = 24  # characters before a figure read for "from"


def from_level_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> tuple[EvidenceNumber, str] | None:
    """For a change's start whose sentence states a change taken from another cell of
    the start's row: that cell, and the change's text."""
    claim = claims[position]
    hit, mention = claim.hit, claim.mention
    if hit is None or claim.derivation is not None or claim.calculation is not None:
        return None
    if claim.operand or claim.in_expression or small_integer(mention) or mention.in_range:
        return None
    if not _FROM.search(body[max(0, mention.start - _BEFORE) : mention.start]):
        return None
    start = hit.number
    row = row_of(index, start.entry)
    if row is None:
        return None
    low, high = sentence
    ends = {
        other.hit.number.entry: other
        for other in claims
        if other is not claim
        and other.hit is not None
        and low <= other.mention.start < high
        and other.hit.number.entry != start.entry
        and row_of(index, other.hit.number.entry) == row
    }
    found: dict[int, tuple[EvidenceNumber, str]] = {}
    for change in claims:
        derivation = change.derivation
        if change is claim or derivation is None or not low <= change.mention.start < high:
            continue
        entries = derivation.entries
        if len(entries) != 2 or " - " not in derivation.formula or start.entry in entries:
            continue
        end = next((entry for entry in entries if entry in ends), None)
        if end is None:
            continue
        taken = next(entry for entry in entries if entry != end)
        other = index.number(taken)
        if row_of(index, taken) != row or other.unit != start.unit:
            continue
        if other.value == start.value or _reads(change, index.number(end), start):
            continue
        found[taken] = (other, change.mention.text)
    return next(iter(found.values())) if len(found) == 1 else None


def _reads(change: Claim, end: EvidenceNumber, start: EvidenceNumber) -> bool:
    """The written change is a reading of the two figures as written: their difference,
    within half the change's last written digit."""
    mention = change.mention
    written = abs(mention.written)
    exponent = written.as_tuple().exponent
    if written == 0 or not isinstance(exponent, int):
        return True  # nothing to tell them apart by: left alone
    half = Decimal(5).scaleb(exponent - 1) * abs(mention.value) / written
    return abs(abs(end.value - start.value) - abs(mention.value)) <= half
