"""A change's end quoted from an earlier period: "the current portion rose to $2,091
thousand", where 2,091 is the row's prior-year cell and the row's latest is 8,095.

The figure a change goes *to* is where it ended: the latest period the report speaks of.
When nothing around it names another period (no year in its sentence other than the
row's latest; its paragraph before it and the heading above it name the latest, or no
year), a figure that
restates an earlier cell of its row is that row's other period quoted by mistake, and it
is fixed to the row's one cell of the latest period. The figure is read where it stands
(the words right before it); the row and its periods come from the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_pool import _rows, direction_of
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._misquotes import _YEAR, _period

# "to $2,091", "to about 49.7%": the words right before a change's end.
_TO = re.compile(r"(?i)\bto (?:about |roughly |around |approximately |nearly |some )?$")
_BEFORE = 24  # characters before a figure read for "to"
_BACK = 1_500  # characters looked back for the paragraph's start and the heading


def end_period_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> tuple[EvidenceNumber, int, int] | None:
    """For a figure a change goes to that restates an earlier period's cell of its row,
    with no other period named around it: the row's latest cell, that period, and the
    period of the cell quoted."""
    claim = claims[position]
    hit, mention = claim.hit, claim.mention
    if hit is None or claim.derivation is not None or claim.calculation is not None:
        return None
    if claim.operand or claim.in_expression or small_integer(mention) or mention.in_range:
        return None
    if not _TO.search(body[max(0, mention.start - _BEFORE) : mention.start]):
        return None
    low, high = sentence
    if not direction_of(body, claims, position, low, high):
        return None  # "to" of no change ("amounts to", "close to")
    quoted = _period(index, hit.number.entry)
    rows = _rows(index)
    row = rows.row_of.get(hit.number.entry)
    if quoted is None or row is None:
        return None
    periods = {
        entry: period for entry in rows.cells[row] if (period := _period(index, entry)) is not None
    }
    latest = max(periods.values(), default=quoted)
    if quoted >= latest or _other_year_named(body, low, high, latest):
        return None
    found = {
        index.number(entry).value: index.number(entry)
        for entry, period in periods.items()
        if period == latest
    }
    if len(found) != 1:
        return None
    other = next(iter(found.values()))
    if other.unit != hit.number.unit or abs(other.value) == abs(hit.number.value):
        return None
    return other, latest, quoted


def _other_year_named(body: str, low: int, high: int, latest: int) -> bool:
    """The sentence names a year other than `latest`; or its paragraph before it and the
    heading above it name other years and not `latest` ("A look back at 2019"; but
    "2019 vs. 2018" compares the latest with the one before, and a change ends in it)."""
    if any(int(year) != latest for year in _YEAR.findall(body[low:high])):
        return True
    back = max(0, low - _BACK)
    paragraph = body.rfind("\n\n", back, low)
    heading = body.rfind("\n#", back, low)
    if heading < 0 and back == 0 and body.startswith("#"):
        heading = 0  # the report opens with its heading
    context = body[paragraph if paragraph >= 0 else low : low]
    if heading >= 0:
        line_end = body.find("\n", heading + 1, low)
        context += " " + body[heading : line_end if line_end >= 0 else low]
    years = {int(year) for year in _YEAR.findall(context)}
    return bool(years) and latest not in years
