"""A figure restated with two digits swapped: "$8,515 thousand" where the one evidence
cell its sentence names reads 8,551.

A number that appears in no evidence item and follows from nothing is either invented
or a misquote. It is taken for a misquote only when the evidence holds a number whose
digits are the claim's own with two neighbours swapped (at the claim's scale and unit),
about what the claim's sentence names (the cell's row or key shares a word with the
sentence), and that is the only such value: then the cell is the fix, with its excerpt
as proof. A swap is a narrow window (a few candidate values for a number of four or
five digits), so a cell that fits it and the sentence's words is rarely a coincidence;
two that fit make it ambiguous, and nothing is proposed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric._context import _sentence
from validation.engine.checks.numeric._derive_pool import _rows
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._findings import _cell_fix, _short_label
from validation.engine.checks.numeric._formatting import replace_digits
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._layout_years import (
    _EARLY_MONTHS,
    _YEAR,
    _layout_period,
    short_fiscal_years,
)
from validation.engine.checks.numeric._matching import Claim, Hit, small_integer
from validation.engine.checks.numeric._named_years import year_after, year_before
from validation.engine.checks.numeric._outcome import _Output, _SentenceNumbers
from validation.engine.checks.numeric._prose_rows import prose_period
from validation.engine.checks.numeric._readings import (
    EPSILON,
    PERCENT_UNITS,
    _units_fit,
    readings_of,
)
from validation.engine.checks.numeric._stated_change import StatedChange, stated_change_of
from validation.engine.checks.numeric._tables import _find_tables, _Table


class Looks:
    """The misquote and scale look-ups of one report, at most `_MAX_LOOKS` of them (a
    wall of numbers costs the same per number as a memo, then nothing more)."""

    def __init__(
        self,
        body: str,
        index: EvidenceIndex,
        sentences: _SentenceNumbers,
        read_at: dict[int, Decimal],
    ) -> None:
        self.body, self.index, self.sentences, self.read_at = body, index, sentences, read_at
        self.left = _MAX_LOOKS

    def misquote(self, claim: Claim) -> tuple[EvidenceNumber, Decimal] | None:
        self.left -= 1
        if self.left < 0:
            return None
        return misquote_of(self.body, self.index, claim, self.sentences)

    def rescaled(self, claim: Claim) -> Hit | None:
        self.left -= 1
        if self.left < 0:
            return None
        return rescaled_of(self.body, self.index, claim, self.sentences, self.read_at)

    def stated_change(self, claims: Sequence[Claim], position: int) -> StatedChange | None:
        self.left -= 1
        if self.left < 0:
            return None
        mention = claims[position].mention
        sentence = _sentence(self.body, self.sentences.newlines, mention.start, mention.end)
        return stated_change_of(self.body, self.index, claims, position, sentence)


_MAX_LOOKS = 400


def misquote_of(
    body: str, index: EvidenceIndex, claim: Claim, sentences: _SentenceNumbers
) -> tuple[EvidenceNumber, Decimal] | None:
    """For a number nothing supports: the cell it misquotes, if exactly one."""
    if claim.depends or claim.operand or claim.in_expression or claim.calculation is not None:
        return None
    low, high = _sentence(body, sentences.newlines, claim.mention.start, claim.mention.end)
    # A row whose other period the sentence restates is named by it ("rose to $58,417
    # from $54,330": the line item of the 54,330).
    rows = {
        row
        for other in sentences.beside(body, claim)
        if other.hit is not None and (row := row_of(index, other.hit.number.entry)) is not None
    }
    return swapped_cell(claim, index, body[low:high], frozenset(rows))


def rescaled_of(
    body: str,
    index: EvidenceIndex,
    claim: Claim,
    sentences: _SentenceNumbers,
    read_at: dict[int, Decimal],
) -> Hit | None:
    """For a number nothing supports, written with a scale word: the one evidence
    number its digits state at another scale, about what its sentence names ("rose to
    $148.5 billion" where the row the sentence names holds 148.5 million). The hit's
    `factor` is the scale the claim should carry."""
    mention = claim.mention
    if claim.depends or claim.operand or claim.in_expression or claim.calculation is not None:
        return None
    if mention.is_percent or not mention.written or not mention.has_explicit_scale:
        return None
    low, high = _sentence(body, sentences.newlines, mention.start, mention.end)
    words = label_tokens(body[low:high])
    written = abs(mention.written)
    step = Decimal(1).scaleb(-mention.decimals)
    named: dict[Decimal, Hit] = {}
    unnamed: dict[Decimal, list[Hit]] = {}  # cells of items the report reads elsewhere
    for scale in sorted(_RESCALES | {Decimal(1)}):
        if scale == mention.scale:
            continue
        target = written * scale
        half = step * scale / 2 * EPSILON
        for entry in index.nearest(
            float(target), float(target - half), float(target + half), _LOOKED
        ):
            if index.unit(entry) in PERCENT_UNITS:
                continue
            number = index.number(entry)
            off = abs(abs(number.full_value) - target)
            if off > half or (off and mention.significant_digits < 2):
                continue  # one digit rounded from another figure's: chance (`_matching`)
            is_named = _named(claim, number, words, mention.significant_digits)
            if not is_named and not (
                number.item in read_at and mention.significant_digits >= _MIN_DIGITS
            ):
                continue
            # A cell whose scale no header states is read at the scale the report
            # reads its item at elsewhere; never read at all, its scale is unknown.
            unit = Decimal(1) if index.has_scale(entry) else read_at.get(number.item)
            if unit is None or unit * scale not in _RESCALES or unit * scale == mention.scale:
                continue
            hit = Hit(number, "close", 0.0, 1.0, unit * scale)
            if is_named:
                named.setdefault(unit * scale, hit)
            else:
                unnamed.setdefault(unit * scale, []).append(hit)
    if named:
        return next(iter(named.values())) if len(named) == 1 else None
    # No cell its sentence names: one cell of an item the report reads elsewhere, the
    # only value its digits fit at any other scale (three digits or more: a narrow window).
    hits = [hit for found in unnamed.values() for hit in found]
    return hits[0] if len(hits) == 1 else None


def _named(claim: Claim, number: EvidenceNumber, words: frozenset[str], digits: int) -> bool:
    """The claim's sentence names the cell: two words of its row or key, or one for a
    number of `_PRECISE_DIGITS` digits or more (a narrower window for chance), or the
    claim cites the cell's item."""
    shared = len(number.tokens & words)
    if shared >= _NAMED_WORDS or number.item in claim.cited:
        return True
    return shared >= 1 and digits >= _PRECISE_DIGITS


_PRECISE_DIGITS = 4


def read_at_of(index: EvidenceIndex, claims: Sequence[Claim]) -> dict[int, Decimal]:
    """The scale at which the report reads each evidence item whose digits carry none
    ("$120.3 million" for a table's 120,301: thousands), from its matched numbers."""
    read: dict[int, Decimal] = {}
    for other in claims:
        hit = other.hit
        if hit is None or not other.mention.has_explicit_scale or not hit.factor:
            continue
        if index.has_scale(hit.number.entry):
            continue
        read.setdefault(hit.number.item, other.mention.scale / hit.factor)
    return read


def misread_scales(index: EvidenceIndex, claims: Sequence[Claim]) -> dict[int, Hit]:
    """Matched figures that read their cell at another scale than the report reads the
    rest of its evidence item ("$264.9 billion" for a table's 264,871 where the report
    writes the table's other cells in millions: the table is in thousands). One item
    has one scale per kind of amount: when at least `_AGREEING` other figures of the
    same currency read it at one scale, and this one at another, its scale word is
    wrong. Keyed by position in `claims`; the hit's `factor` is the scale it should
    carry."""
    reads: list[tuple[int, int, str, int]] = []
    for position, claim in enumerate(claims):
        hit = claim.hit
        mention = claim.mention
        if hit is None or not mention.has_explicit_scale or mention.is_percent:
            continue
        if index.has_scale(hit.number.entry) or mention.significant_digits < _MIN_DIGITS:
            continue
        digits = abs(hit.number.value)
        if not digits or not mention.written:
            continue
        # The scale the figure reads its cell's digits at, a power of ten.
        unit = round(math.log10(float(mention.scale * abs(mention.written) / digits)))
        reads.append((position, hit.number.item, mention.currency, unit))
    # How many figures of each item and currency read it at each scale: a figure is
    # misread when it alone reads its scale and every other figure agrees on another.
    units: dict[tuple[int, str], Counter[int]] = {}
    for _, item, currency, unit in reads:
        units.setdefault((item, currency), Counter())[unit] += 1
    found: dict[int, Hit] = {}
    for position, item, currency, unit in reads:
        counts = units[(item, currency)]
        if counts[unit] != 1 or len(counts) != 2:
            continue
        other = next(scale for scale in counts if scale != unit)
        if counts[other] < _AGREEING:
            continue
        mention = claims[position].mention
        right = mention.scale * Decimal(10) ** (other - unit)
        if right in _RESCALES and right != mention.scale:
            hit = claims[position].hit
            assert hit is not None
            found[position] = Hit(hit.number, "close", 0.0, 1.0, right)
    return found


_AGREEING = 2  # other figures of an item that must agree on its scale
_RESCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))


_MIN_DIGITS = 3  # "94" for 49 is a swap too, but two digits leave too many candidates
_MAX_DIGITS = 12  # swaps of a longer number are not looked for (bounded work)
_LOOKED = 4
# Words of the cell's row or key its sentence must share: one ("total", "year") is
# shared by chance with many cells; a line item's name ("research", "development").
_NAMED_WORDS = 2  # evidence numbers looked at per candidate value


def swapped_cell(
    claim: Claim, index: EvidenceIndex, sentence: str, rows: frozenset[int] = frozenset()
) -> tuple[EvidenceNumber, Decimal] | None:
    """The one evidence number, about what `sentence` names (its words, or a row of
    `rows`: one whose other period the sentence restates), whose digits are the
    claim's with two swapped, and its value as the claim would write it; None when
    there is none or more than one value."""
    mention = claim.mention
    if mention.is_percent or small_integer(mention) or not mention.written:
        return None
    shown = f"{abs(mention.written):.{max(mention.decimals, 0)}f}"
    digits = shown.replace(".", "")
    if not _MIN_DIGITS <= len(digits) <= _MAX_DIGITS:
        return None
    words = label_tokens(sentence)
    if not words:
        return None
    point = len(shown) - shown.index(".") - 1 if "." in shown else 0
    variants = _swaps(digits, point)
    found: dict[Decimal, EvidenceNumber] = {}
    for probe in readings_of(mention):
        for variant in variants:
            target = variant * probe.factor
            # The window of the digits shown, not of a hedge: a swap is of the digits.
            half = Decimal(1).scaleb(-mention.decimals) * probe.factor / 2 * EPSILON
            for entry in index.nearest(
                float(target), float(target - half), float(target + half), _LOOKED
            ):
                number = index.number(entry)
                if abs(abs(number.value) - target) > half:
                    continue
                if not _units_fit(probe.units, index.unit(entry)):
                    continue
                if not _named(claim, number, words, len(digits)) and not (
                    rows and row_of(index, entry) in rows
                ):
                    continue
                found.setdefault(variant, number)
        if found:
            break  # readings are tried most natural first
    if len(found) != 1:
        return None
    return next(iter(found.items()))[::-1]


def _swaps(digits: str, point: int) -> list[Decimal]:
    """The values whose digits are `digits` with two unequal neighbours swapped (the
    slip of a hand: "8,515" for 8,551; no leading zero), with `point` decimals."""
    values: list[Decimal] = []
    for first in range(len(digits) - 1):
        second = first + 1
        if digits[first] == digits[second]:
            continue
        swapped = list(digits)
        swapped[first], swapped[second] = swapped[second], swapped[first]
        if swapped[0] == "0":
            continue
        values.append(Decimal("".join(swapped)).scaleb(-point))
    return values


# ------------------------------------------------------------------ findings


def misquote_finding(
    body: str,
    index: EvidenceIndex,
    claim: Claim,
    swap: tuple[EvidenceNumber, Decimal],
    result: _Output,
) -> None:
    """A number in no evidence whose digits are the one named cell's with two swapped
    ("$8,515 thousand" for 8,551): fixed to that cell, with its excerpt as proof."""
    mention = claim.mention
    number = swap[0]
    excerpt = index.excerpt(number.entry)
    described = f"{_short_label(number.label)} {number.raw}".strip()
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": (
                f'"{mention.text}" appears in no evidence item; it has the digits of '
                f"{described} in {number.source_ref} with two swapped"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [excerpt],
        }
    )
    swap_fix(body, index, claim, swap, result, finding_index)


def swap_fix(
    body: str,
    index: EvidenceIndex,
    claim: Claim,
    swap: tuple[EvidenceNumber, Decimal],
    result: _Output,
    finding_index: int,
) -> None:
    """The fix of a figure with two digits swapped: the cell, with its excerpt."""
    mention = claim.mention
    number, written = swap
    excerpt = index.excerpt(number.entry)
    _cell_fix(
        body,
        claim,
        number,
        replace_digits(mention, written),
        result,
        confidence=MISQUOTE_CONFIDENCE,
        kind="close_but_wrong",
        finding_index=finding_index,
        excerpt=excerpt,
    )


# A swap of two digits names its cell less surely than a value within the rounding.
MISQUOTE_CONFIDENCE = 0.85


# ------------------------------------------------------------------ a period its words name


def named_period_of(
    body: str, index: EvidenceIndex, claim: Claim, year: int | None = None
) -> tuple[EvidenceNumber, int, int] | None:
    """A figure restating one period's cell while the words right after it (or, in its own
    clause, right before it: "fiscal 2018's $816.5", `_named_years`) name another period
    of the same row ("$816.5 for fiscal 2018" where the row's 2018 cell is 908.3 and 816.5
    is 2017's): that cell, the year named and the year of the cell quoted.
    `year`, when given, is the period named otherwise (the report table's column)."""
    hit = claim.hit
    mention = claim.mention
    if hit is None or claim.derivation is not None or claim.calculation is not None:
        return None
    if claim.operand or claim.in_expression or small_integer(mention):
        return None
    named = year if year is not None else year_after(body, mention.end)
    if named is None and mention.significant_digits >= _DATED_BEFORE_DIGITS:
        # A year before the figure may date its sentence's subject ("Net income in 2019
        # is about 0.3 times ..."): read only for a figure precise enough to be a cell.
        named = year_before(body, mention.start)
    if named is None:
        return None
    quoted = _period(index, hit.number.entry)
    if quoted is None or quoted == named:
        return None
    # The same value as a cell of the period named, in any row ("at end of year ...
    # $11,594 million in 2018", a table whose 2019 opening is 2018's close): that cell.
    magnitude = abs(float(hit.number.full_value))
    for entry in index.nearest(magnitude, magnitude * _SAME_LOW, magnitude * _SAME_HIGH, 8):
        if entry != hit.number.entry and _period(index, entry) == named:
            return None
    rows = _rows(index)
    row = row_of(index, hit.number.entry)
    if row is None:
        return None
    found = {
        index.number(entry).value: index.number(entry)
        for entry in rows.cells[row]
        if entry != hit.number.entry and _period(index, entry) == named
    }
    if len(found) != 1:
        return None
    other = next(iter(found.values()))
    # A cell with no unit of a row the other cells write in a currency ("$ 9.0" in a
    # filing's layout, its sign set apart) is of that currency.
    unit_fits = other.unit == hit.number.unit or (
        not other.unit and hit.number.unit not in PERCENT_UNITS
    )
    if not unit_fits or abs(other.value) == abs(hit.number.value):
        return None
    return other, named, quoted


def row_of(index: EvidenceIndex, entry: int) -> int | None:
    """The table row of an evidence number; a number of a text read twice (as prose and
    as a layout's cell) has its row through the reading that has one."""
    rows = _rows(index)
    row = rows.row_of.get(entry)
    if row is not None:
        return row
    record = index._record[entry]
    if record[0] != 0:
        return None
    twins: dict[tuple[int, int], int] | None = index.memo.get(("fix-twin-rows",))
    if twins is None:
        twins = {}
        for other, found in rows.row_of.items():
            twin = index._record[other]
            if twin[0] == 0:
                twins.setdefault((index.item_of(other), twin[2]), found)
        index.remember(("fix-twin-rows",), twins)
    return twins.get((index.item_of(entry), record[2]))


def _period(index: EvidenceIndex, entry: int, ordered: bool = False) -> int | None:
    """The year of an evidence cell: its JSON key's, or its table column's (the year its
    header rows name); None when unsure (none, several, or a fiscal year ending early in
    the calendar year, often named for the year before). With `ordered`, such a fiscal
    year is read too: its order among the row's periods is sure, its name is not. A cell
    of a prose row has the year its sentence gives it plainly (`prose_period`)."""
    number = index.number(entry)
    item = index.items[number.item]
    if item.text is None:
        return _one_year(number.label.rsplit(".", 1)[-1], ordered)
    record = index._record[entry]
    if record[0] != 0:  # not a number of the item's own text
        return None
    position = record[2]
    for table, years in _tables_of(index, number.item, item.text, ordered):
        if table.start <= position <= table.end:
            return years.get(table.locate(position)[1])
    laid_out = _layout_period(item.text, position, ordered)
    return laid_out if laid_out is not None else prose_period(index, entry)


_HEADER_ROWS = 4  # the rows at a table's top read for its columns' years
_DATED_BEFORE_DIGITS = 3
_SAME_LOW, _SAME_HIGH = 1 - 1e-9, 1 + 1e-9  # one value, whatever its float rounding


def _one_year(text: str, ordered: bool = False) -> int | None:
    years = set(_YEAR.findall(short_fiscal_years(text)))
    if len(years) != 1 or (not ordered and any(m in text.lower() for m in _EARLY_MONTHS)):
        return None
    return int(years.pop())


def _tables_of(
    index: EvidenceIndex, item: int, text: str, ordered: bool = False
) -> list[tuple[_Table, dict[int, int]]]:
    """The item's tables, each with its columns' years (read once per item)."""
    key = ("fix-tables", item, ordered)
    tables: list[tuple[_Table, dict[int, int]]] | None = index.memo.get(key)
    if tables is None:
        tables = []
        found: list[_Table] | None = index.memo.get(("fix-table-spans", item))
        if found is None:
            found = _find_tables(text)  # read once for both kinds of years
            index.remember(("fix-table-spans", item), found)
        for table in found:
            years: dict[int, int] = {}
            for cells in table.rows[:_HEADER_ROWS]:
                for column, (start, end) in enumerate(cells):
                    year = _one_year(text[start:end], ordered)
                    if year is not None:
                        years.setdefault(column, year)
            tables.append((table, years))
        index.remember(key, tables)
    return tables
