"""The operands of the derived search (:mod:`._derive`): the numbers a careful reader
would compute a claim from, strongest first.

- **stated**: the supported numbers of the claim's own sentence; **near**: the other cells
  of their rows (other periods of the same line item), and of the row its label names;
- **named**: the rows its sentence names (most plainly named first), then its section's
  heading, the cells of a stated number's column and those the sentence's derived results
  take; **beside**: every other supported number of the report, and the cells of its row.

Rows and columns come from the evidence (a table's row label and cell position, a JSON
object's path and key; a markdown row without a label takes its section's heading); a row
is named by a text that shares half its label words, or four of them, and a lone figure of
the evidence's prose by the noun phrase its words end in (`_derive_naming`); evidence digits
whose scale nothing states are read at the scale the report reads them at elsewhere. The
pool is bounded: `_MAX_POOL` operands, found among the `_REACH` claims on each side.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from validation.engine.checks.numeric import _derive_rows
from validation.engine.checks.numeric._counts_said import says_total
from validation.engine.checks.numeric._cues import _WORD, _direction, cue_of
from validation.engine.checks.numeric._derive_carried import carried_over
from validation.engine.checks.numeric._derive_finer import finer_cells, in_full_units
from validation.engine.checks.numeric._derive_implied import implied_levels
from validation.engine.checks.numeric._derive_naming import _MAX_NAMED, named_rows
from validation.engine.checks.numeric._derive_per import per_counts
from validation.engine.checks.numeric._derive_rows import (
    MAX_GROUP,
    _Rows,
    cells_of,
    column_cells,
    period_value,
    restating_rows,
)
from validation.engine.checks.numeric._derive_rows import _rows as _rows  # (_misquotes)
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._types import NumberMention

STATED, NEAR, NAMED, BESIDE = 4, 3, 2, 1  # operand strengths
_MAX_POOL = 24  # operands offered to one claim
_REACH = 24  # claims looked at on each side for operands
_MAX_MADE = 20_000  # evidence operands kept per index (a wall of numbers costs the same)


@dataclass(frozen=True, slots=True)
class Operand:
    value: float  # full units; a percentage as written (22.5 for 22.5 %)
    text: str
    percent: bool
    digits: float  # the scale its digits are written at (1e6 in a table in millions)
    strength: int
    row: int  # the evidence row it lies in, or -1
    column: int  # its place in that row, or -1
    unscaled: bool = False  # evidence digits at a scale nothing states
    item: int = -1  # the evidence item of its cell
    reported: bool = False  # a number the report states
    change: bool = False  # a difference the report derives ("an increase of $11.3 million")
    entry: int = -1  # its evidence entry, if it is a cell
    position: int = -1  # its claim, if the report states it
    unit: str = ""  # "%", a currency, "x"... as written (evidence) or read (report)
    year: int = 0  # the period of its cell, when its sentence names years and it is known
    repeat: bool = False  # a value its row already gave: a member of the row's groups only
    # For a result the report derives from evidence cells: those cells' entries.
    sources: tuple[int, ...] = ()
    mean: bool = False  # that result is their average: a pair of it and one of them is none
    derived: bool = False  # a result the report derives or calculates (not a cell it restates)
    also: tuple[tuple[int, int, int], ...] = ()  # other cells of its value in its table
    negative: bool = False  # its cell writes it negative ("(692,999)")
    total: bool = False  # its row is its table's total line ("Total", an unlabelled sum)
    # A cell of a row only a result the report states elsewhere was computed from.
    far: bool = False


_NOT_A_POWER = 0.05  # a rounded figure over its cell: within 12% of a power of ten


def units_of(claims: Sequence[Claim]) -> dict[int, float]:
    """For each evidence item whose numbers carry no scale, the scale the report reads
    them at ("$788.9 million" for a table's 788,948: thousands), when its reads agree."""
    seen: dict[int, set[float]] = {}
    for claim in claims:
        hit = claim.hit
        if hit is None or hit.number.has_scale or hit.number.is_percent or hit.writers_scale:
            continue
        if claim.mention.is_percent or not claim.mention.has_explicit_scale:
            continue
        # What the figure says over the cell's digits: its reading may be at another scale
        # ("$1.06 billion" read as 1,060 million for the cell 1,059,077, in thousands).
        if not (claim.mention.value and hit.number.full_value):
            continue
        power = math.log10(abs(claim.mention.value / hit.number.full_value))
        if abs(power - round(power)) <= _NOT_A_POWER:
            seen.setdefault(hit.number.item, set()).add(10.0 ** round(power))
    return {item: scales.pop() for item, scales in seen.items() if len(scales) == 1}


def _evidence_operand(
    index: EvidenceIndex,
    rows: _Rows,
    units: dict[int, float],
    entry: int,
    strength: int,
    claim: Claim | None = None,  # the report's number this cell supports, if any
) -> Operand:
    """The operand of an evidence cell, made once per cell, strength, scale and stating
    claim for an index (each claim's pool offers its neighbours' cells again)."""
    made: dict[tuple[object, ...], Operand] | None = index.memo.get(("derive-operands",))
    if made is None or len(made) >= _MAX_MADE:
        made = {}
        index.remember(("derive-operands",), made)
    stated = None if claim is None else (claim.index, claim.mention.text)
    key = (entry, strength, units.get(index.item_of(entry)), stated)
    operand = made.get(key)
    if operand is None:
        operand = made[key] = _cell_operand(index, rows, units, entry, strength, claim)
    return operand


def _cell_operand(
    index: EvidenceIndex,
    rows: _Rows,
    units: dict[int, float],
    entry: int,
    strength: int,
    claim: Claim | None,
) -> Operand:
    number = index.number(entry)
    written_unit = number.unit  # a scaled twin may not carry its digits' currency
    if number.mantissa and entry > 0:
        entry -= 1  # the scaled twin stands before its digits
        number = index.number(entry)
    full = float(number.full_value)
    written = float(number.written)
    percent = number.is_percent
    digits = 1.0 if percent or not written else abs(full / written)
    unscaled = False
    if not number.has_scale and not percent:
        unit = units.get(number.item)
        if unit is None:
            declared = index.declared_scale(number.item)
            unscaled = declared is None
            unit = float(declared) if declared is not None else 1.0
        full *= unit
        digits *= unit
    return Operand(
        value=full,
        text=number.raw if claim is None else claim.mention.text,
        percent=percent,
        digits=digits,
        strength=strength,
        row=rows.row_of.get(entry, -1),
        column=rows.column_of.get(entry, -1),
        unscaled=unscaled,
        item=number.item,
        reported=claim is not None,
        entry=entry,
        position=-1 if claim is None else claim.index,
        unit=number.unit or written_unit or _derive_rows.spaced_unit(index, entry),
        also=_derive_rows.twins(index, rows, entry),
        negative=_derive_rows.negative_cell(index, entry),
        total=rows.row_of.get(entry, -1) in rows.totals.get(number.item, ()),
    )


def supported(claim: Claim) -> bool:
    return (
        claim.hit is not None
        or (claim.calculation is not None and claim.calculation.correct)
        or claim.derivation is not None
        or bool(claim.computed)
    )


def _report_operand(
    claim: Claim, index: EvidenceIndex, rows: _Rows, units: dict[int, float], strength: int
) -> Operand:
    mention = claim.mention
    hit = claim.hit
    if hit is not None and hit.number.is_percent == mention.is_percent:
        return _evidence_operand(index, rows, units, hit.number.entry, strength, claim)
    if hit is not None and mention.unit == "%" and hit.number.entry in rows.row_of:
        # A rate the evidence writes without its sign (a JSON record's 2.0 for 2.0 %): the
        # report's percentage, in its cell's row and column. (A change in points that
        # matches a bare cell is no rate of it.)
        cell = _evidence_operand(index, rows, units, hit.number.entry, strength, claim)
        return replace(cell, value=float(mention.value), percent=True, digits=1.0, unit="%")
    how = claim.computed
    if claim.derivation is not None:
        how = claim.derivation.formula
    elif claim.calculation is not None and claim.calculation.correct:
        how = claim.calculation.calculation.expression
    # The cells of a result of the claim's own sentence (`pool`), not of one elsewhere.
    mine = claim.derivation if strength == STATED else None
    sources = cells_of(index, mine.entries) if mine is not None else ()
    if claim.derivation is not None and not mention.is_percent:
        value = in_full_units(float(claim.derivation.value), float(mention.value))
    else:
        value = float(mention.value)
    return Operand(
        value=value,
        text=mention.text,
        percent=mention.is_percent,
        digits=1.0 if mention.is_percent else float(mention.scale),
        strength=strength,
        row=-1,
        column=-1,
        reported=True,
        position=claim.index,
        unit=mention.unit,
        change=not mention.is_percent and bool(DIFFERENCE.fullmatch(bare(how))),
        sources=sources,
        mean=mine is not None and MEAN.fullmatch(bare(how)) is not None,
        derived=bool(how),
    )


def derived_cells(claim: Claim, index: EvidenceIndex) -> tuple[int, ...]:
    """The evidence cells a report's derived number was computed from."""
    derivation = claim.derivation
    return cells_of(index, derivation.entries) if derivation is not None else ()


def bare(formula: str) -> str:
    """A formula without its chance or its written result."""
    return formula.split(" (chance")[0].split(" = ")[0]


DIFFERENCE = re.compile(r"[^-+*/()]+ - [^-+*/()]+")
MEAN = re.compile(r"\([^()]+\) / [2-9]")  # "(a + b) / 2"


def pool(
    position: int,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: tuple[int, int],
    words: str,
    units: dict[int, float],
    previous: tuple[int, int] = (0, 0),  # the sentence before it
    headed: Sequence[int] = (),  # the rows its heading names (`_derive_heading`)
) -> list[Operand]:
    """The operands offered to the claim at `position`, strongest first."""
    rows = _rows(index)
    found: list[Operand] = []
    seen: dict[tuple[float, bool], set[tuple[int, int]]] = {}  # a value's places
    claim_value = abs(claims[position].mention.value)

    def add(operand: Operand) -> None:
        key = (round(operand.value, 9), operand.percent)
        if len(found) >= _MAX_POOL or operand.value == 0:
            return
        place = (operand.row, operand.column)
        places = seen.get(key)
        if places is not None:
            if not _repeated(places, place):
                return  # one value is one operand, but a row's repeated value is a cell of it
            operand = replace(operand, repeat=True)
        seen.setdefault(key, set()).add(place)
        found.append(operand)

    offered: set[int] = set()  # evidence entries already offered
    # A change in points takes rates: the rows of bare JSON values a stated rate writes.
    rates: set[int] = set()
    mention = claims[position].mention
    in_words = replace(mention, end=mention.end - sentence[0])  # its place in `words`
    points = mention.unit == "pp" or points_of(words, in_words)

    def add_entry(entry: int, strength: int) -> None:
        if len(found) < _MAX_POOL and entry not in offered:
            offered.add(entry)
            cell = _evidence_operand(index, rows, units, entry, strength)
            if cell.row in rates and not cell.percent and period_value(index, cell.entry):
                # "2018": 16.1 beside the "2019": 13.1 of "13.1%": that line's other period
                value = float(index.value_of(cell.entry))
                cell = replace(cell, value=value, percent=True, digits=1.0, unit="%")
            add(cell)

    low, high = sentence
    near: list[Claim] = []
    others: list[Claim] = []
    for other_position in around(position, len(claims)):
        other = claims[other_position]
        if not supported(other) or (other.mention.in_range and other.hit is None):
            continue  # a bound is no quantity, unless it restates an evidence cell
        if abs(other.mention.value) == claim_value and other.hit is None:
            continue
        (near if low <= other.mention.start < high else others).append(other)
    periods: list[int] = []  # the same line item's other periods
    column: list[int] = []  # the same period's other line items (its total)
    sources: list[int] = []  # the cells of the results the sentence derives
    implied = implied_levels(index, rows)  # prose levels their sentence gives a change of
    earlier: list[Operand] = []
    for other in near:
        operand = _report_operand(other, index, rows, units, STATED)
        add(operand)
        if operand.row >= 0:
            if operand.percent and points and period_value(index, operand.entry):
                rates.add(operand.row)  # "13.1%" of a record's "2019": 13.1, a rate row
            periods += rows.cells[operand.row][:MAX_GROUP]
            if len(rows.cells[operand.row]) == 1:  # a lone figure of prose: a table's row too
                periods += restating_rows(index, rows, operand.entry, label_tokens(words))
            column += column_cells(rows, index, operand.row, operand.column)[:_MAX_POOL]
            periods += finer_cells(index, rows, units, operand.row)  # its table's digits
            earlier += [operand] if operand.row in implied else []
        elif other.derivation is not None:
            # A result the sentence states from evidence cells: those cells are the
            # writer's operands too (the two values an average takes, and their change).
            sources += operand.sources[:MAX_GROUP]
    if periods and says_total(words):
        # "totalled ... up from ...": the totals of the stated line item's other periods too.
        for entry in periods:
            place = rows.row_of[entry], rows.column_of[entry]
            column += column_cells(rows, index, *place)[:_MAX_POOL]
    for entry in periods:
        add_entry(entry, NEAR)
    for level in earlier:  # "$1,952 million, an increase of $473 million": the year before
        change, sign = implied[level.row]
        add(_implied(level, _evidence_operand(index, rows, units, change, NEAR), sign))
    clause = _own_words(claims, position, sentence, words) if not mention.in_table else ()
    own, named = named_rows(rows, mention.label, words, clause)
    if not (near or own or named):  # "The same pair totalled $17.2 million a year earlier."
        for entry in carried_over(claims, previous, words, index, rows):
            add_entry(entry, NEAR)
        # A lone result takes what the sentence before it states ("... while some $546
        # million vested. Vesting therefore covered about 65.2% of new grants.").
        for other in others if previous[0] < previous[1] and not headed else ():
            if previous[0] <= other.mention.start < previous[1]:
                add(_report_operand(other, index, rows, units, NEAR))
    for row in own:
        for entry in rows.cells[row][:MAX_GROUP]:
            add_entry(entry, NEAR)
    for row in [*named, *_total_rows(rows, index, words, near, others), *headed]:
        for entry in rows.cells[row][:MAX_GROUP]:
            add_entry(entry, NAMED)
    for entry in column:
        add_entry(entry, NAMED)
    for entry in sources:
        add_entry(entry, NAMED)
    later: list[int] = []  # the rows of the numbers stated elsewhere
    computed: list[int] = []  # the rows the results stated elsewhere were computed from
    for other in others:
        if len(found) >= _MAX_POOL:
            break
        operand = _report_operand(other, index, rows, units, BESIDE)
        add(operand)
        if operand.row >= 0:
            later.append(operand.row)
        else:
            computed += [rows.row_of.get(entry, -1) for entry in derived_cells(other, index)]
    for row in later:  # its cells, then its finer rows' (looked up while there is room)
        for entry in rows.cells[row][:MAX_GROUP]:
            add_entry(entry, BESIDE)
        for entry in finer_cells(index, rows, units, row) if len(found) < _MAX_POOL else ():
            add_entry(entry, BESIDE)
    for row in dict.fromkeys(computed):  # the weakest: any pair of them is of the last tier
        for entry in rows.cells[row][:MAX_GROUP] if row >= 0 else ():
            if len(found) < _MAX_POOL and entry not in offered:
                offered.add(entry)
                add(replace(_evidence_operand(index, rows, units, entry, BESIDE), far=True))
    counted = [found[place] for place in per_counts(words, found, rows.tokens)]
    found += [
        replace(cell, value=cell.value / cell.digits, digits=1.0, also=()) for cell in counted
    ]
    return found  # (a row "per restaurant" names is a count: also as written)


def _implied(level: Operand, change: Operand, sign: int) -> Operand:
    """The level before a prose level's stated change (`sign` 1 a rise, -1 a fall), as
    its row's other period."""
    return replace(
        level,
        value=level.value - sign * change.value,
        text=f"({level.text} {'-' if sign > 0 else '+'} {change.text})",
        strength=NEAR,
        column=level.column + 1,
        reported=False,
        entry=-1,
        position=-1,
        also=(),
    )


def _repeated(places: set[tuple[int, int]], place: tuple[int, int]) -> bool:
    """A row writes the value again ("1.7 | 1.5 | 1.5"), or holds a value the report states
    as a result of its own (no cell): its sum and average take the cell too, its pairs
    the first."""
    row = place[0]
    return row >= 0 and place not in places and all(seen in (row, -1) for seen, _ in places)


def _total_rows(
    rows: _Rows, index: EvidenceIndex, words: str, near: Sequence[Claim], others: Sequence[Claim]
) -> list[int]:
    """The total rows a sentence names by "total", "combined" or "in all" (no label keeps
    it): those of the table its own numbers, else the report's nearest, are cells of, else
    of the evidence's one table with total rows."""
    if not rows.totals or not says_total(words):
        return []
    for claim in (*near, *others):
        if claim.hit is not None and (found := rows.totals.get(claim.hit.number.item)):
            return found[:_MAX_NAMED]
    if len(rows.totals) == 1:  # no number of the report points to a table: the one with totals
        return next(iter(rows.totals.values()))[:_MAX_NAMED]
    return []


def _own_words(
    claims: Sequence[Claim], position: int, sentence: tuple[int, int], words: str
) -> tuple[str, str]:
    """The words of the claim's own clause: before it, back to the clause's start or the
    previous number (no further than its label), and the noun phrase right after it, up to
    the clause's end or the next number ("a $12.1 million decline in accrued compensation
    and benefits" names its line item after the number; "a new $16.7 million liability for
    derivative financial instruments, partly offset by ..." ends at the comma)."""
    low, high = sentence
    mention = claims[position].mention
    start = low
    if position and claims[position - 1].mention.end > low:
        start = min(mention.start, claims[position - 1].mention.end)
    before = words[start - low : mention.start - low]
    cut = max(before.rfind(mark) for mark in _CLAUSE_MARKS)
    if cut >= 0:
        before = before[cut + 1 :]
    # No further back than its label reaches (a label keeps its nearest words only).
    before = " ".join(before.split()[-len(mention.label.split()) :]) if mention.label else ""
    end = mention.end
    if position + 1 < len(claims):
        high = min(high, max(end, claims[position + 1].mention.start))
    found = _CLAUSE_END.search(words, end - low, high - low)
    return before, words[end - low : found.start() if found else high - low]


_CLAUSE_MARKS = (",", ";", ":", "(", ")", "\n", "|")
_CLAUSE_END = re.compile(r"[,;:()\n|]|\. ")


def around(position: int, count: int) -> Iterator[int]:
    """The positions of the claims nearest `position`, either side, nearest first: a
    bounded window, so a wall of numbers costs the same per number as a memo."""
    for step in range(1, _REACH + 1):
        if position - step >= 0:
            yield position - step
        if position + step < count:
            yield position + step


_CHANGE_FORMULA = re.compile(r"\((?P<a>[^()]+) - (?P<b>[^()]+)\) / (?P<base>[^()]+) \* 100")
_LAST_NUMBER = re.compile(r"-?[\d,]*\.?\d+(?!.*\d)")


def wrong_base_change(formula: str, direction: int) -> bool:
    """A percentage change taken over the level it ended at: "up" over the larger of
    the two, "down" over the smaller."""
    found = _CHANGE_FORMULA.fullmatch(bare(formula))
    if found is None or not direction:
        return False
    numbers = []
    for name in ("a", "b", "base"):
        number = _LAST_NUMBER.search(found.group(name))
        if number is None:
            return False
        numbers.append(abs(float(number.group().replace(",", ""))))
    first, second, base = numbers
    if base not in (first, second) or first == second:
        return False
    end = max(first, second) if direction > 0 else min(first, second)
    return base == end


def direction_of(body: str, claims: Sequence[Claim], position: int, low: int, high: int) -> int:
    """A rise (1) or a fall (-1) the claim's words say, else the nearest word of
    direction before it in its sentence ("a decline of $93.3 million, or about 7.7%")."""
    mention = claims[position].mention
    before = claims[position - 1].mention.end if position else low
    after = claims[position + 1].mention.start if position + 1 < len(claims) else high
    cue = cue_of(body, mention.start, mention.end, (low, high), before, after)
    return cue.direction or _direction(_WORD.findall(body[low : mention.start].lower()))


def points_of(body: str, mention: NumberMention) -> bool:
    """A number written as points ("1.1 points", "0.4 pp"): a difference of percentages
    (basis points are hundredths of one, and not read here)."""
    after = body[mention.end : mention.end + 24].lower().split()
    if not after:
        return False
    word = after[0].strip(".,;:)")
    if word == "percentage" and len(after) > 1:
        word = after[1].strip(".,;:)")
    return word in _POINT_WORDS


_POINT_WORDS = frozenset(("point", "points", "pts", "pp", "ppt", "ppts"))
