"""The operands of the derived search (:mod:`._derive`): the numbers a careful reader
would compute a claim from, strongest first.

- **stated**: the supported numbers of the claim's own sentence;
- **near**: the other cells of their rows (other periods of the same line item), and the
  cells of the row the claim's own label names;
- **named**: the rows its sentence names, and the cells of a stated number's column;
- **beside**: every other supported number of the report, and the cells of its row.

Rows and columns come from the evidence (a table's row label and cell position, a JSON
object's path and key; a markdown row without a label takes its section's heading); a row
is named by a text that shares half its label words, or four of them; evidence digits
whose scale nothing states are read at the scale the report reads them at elsewhere. The
pool is bounded: `_MAX_POOL` operands, found among the `_REACH` claims on each side.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from validation.engine.checks.numeric._cues import _WORD, _direction, cue_of
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim

STATED, NEAR, NAMED, BESIDE = 4, 3, 2, 1  # operand strengths
MAX_GROUP = 8  # cells of a row or column summed or averaged as a whole
_MAX_POOL = 24  # operands offered to one claim
_MAX_NAMED = 3  # rows named by one text
_COMMON = 64  # a word in more rows than this names none of them
_REACH = 24  # claims looked at on each side for operands


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


@dataclass(frozen=True, slots=True)
class _Rows:
    """The evidence in rows: each non-twin entry's row and column, each row's cells."""

    row_of: dict[int, int]
    column_of: dict[int, int]
    cells: list[list[int]]
    tokens: list[frozenset[str]]
    by_item_column: dict[tuple[int, int], list[int]]
    postings: dict[str, list[int]]  # the rows whose label has a word
    totals: dict[int, list[int]]  # an item's total rows ("Total", an unlabelled sum line)


def _rows(index: EvidenceIndex) -> _Rows:
    remembered: _Rows | None = index.memo.get(("derive-rows",))
    if remembered is not None:
        return remembered
    row_of: dict[int, int] = {}
    column_of: dict[int, int] = {}
    cells: list[list[int]] = []
    tokens: list[frozenset[str]] = []
    by_item_column: dict[tuple[int, int], list[int]] = {}
    last: tuple[int, str] | None = None
    json_columns: dict[tuple[int, str], list[int]] = {}
    totals: dict[int, list[int]] = {}
    sections: dict[int, dict[str, list[frozenset[str]]]] = {}
    for entry in range(len(index)):
        if index.is_mantissa(entry):
            continue
        item = index.item_of(entry)
        label = index.label_of(entry)  # the record itself is built only for an operand
        column_key = ""
        if index.items[item].text is None and "." in label:
            # A JSON path: the object holding the number is its row ("line_items.Total"),
            # its key the column ("2019").
            label, column_key = label.rsplit(".", 1)
        key = (item, label)
        if key != last or len(cells[-1]) >= MAX_GROUP * 2:
            cells.append([])
            words = label_tokens(label)
            if not label.strip() and index.items[item].text is not None:
                words = _section_name(index, sections, item, index.number(entry).raw)
            tokens.append(words)
            last = key
            if _TOTAL_LABEL.match(label.rsplit(".", 1)[-1]):
                totals.setdefault(item, []).append(len(cells) - 1)
        row = len(cells) - 1
        row_of[entry] = row
        column_of[entry] = len(cells[row])
        cells[row].append(entry)
        if column_key:
            json_columns.setdefault((item, column_key), []).append(entry)
    for entries in cells:
        if len(entries) < 2 or index.items[index.item_of(entries[0])].text is None:
            continue  # a lone number (prose) is no table row; JSON has its keys
        item = index.item_of(entries[0])
        for column, entry in enumerate(entries):
            by_item_column.setdefault((item, column), []).append(entry)
    for (json_item, _), entries in json_columns.items():
        for entry in entries:
            by_item_column.setdefault((json_item, column_of[entry]), []).append(entry)
    lone = [place for place, members in by_item_column.items() if len(members) < 2]
    for place in lone:
        del by_item_column[place]
    _sum_lines(index, cells, tokens, totals)
    postings: dict[str, list[int]] = {}
    for row, words in enumerate(tokens):
        for word in words:
            postings.setdefault(word, []).append(row)
    found = _Rows(row_of, column_of, cells, tokens, by_item_column, postings, totals)
    index.remember(("derive-rows",), found)
    return found


_TOTAL_LABEL = re.compile(r"\s*(?:grand\s+)?totals?\b", re.IGNORECASE)
_TOTAL_WORDS = re.compile(
    r"\b(?:total|totals|totalled|totaled|combined|altogether|aggregate|in all|all told)\b",
    re.IGNORECASE,
)


def _sum_lines(
    index: EvidenceIndex,
    cells: list[list[int]],
    tokens: list[frozenset[str]],
    totals: dict[int, list[int]],
) -> None:
    """A row with no label words whose first cell is the sum of the first cells of the
    rows just above it (of its table) is that table's total line ("$2,636" under
    1,150, 1,301 and 185)."""
    for row, words in enumerate(tokens):
        if words or len(cells[row]) < 2:
            continue
        item = index.number(cells[row][0]).item
        if row in totals.get(item, ()):
            continue
        target = float(index.number(cells[row][0]).full_value)
        running, above = 0.0, row - 1
        while above >= 0 and row - above <= MAX_GROUP * 2:
            first = index.number(cells[above][0])
            if first.item != item or len(cells[above]) != len(cells[row]):
                break
            running += float(first.full_value)
            if row - above >= 2 and abs(running - target) <= 1e-9 * max(1.0, abs(target)):
                totals.setdefault(item, []).append(row)
                break
            above -= 1


def _section_name(
    index: EvidenceIndex,
    sections: dict[int, dict[str, list[frozenset[str]]]],
    item: int,
    raw: str,
) -> frozenset[str]:
    """The words of the heading that opens the section of a table's unlabelled row ("|
    Property and equipment: | | |" over "| | $830 | $1,449 |": the section's total)."""
    named = sections.get(item)
    if named is None:
        named = sections[item] = _unlabelled_rows(index.items[item].text or "")
    found = named.get(_digits_of(raw))
    return found.pop(0) if found else frozenset()


def _unlabelled_rows(text: str) -> dict[str, list[frozenset[str]]]:
    """For each unlabelled row of a markdown table (by the digits of its first number,
    in order), the label words of the last heading row above it (a label, no numbers)."""
    found: dict[str, list[frozenset[str]]] = {}
    heading: frozenset[str] = frozenset()
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        label, rest = cells[0], cells[1:]
        numbers = [cell for cell in rest if any(ch.isdigit() for ch in cell)]
        if label and not numbers:
            heading = label_tokens(label)
        elif not label and numbers and heading:
            found.setdefault(_digits_of(numbers[0]), []).append(heading)
    return found


def _digits_of(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit() or ch == ".").strip(".")


def units_of(claims: Sequence[Claim]) -> dict[int, float]:
    """For each evidence item whose numbers carry no scale, the scale the report reads
    them at ("$788.9 million" for a table's 788,948: thousands), when its reads agree."""
    seen: dict[int, set[float]] = {}
    for claim in claims:
        hit = claim.hit
        if hit is None or hit.number.has_scale or hit.number.is_percent:
            continue
        if claim.mention.is_percent or not claim.mention.has_explicit_scale:
            continue
        scale = float(claim.mention.scale / hit.factor)
        seen.setdefault(hit.number.item, set()).add(scale)
    return {item: scales.pop() for item, scales in seen.items() if len(scales) == 1}


def _evidence_operand(
    index: EvidenceIndex,
    rows: _Rows,
    units: dict[int, float],
    entry: int,
    strength: int,
    claim: Claim | None = None,  # the report's number this cell supports, if any
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
        unit=number.unit or written_unit,
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
    how = claim.computed
    if claim.derivation is not None:
        how = claim.derivation.formula
    elif claim.calculation is not None and claim.calculation.correct:
        how = claim.calculation.calculation.expression
    if claim.derivation is not None and not mention.is_percent:
        value = float(claim.derivation.value)
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
        unit=mention.unit,
        change=not mention.is_percent and bool(DIFFERENCE.fullmatch(bare(how))),
    )


def bare(formula: str) -> str:
    """A formula without its chance or its written result."""
    return formula.split(" (chance")[0].split(" = ")[0]


DIFFERENCE = re.compile(r"[^-+*/()]+ - [^-+*/()]+")


def _digits(full: Decimal, written: Decimal) -> float:
    return abs(float(full / written)) if written else 1.0


def pool(
    position: int,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: tuple[int, int],
    words: str,
    units: dict[int, float],
) -> list[Operand]:
    """The operands offered to the claim at `position`, strongest first."""
    rows = _rows(index)
    found: list[Operand] = []
    seen: set[tuple[float, bool]] = set()
    claim_value = abs(claims[position].mention.value)

    def add(operand: Operand) -> None:
        key = (round(operand.value, 9), operand.percent)
        if key not in seen and len(found) < _MAX_POOL and operand.value != 0:
            seen.add(key)
            found.append(operand)

    offered: set[int] = set()  # evidence entries already offered

    def add_entry(entry: int, strength: int) -> None:
        if len(found) < _MAX_POOL and entry not in offered:
            offered.add(entry)
            add(_evidence_operand(index, rows, units, entry, strength))

    low, high = sentence
    near: list[Claim] = []
    others: list[Claim] = []
    for other_position in around(position, len(claims)):
        other = claims[other_position]
        if not supported(other) or other.mention.in_range:
            continue
        if abs(other.mention.value) == claim_value and other.hit is None:
            continue
        (near if low <= other.mention.start < high else others).append(other)
    periods: list[int] = []  # the same line item's other periods
    column: list[int] = []  # the same period's other line items (its total)
    for other in near:
        operand = _report_operand(other, index, rows, units, STATED)
        add(operand)
        if operand.row >= 0:
            periods += rows.cells[operand.row][:MAX_GROUP]
            item = index.number(rows.cells[operand.row][0]).item
            column += rows.by_item_column.get((item, operand.column), ())
    for entry in periods:
        add_entry(entry, NEAR)
    own, named = _named_rows(rows, claims[position].mention.label, words)
    for row in own:
        for entry in rows.cells[row][:MAX_GROUP]:
            add_entry(entry, NEAR)
    for row in named + _total_rows(rows, index, words, near, others):
        for entry in rows.cells[row][:MAX_GROUP]:
            add_entry(entry, NAMED)
    for entry in column:
        add_entry(entry, NAMED)
    later: list[int] = []
    for other in others:
        if len(found) >= _MAX_POOL:
            break
        operand = _report_operand(other, index, rows, units, BESIDE)
        add(operand)
        if operand.row >= 0:
            later += rows.cells[operand.row][:MAX_GROUP]
    for entry in later:
        add_entry(entry, BESIDE)
    return found


def _total_rows(
    rows: _Rows, index: EvidenceIndex, words: str, near: Sequence[Claim], others: Sequence[Claim]
) -> list[int]:
    """The total rows a sentence names by "total", "combined" or "in all" (a word no
    label keeps): those of the table its own numbers, else the nearest numbers of the
    report, are cells of."""
    if not rows.totals or _TOTAL_WORDS.search(words) is None:
        return []
    for claim in (*near, *others):
        if claim.hit is not None:
            found = rows.totals.get(claim.hit.number.item)
            if found:
                return found[:_MAX_NAMED]
    return []


def _named_rows(rows: _Rows, label: str, words: str) -> tuple[list[int], list[int]]:
    """The evidence rows the claim's words name: most of a row's label words stand in
    the claim's own label, or in its sentence; more shared words first."""
    own: list[int] = []
    named: list[int] = []
    for found, text in ((own, label), (named, words)):
        wanted = label_tokens(text)
        if not wanted:
            continue
        candidates: set[int] = set()
        for token in wanted:
            posting = rows.postings.get(token, ())
            if len(posting) <= _COMMON:
                candidates.update(posting)
        scored = sorted(
            (-len(wanted & rows.tokens[row]), row)
            for row in candidates
            if _names(len(wanted & rows.tokens[row]), len(rows.tokens[row]))
        )
        found += [row for _, row in scored[:_MAX_NAMED] if row not in own]
    return own, named


def _names(shared: int, words: int) -> bool:
    """A text names a row when it shares half of the row's label words, or at least
    `_NAMING_WORDS` of them (a long label: "total deferred tax assets before valuation
    allowances" is named by "gross deferred tax assets")."""
    return shared * 2 >= words or shared >= _NAMING_WORDS


_NAMING_WORDS = 4  # label tokens, pairs of words included ("deferredtax")


def around(position: int, count: int) -> Iterator[int]:
    """The positions of the claims nearest `position`, either side, nearest first: a
    bounded window, so a wall of numbers costs the same per number as a memo."""
    for step in range(1, _REACH + 1):
        if position - step >= 0:
            yield position - step
        if position + step < count:
            yield position + step


_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")


def periods_named(words: str) -> list[int]:
    """The counts of periods between the years a sentence names ("since 2015" in a
    sentence about 2019: four)."""
    return list(_periods_named(words))


def years_named(words: str) -> frozenset[int]:
    """The years a sentence names ("3.7 times the 2019 figure": 2019)."""
    return frozenset(int(year) for year in _YEAR.findall(words))


@lru_cache(maxsize=16)
def _periods_named(words: str) -> tuple[int, ...]:
    # Each number of a sentence asks for its sentence's periods: a wall that is one sentence
    # is read once, not once per number searched.
    years = sorted({int(year) for year in _YEAR.findall(words)})
    return tuple(
        sorted({later - earlier for i, earlier in enumerate(years) for later in years[i + 1 :]})
    )


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
