"""Another line item's figure: a figure set beside a figure of one line item, in another
period, that restates the cell of another line item of that period.

"EBIT rose from €576 million last year to €828 million": 828 is the EBIT line's latest
cell, 576 is not the EBIT line's earlier cell (713) but the cell of EBT, the line below it,
in the same earlier column. The writer compares one line item over two periods, and took
the earlier period's figure from the wrong line. Read by what the numbers are, not by the
words: the figure and its neighbour in the sentence are cells of one table, in two rows
and two columns; the neighbour's row has a cell in the figure's column; no other number of
the sentence is of the figure's own row; and neither the figure's own words nor the
sentence name its row more than the neighbour's; the header dates the cells (two
periods, not "Cost | Fair value" under one year); neither value stands in two cells.
Then the figure is that cell of the neighbour's row misplaced (fixed to it, with both
cells as proof), unless a result of its paragraph is computed from it as written
(`computed_from`: the writer's own figure; `_assemble` applies that first, then drops a
pair whose two figures both read so).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from validation.engine.checks.numeric._derive_rows import _Rows, _rows, cell_at
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._misquotes import _period
from validation.engine.checks.numeric._outcome import _uses


def other_item_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> tuple[EvidenceNumber, int] | None:
    """The cell of another line item the figure at `position` stands in for, and the
    position of the neighbour figure of that line item it is set beside; None when
    unsure."""
    claim = claims[position]
    hit, mention = claim.hit, claim.mention
    if hit is None or hit.status == "close" or _judged(claim) or small_integer(mention):
        return None
    rows = _rows(index)
    entry = hit.number.entry
    row = rows.row_of.get(entry)
    if row is None or row in rows.sentence_rows or len(rows.cells[row]) < 2:
        return None  # a table's row only: a prose row's places are no periods
    column = rows.column_of[entry]
    said = label_tokens(mention.label)
    own = said & rows.tokens[row]  # its own words naming its row
    low, high = sentence
    inside = [
        at
        for at in range(max(0, position - _AROUND), min(len(claims), position + _AROUND + 1))
        if low <= claims[at].mention.start < high and at != position
    ]  # a bounded window: a sentence that is a wall of numbers costs no more per number
    found: dict[int, tuple[EvidenceNumber, int]] = {}
    for at in inside:
        other = claims[at]
        if other.hit is None or other.hit.status == "close":
            continue
        other_row = rows.row_of.get(other.hit.number.entry)
        if other_row == row:
            return None  # the sentence states its own line item beside it
        if abs(at - position) != 1 or other_row is None or _judged(other):
            continue  # its comparison partner is the figure right beside it
        if (
            own
            and rows.tokens[other_row] != rows.tokens[row]
            and not _plainer(said, rows, other_row, row)
        ):
            # its own words name its line item (two lines of one name they cannot), unless
            # they write the neighbour's label whole and not its own ("total current tax
            # expense was 926" over an overseas subtotal of 926 and a total line of 950)
            continue
        if other.mention.is_percent != mention.is_percent:
            continue
        if other_row in rows.sentence_rows or other.hit.number.item != hit.number.item:
            continue
        if rows.column_of[other.hit.number.entry] == column:
            continue  # the same period: two line items side by side, not one over time
        cell = cell_at(rows, other_row, column)
        if cell is None or not _periods_differ(index, cell, other.hit.number.entry, entry):
            continue
        instead = index.number(cell)
        if instead.unit != hit.number.unit or not _same_magnitude(instead, hit.number):
            continue
        if any(abs(index.number(e).value) == abs(hit.number.value) for e in rows.cells[other_row]):
            continue  # the neighbour's line states the figure too
        if _repeated(index, rows, other.hit.number) or _repeated(index, rows, hit.number):
            continue  # a value two cells hold: which line it is of is not sure
        found[other_row] = (instead, at)
    if not found:
        return None
    words = body[low:high]
    if len(found) > 1:
        scores = {other_row: _naming(rows, other_row, words) for other_row in found}
        best = max(scores.values())
        found = {r: pair for r, pair in found.items() if scores[r] == best}
        if len(found) != 1:
            return None
    other_row, (instead, partner) = next(iter(found.items()))
    if _naming(rows, row, words) > _naming(rows, other_row, words):
        return None  # the sentence names the figure's own line item more
    for at in inside:
        stated = claims[at].hit
        if stated is not None and stated.number.value == instead.value:
            return None  # the sentence states that cell too: it tells the two apart
    return instead, partner


def computed_from(body: str, claims: Sequence[Claim], position: int) -> bool:
    """Another number of the figure's paragraph is derived from the figure as written (a
    change of "12.0 points" over 31.5 - 19.5, the 31.5 stated), or missed by an operation
    over it: the writer took the figure as it stands."""
    mention = claims[position].mention
    low = body.rfind("\n\n", max(0, mention.start - _PARAGRAPH), mention.start)
    high = body.find("\n\n", mention.end, mention.end + _PARAGRAPH)
    low, high = (
        max(low, mention.start - _PARAGRAPH),
        high if high >= 0 else mention.end + _PARAGRAPH,
    )
    for at in range(max(0, position - _AROUND), min(len(claims), position + _AROUND + 1)):
        other = claims[at]
        if at == position or not low <= other.mention.start < high:
            continue
        formulas = (
            other.derivation.formula if other.derivation is not None else "",
            other.miss.expression if other.miss is not None else "",
        )
        if any(formula and _uses(formula, claims[position]) for formula in formulas):
            return True
    return False


_PARAGRAPH = 1_500  # characters read either side of a figure for its paragraph
_AROUND = 12  # numbers either side of it looked at


def _judged(claim: Claim) -> bool:
    """A number some other reading already speaks for."""
    return (
        claim.derivation is not None
        or claim.calculation is not None
        or claim.operand
        or claim.in_expression
        or claim.other_period is not None
    )


def _repeated(index: EvidenceIndex, rows: _Rows, number: EvidenceNumber) -> bool:
    """Another cell of the number's evidence item holds its value (the cells' values
    counted once per report, kept in the index's memo)."""
    counts: Counter[tuple[int, float]] | None = index.memo.get(("other-item-values",))
    if counts is None:
        counts = Counter((index.item_of(entry), index.magnitude(entry)) for entry in rows.row_of)
        index.remember(("other-item-values",), counts)
    return counts[number.item, index.magnitude(number.entry)] > 1


def _periods_differ(index: EvidenceIndex, cell: int, partner: int, entry: int) -> bool:
    """The header dates the three cells: the figure's and the cell in its place of one
    period, the neighbour's of another (columns of one period, "Carrying amount | Fair
    value", are not periods)."""
    period = _period(index, entry, ordered=True)
    other = _period(index, partner, ordered=True)
    return (
        period is not None
        and other is not None
        and period != other
        and _period(index, cell, ordered=True) == period
    )


def _plainer(words: frozenset[str], rows: _Rows, row: int, than: int) -> bool:
    """`words` write the label of `row` whole, and not the label of `than`."""
    return rows.tokens[row] <= words and not rows.tokens[than] <= words


def _naming(rows: _Rows, row: int, words: str) -> int:
    """How strongly a sentence names a row: the label words it shares, and a word in
    capitals the label writes ("EBIT") counted as two."""
    shared = len(label_tokens(words) & rows.tokens[row])
    capitals = sum(
        2 for word in set(_CAPITALS.findall(words)) if row in rows.acronyms.get(word, ())
    )
    return shared + capitals


def _same_magnitude(first: EvidenceNumber, second: EvidenceNumber) -> bool:
    a, b = abs(first.value), abs(second.value)
    return bool(a and b) and max(a, b) / min(a, b) <= _SPREAD


_SPREAD = 10  # two line items compared as one are within this factor of each other
_CAPITALS = re.compile(r"\b[A-Z]{2,6}\b")
