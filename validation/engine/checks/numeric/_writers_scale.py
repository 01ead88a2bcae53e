"""A table that states no scale, read at the scale its writer gives it.

A pension note's table ("| Real estate | 948 | 758 |") says nowhere that its amounts are
millions; "real estate was up 25.1% to $948 million" names the row and writes the cell's
digits exactly under a scale word. The writer read the table in millions: the figure is
that cell. It is read last, once the grounding is done, so a figure found otherwise
keeps its reading and nothing is derived from this one.

Only a figure nothing matched at any reading, that no derivation explains and no check
judged otherwise, written under a scale word with three significant digits or more, whose
sentence names the cell's row (`_derive_naming.named_rows`; of several, the row named
most plainly), in an item that states no scale. A sentence that names no row ("It was a
$4,095 thousand item in fiscal 2017") takes the one cell of those digits of an item the
report already restates at that scale elsewhere ("$197 thousand" for its 197, a match its
words vouch for): the writer reads a table at one scale. Such a hit teaches the item no scale
(`Hit.writers_scale`, skipped by `_derive_pool.units_of`, should it be read again): a
table may mix millions and thousands of shares, and one figure's reading is no
declaration. Reads one sentence per such figure and the index's values equal to its
digits: linear in the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric._context import sentence_reader
from validation.engine.checks.numeric._derive_naming import named_rows
from validation.engine.checks.numeric._derive_rows import _rows
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim, Hit

_MIN_DIGITS = 3  # fewer significant digits match some cell of a table by chance
_SAME_VALUE = 16  # cells of one value looked at
_MAX_READ = 300  # figures of one report read so (as many as the derived search takes)


def read_at_writers_scale(
    body: str, claims: Sequence[Claim], index: EvidenceIndex, newlines: list[int]
) -> None:
    """Match each such figure to the one named cell its digits write (`claim.hit`)."""
    sentence = sentence_reader(body, newlines)
    budget = _MAX_READ
    shown = _scales_shown(claims, index)
    for claim in claims:
        mention = claim.mention
        if claim.hit is not None or claim.close or claim.doubted or _judged(claim):
            continue
        if not mention.has_explicit_scale or mention.is_percent or mention.negative:
            continue
        if mention.significant_digits < _MIN_DIGITS:
            continue
        digits = float(mention.written)
        cells = [
            entry
            for entry in index.nearest(digits, digits, digits, _SAME_VALUE)
            if _unscaled_cell(index, entry, mention.written)
        ]
        if not cells or budget <= 0:
            continue
        budget -= 1  # each reads its sentence's named rows: a wall stops here
        rows = _rows(index)
        low, high = sentence(mention.start, mention.end)
        own, named = named_rows(rows, mention.label, body[low:high])
        # The cell of the row named most plainly; cells of other named rows write the same
        # digits ("... attributable to stockholders" and "... to common stockholders").
        place = {row: at for at, row in enumerate(own + named)}
        found = sorted(
            (place[row], entry) for entry in cells if (row := rows.row_of.get(entry, -1)) in place
        )
        if not found:
            # No row named, but the report reads the cell's item at this scale elsewhere
            # ("$197 thousand" for its 197): the one cell of the item with these digits.
            items = {index.item_of(entry) for entry in cells}
            if len(cells) == 1 and all((item, mention.scale) in shown for item in items):
                found = [(0, cells[0])]
        if found:
            number = index.number(found[0][1])
            claim.hit = Hit(number, "exact", 0.0, 1.0, Decimal(1), writers_scale=True)


def _scales_shown(claims: Sequence[Claim], index: EvidenceIndex) -> set[tuple[int, Decimal]]:
    """(item, scale) of each cell of an item that states no scale which a figure of the
    report restates, digit for digit, under a scale word that its words vouch for
    ("$197 thousand" for the 197 of "Tax exempt interest income")."""
    shown: set[tuple[int, Decimal]] = set()
    for claim in claims:
        hit, mention = claim.hit, claim.mention
        if hit is None or hit.writers_scale or not mention.has_explicit_scale:
            continue
        entry = hit.number.entry
        if mention.scale > 1 and _unscaled_cell(index, entry, abs(mention.written)):
            shown.add((index.item_of(entry), mention.scale))
    return shown


def _unscaled_cell(index: EvidenceIndex, entry: int, written: Decimal) -> bool:
    if index.has_scale(entry) or index.is_mantissa(entry) or index.unit(entry) in ("%", "pp"):
        return False
    if index.declared_scale(index.item_of(entry)) is not None:
        return False
    return index.value_of(entry) == written


def _judged(claim: Claim) -> bool:
    """The grounding said something of it: a derivation, a miss, another reading."""
    return (
        claim.derivation is not None
        or claim.miss is not None
        or claim.calculation is not None
        or bool(claim.computed)
        or claim.rescaled is not None
        or claim.other_period is not None
    )
