"""A change's start quoted from the wrong period: "the margin improved to 21.2% from
17.2%, a gain of 1.3 points", where 21.2% and 17.2% are cells of one row and the
sentence's own change, 1.3, is the difference of 21.2% and that row's other cell (19.9%),
not of the two figures as written.

The change the sentence states names the two levels it lies between: its derivation
takes the figure the change goes to and a cell of the same row. When the figure the
change comes *from* ("from 17.2%") is a different cell of that row, and the written
change is no reading of the two figures as written, the start was quoted from another
period: it is fixed to the cell the change was taken from. The three figures are one
change's: its two levels stand side by side (only years between them), the change is the
first figure after them, and it runs to its end from the same side as the quoted start
(so "from 26.1% to 29.8%, then a further 1.8 points to 31.6%" is two changes, and left
alone).

The mirror, `to_level_of`: an end stated right after its change ("rose by $34,331 to
$669.1 million") where the change is taken between two other cells of the end's row: the
end was quoted from another period, and is fixed to the cell the change ran to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric._derive_pool import DIFFERENCE, bare, direction_of
from validation.engine.checks.numeric._end_period import quoted_cell
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._misquotes import row_of
from validation.engine.checks.numeric._types import NumberMention

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
    hit, mention = quoted_cell(claim), claim.mention
    if hit is None:
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
        and _beside(claims, claim, other)
    }
    if not ends:
        return _stated_before(body, index, claims, position, sentence, row)
    found: dict[int, tuple[EvidenceNumber, str]] = {}
    for change in claims:
        derivation = change.derivation
        if change is claim or derivation is None or not low <= change.mention.start < high:
            continue
        if change.mention.start < claim.mention.start:
            continue  # the change is stated after the levels it lies between
        entries = derivation.entries
        if len(entries) != 2 or " - " not in derivation.formula or start.entry in entries:
            continue
        end = next((entry for entry in entries if entry in ends), None)
        if end is None or not _next_after(claims, (claim, ends[end]), change):
            continue
        taken = next(entry for entry in entries if entry != end)
        other = index.number(taken)
        if row_of(index, taken) != row or other.unit != start.unit:
            continue
        level = index.number(end).value
        if (level - other.value) * (level - start.value) <= 0:
            continue  # the change runs from the other side of its end: not this start's
        if other.value == start.value or _reads(change, index.number(end), start):
            continue
        found[taken] = (other, change.mention.text)
    return next(iter(found.values())) if len(found) == 1 else None


def _stated_before(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
    row: int,
) -> tuple[EvidenceNumber, str] | None:
    """A start with no end beside it, after the change it began ("rose $1,184, or about
    71.6%, from $2,185 the year before"): the changes stated right before it (only years
    between) all take the same two cells of its row, and neither is the start; the one
    the change runs from, by its words' direction (the smaller for a rise), is the start
    the writer used."""
    claim = claims[position]
    assert claim.hit is not None
    start = claim.hit.number
    pairs: set[tuple[int, ...]] = set()
    changes: list[Claim] = []
    for other in reversed(claims[:position]):
        if other.mention.start < sentence[0]:
            break
        if _year(other.mention):
            continue
        derivation = other.derivation
        if derivation is None:
            break
        pairs.add(tuple(sorted(derivation.entries)))
        changes.append(other)
    if len(pairs) != 1:
        return None
    pair = pairs.pop()
    if len(pair) != 2 or start.entry in pair or any(row_of(index, at) != row for at in pair):
        return None
    if not any(
        " - " in (change.derivation.formula if change.derivation else "") for change in changes
    ):
        return None
    change = changes[-1]
    way = direction_of(body, claims, claims.index(change), sentence[0], sentence[1])
    if not way:
        return None
    first, second = (index.number(at) for at in pair)
    if first.unit != start.unit or second.unit != start.unit or first.value == second.value:
        return None
    low_cell, high_cell = sorted((first, second), key=lambda number: number.value)
    taken, end = (low_cell, high_cell) if way > 0 else (high_cell, low_cell)
    if taken.value == start.value or any(_reads(other, end, start) for other in changes):
        return None
    return taken, change.mention.text


def _beside(claims: Sequence[Claim], first: Claim, second: Claim) -> bool:
    """Two figures of one change: no figure between them but years ("from 1.7% in
    fiscal 2018 to 2.0% in fiscal 2019"); another figure between them ("from $9.4
    million to $41.0 million, then a further ... to $45.4 million") starts another
    change."""
    low, high = sorted((first.mention.start, second.mention.start))
    return not any(
        low < other.mention.start < high and not _year(other.mention) for other in claims
    )


def _next_after(claims: Sequence[Claim], pair: tuple[Claim, Claim], change: Claim) -> bool:
    """The change is the first figure after its two levels but years: the change of
    that pair, not of the next one the sentence goes on to."""
    last = max(level.mention.start for level in pair)
    return change.mention.start > last and not any(
        last < other.mention.start < change.mention.start and not _year(other.mention)
        for other in claims
    )


def _year(mention: NumberMention) -> bool:
    return mention.is_plain_integer() and 1900 <= mention.written <= 2100


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


def to_level_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> tuple[EvidenceNumber, str] | None:
    """For a change's end stated right after the change ("rose by $34,331 to $669.1
    million"), whose change is taken between two other cells of the end's row: the cell
    the change ran to (by its words' direction: the larger for a rise), and the change's
    text. Not when the change reads as the end less the other cell, as written."""
    claim = claims[position]
    hit, mention = quoted_cell(claim), claim.mention
    if hit is None or not _TO.search(body[max(0, mention.start - _BEFORE) : mention.start]):
        return None
    end = hit.number
    row = row_of(index, end.entry)
    change = next(
        (other for other in reversed(claims[:position]) if not _year(other.mention)), None
    )
    if row is None or change is None or change.mention.start < sentence[0]:
        return None
    derivation = change.derivation
    if derivation is None or change.mention.is_percent or len(derivation.entries) != 2:
        return None
    if not DIFFERENCE.fullmatch(bare(derivation.formula)):
        return None  # an amount the end less its start, not a rate of them
    if end.entry in derivation.entries or any(
        row_of(index, entry) != row for entry in derivation.entries
    ):
        return None
    way = direction_of(body, claims, claims.index(change), sentence[0], sentence[1])
    first, second = (index.number(entry) for entry in derivation.entries)
    if not way or first.value == second.value or {first.unit, second.unit} != {end.unit}:
        return None
    low_cell, high_cell = sorted((first, second), key=lambda number: number.value)
    start, reached = (low_cell, high_cell) if way > 0 else (high_cell, low_cell)
    if reached.value == end.value or _reads(change, end, start):
        return None
    return reached, change.mention.text


# "to $669.1 million", "to about 21.2%": the words right before a change's end.
_TO = re.compile(r"(?i)\bto (?:about |roughly |around |approximately |nearly |some )?$")
