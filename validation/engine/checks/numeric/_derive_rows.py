"""The evidence in rows, for the derived search (:mod:`._derive_pool`): each number's row
and column (a table's row label and cell position, a JSON object's path and key), the
words that name each row (a markdown row without a label takes its section's heading;
a word its label writes in capitals names it alone), and each table's total rows (a row
labelled "Total", or an unlabelled row that sums the rows just above it), and a cell's
twins (`twins`: the cells of other rows of its table that write its value). Built once per
evidence index and kept in its memo.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens, overlap
from validation.engine.checks.numeric._prose_rows import prose_groups

MAX_GROUP = 8  # cells of a row or column summed or averaged as a whole


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
    acronyms: dict[str, list[int]]  # the rows whose label writes a word in capitals ("EBT")
    sentence_rows: dict[int, list[int]]  # a prose row: the rows of its sentence (its columns)
    # A lone evidence number: the words of the noun phrase its own words end in, before it
    # ("pre-tax acquisition expenses of $15.4 million": acquisition, expense).
    heads: dict[int, frozenset[str]]


def _rows(index: EvidenceIndex) -> _Rows:
    remembered: _Rows | None = index.memo.get(("derive-rows",))
    if remembered is not None:
        return remembered
    row_of: dict[int, int] = {}
    column_of: dict[int, int] = {}
    cells: list[list[int]] = []
    tokens: list[frozenset[str]] = []
    by_item_column: dict[tuple[int, int], list[int]] = {}
    last: tuple[int, str] | tuple[int, int, str, int] | None = None
    json_columns: dict[tuple[int, str], list[int]] = {}
    key_places: dict[tuple[int, str], dict[str, int]] = {}  # a JSON object's keys, in order
    totals: dict[int, list[int]] = {}
    acronyms: dict[str, list[int]] = {}
    heads: dict[int, frozenset[str]] = {}
    sections: dict[int, dict[str, list[frozenset[str]]]] = {}
    groups = prose_groups(index)  # a prose sentence's one quantity over its years
    group_rows: dict[tuple[int, int, str, int], int] = {}
    # Every entry of the index passes here once, read in one pass (no record is built).
    text_items = [item.text is not None for item in index.items]
    parents: dict[str, str] = {}  # a JSON row's label -> its object's parent path
    current: list[int] = []  # the cells of the row being filled
    row = -1
    places: dict[str, int] = {}  # a JSON row's object's keys, in order
    places_row = -1  # the row `places` is of
    skipped = 0  # a text row's dashed cells ("—") so far: they hold columns too
    last_end = 0  # where the row's last number ends in its item's text
    for entry, item, label, key_in in index.labelled_entries():
        # A JSON path: the object holding the number is its row ("line_items.Total"), its
        # key the column ("2019"), the path split at its last dot.
        column_key = ""
        if key_in is not None and label and "." not in key_in:
            column_key = key_in  # "path.key": the object's path, and the key
        else:
            if key_in is not None:
                label = f"{label}.{key_in}" if label else key_in
            if not text_items[item] and "." in label:
                label, column_key = label.rsplit(".", 1)
        group = groups.get(entry) if text_items[item] else None
        if group is not None and group in group_rows:
            grouped = group_rows[group]
            row_of[entry] = grouped
            column_of[entry] = len(cells[grouped])
            cells[grouped].append(entry)
            last = group
            continue
        key: tuple[int, str] | tuple[int, int, str, int] = (item, label) if group is None else group
        if key != last or len(current) >= MAX_GROUP * 2:
            current, skipped = [], 0
            cells.append(current)
            row = len(cells) - 1
            words = label_tokens(label)
            if text_items[item] and not label.strip():
                words = _section_name(index, sections, item, index.number(entry).raw)
            tokens.append(words)
            if text_items[item] and (head := head_words(label)):
                heads[row] = head
            for acronym in set(_CAPITALS.findall(label)):
                acronyms.setdefault(acronym, []).append(row)
            last = key
            if _TOTAL_LABEL.match(label.rsplit(".", 1)[-1]):
                totals.setdefault(item, []).append(row)
            if group is not None:
                group_rows[group] = row
        row_of[entry] = row
        if column_key:
            # Its key's place among its object's keys, not its place in the row: a line
            # item without one period's value keeps its other values in their columns.
            if places_row != row:
                parent = parents.get(label)
                if parent is None:
                    parent = parents[label] = label.rsplit(".", 1)[0]
                places, places_row = key_places.setdefault((item, parent), {}), row
            column_of[entry] = places.setdefault(column_key, len(places))
            json_columns.setdefault((item, column_key), []).append(entry)
        else:
            if text_items[item] and (span := index.text_span(entry)) is not None:
                text = index.items[item].text or ""
                skipped += dashed_cells(text, last_end if current else -1, span[0])
                last_end = span[1]
            column_of[entry] = len(current) + skipped
        current.append(entry)
    prose = set(group_rows.values())
    by_sentence: dict[tuple[int, int, str], list[int]] = {}
    for group, row in group_rows.items():
        by_sentence.setdefault(group[:3], []).append(row)
    sentence_rows = {row: by_sentence[group[:3]] for group, row in group_rows.items()}
    for row, entries in enumerate(cells):
        if len(entries) < 2 or index.items[index.item_of(entries[0])].text is None:
            continue  # a lone number (prose) is no table row; JSON has its keys
        if row in prose:
            continue  # a prose row's places are its sentence's order, no table's columns
        item = index.item_of(entries[0])
        for entry in entries:
            by_item_column.setdefault((item, column_of[entry]), []).append(entry)
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
    heads = {row: head for row, head in heads.items() if len(cells[row]) == 1}
    found = _Rows(
        row_of,
        column_of,
        cells,
        tokens,
        by_item_column,
        postings,
        totals,
        acronyms,
        sentence_rows,
        heads,
    )
    index.remember(("derive-rows",), found)
    return found


def dashed_cells(text: str, start: int, end: int) -> int:
    """How many cells of a table row hold no number between `start` and the number at
    `end` of `text`: each a dash standing alone ("5,912  —  —  8,868", "| — |", "$ —").
    With `start` -1, the row's first number: the cells after its label's last word ("Cost
    of sales - products" keeps its hyphen), within a reach of the number."""
    if start < 0:
        before = text[max(0, end - _ROW_REACH) : end]
        tail = _NO_LETTERS.match(before[::-1])
        start = end - (tail.end() if tail else 0)
    return len(_DASH_CELL.findall(text, start, end))


_ROW_REACH = 160  # how far before a row's first number its dashed cells are looked for
# A dash alone in a cell: between spaces or bars, after a currency sign at most.
_DASH_CELL = re.compile(r"(?<![^\s|$])[\u2014\u2013\u2212-]+(?![^\s|])")
_NO_LETTERS = re.compile(r"[^\w\n]*")  # read backwards: a row's cells after its label
_CAPITALS = re.compile(r"\b[A-Z]{2,6}\b")
_HEAD_WORD = re.compile(r"[a-z]+")
# The words that link a noun phrase to its number ("expenses of $15.4 million", "costs
# were $6.8 million"); a phrase before any other word ("sales increased by") is no name.
_LINKS = frozenset(("of", "was", "were", "is", "are", "totaled", "totalled", "amounted", "to"))
_LINK_FILLERS = frozenset(("approximately", "about", "roughly", "nearly", "some", "to"))


def head_words(label: str) -> frozenset[str]:
    """The words of the noun phrase a number's own words end in ("Fiscal 2019 also includes
    pre-tax acquisition expenses of": acquisition, expense): its last two words, when a
    word of linking ("of", "were", "totaled") stands between them and the number, and
    each is a content word."""
    words = _HEAD_WORD.findall(label.lower())
    while words and words[-1] in _LINK_FILLERS:
        words.pop()
    if len(words) < 3 or words[-1] not in _LINKS:
        return frozenset()
    parts = [label_tokens(word) for word in words[-3:-1]]
    if not all(parts):
        return frozenset()
    return frozenset().union(*parts)


_TOTAL_LABEL = re.compile(r"\s*(?:grand\s+)?totals?\b", re.IGNORECASE)


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


def cell_at(rows: _Rows, row: int, column: int) -> int | None:
    """The cell of `row` in `column` (a table's column, a JSON object's key), if it has one."""
    return next((entry for entry in rows.cells[row] if rows.column_of[entry] == column), None)


def column_cells(rows: _Rows, index: EvidenceIndex, row: int, column: int) -> list[int]:
    """The cells of one column beside a row's cell (the same period's other line items):
    a table's column, or the same place in the other rows of a prose sentence."""
    siblings = rows.sentence_rows.get(row)
    if siblings is not None:
        return [rows.cells[other][column] for other in siblings if len(rows.cells[other]) > column]
    item = index.number(rows.cells[row][0]).item
    return rows.by_item_column.get((item, column), [])


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
    """For each unlabelled row of a markdown table or a text layout (by the digits of its
    first number, in order), the label words of the last heading row above it (a label, no
    numbers; in a layout, a line ending in a colon: "Other current assets:")."""
    found: dict[str, list[frozenset[str]]] = {}
    heading: frozenset[str] = frozenset()
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if line.endswith(":") and not any(ch.isdigit() for ch in line):
                heading = label_tokens(line)
            elif line[:1] in _FIGURE_STARTS and heading and any(ch.isdigit() for ch in line):
                first = next(word for word in line.split() if any(c.isdigit() for c in word))
                found.setdefault(_digits_of(first), []).append(heading)
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        label, rest = cells[0], cells[1:]
        numbers = [cell for cell in rest if any(ch.isdigit() for ch in cell)]
        if label and not numbers and not _UNITS_LINE.match(label):
            heading = label_tokens(label)  # not "(In thousands of dollars)": no section
        elif not label and numbers and heading:
            found.setdefault(_digits_of(numbers[0]), []).append(heading)
    return found


_FIGURE_STARTS = frozenset("$€£(0123456789")  # a layout line of figures alone
_UNITS_LINE = re.compile(r"\(?\s*in\s+(?:thousands|millions|billions)\b", re.IGNORECASE)


def _digits_of(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit() or ch == ".").strip(".")


def has_twin_row(index: EvidenceIndex, entry: int) -> bool:
    """Another row of the entry's evidence item has the same label words (a
    "Domestic - state" line under two headings): its label does not pin one cell."""
    rows = _rows(index)
    row = rows.row_of.get(entry)
    return row is not None and bool(same_label_rows(index, rows, row))


def same_label_rows(index: EvidenceIndex, rows: _Rows, row: int) -> list[int]:
    """The other rows of the row's evidence item with the same label words, in order (none
    for a row without words): the same line items under another heading or period."""
    words = rows.tokens[row]
    if not words:
        return []
    item = index.item_of(rows.cells[row][0])
    return [
        other
        for other in rows.postings.get(min(words), ())
        if other != row
        and rows.tokens[other] == words
        and rows.cells[other]
        and index.item_of(rows.cells[other][0]) == item
    ]


def row_of_cell(rows: _Rows, entry: int) -> int | None:
    """The row of a cell, or of the scaled number whose as-written twin it is (the twin
    stands right after its digits and has no row of its own)."""
    row = rows.row_of.get(entry)
    if row is None and entry > 0:
        row = rows.row_of.get(entry - 1)
    return row


def better_named_row(index: EvidenceIndex, entry: int, words: frozenset[str]) -> bool:
    """Another row of the evidence has a label that `words` (a report figure's own words)
    fit better than the entry's: "net cash outflow" names a table's "Net cash provided by
    ..." lines more than a prose figure "a net decrease in cash from short-term
    investments of $43.0 million", so the words do not single that figure out. Rows are
    scored as the close match scores labels (shared words over the smaller label)."""
    rows = _rows(index)
    row = row_of_cell(rows, entry)
    if row is None or not words:
        return False
    own = overlap(words, rows.tokens[row])
    shared: dict[int, int] = {}
    for word in words:
        for other in rows.postings.get(word, ())[:_MAX_NAMED]:
            shared[other] = shared.get(other, 0) + 1
    return any(
        other != row
        and count / max(1, min(len(words), len(rows.tokens[other]), 4)) > own
        and bool(rows.cells[other])
        for other, count in shared.items()
    )


def negative_cell(index: EvidenceIndex, entry: int) -> bool:
    """The cell writes its number negative: in parentheses or after a minus sign, with
    only a currency sign or spaces between ("(692,999)", "$ (74,599)", "-12"), or a JSON
    number below zero. The index keeps magnitudes; a net over a table's lines needs their
    signs. A number closed by anything but its parenthesis ("($5.2 million)") is an aside."""
    span = index.text_span(entry)
    if span is None:
        return index.negative_scalar(entry)
    text = index.items[index.item_of(entry)].text or ""
    at = span[0] - 1
    while at >= 0 and span[0] - at <= _SIGN_REACH and text[at] in " $\u00a0":
        at -= 1
    if at < 0:
        return False
    if text[at] == "(":  # "(692,999)"; "($5.2 million)" in prose is an aside
        return text[span[1] : span[1] + 1] == ")"
    return text[at] in "-\u2212" and not (at and text[at - 1].isalnum())  # not "2018-12"


_SIGN_REACH = 4  # characters between a cell's sign and its digits ("$ (74,599)")


_MAX_NAMED = 400  # the rows of one label word looked at (a time series repeats its words)


_MAX_TWINS = 3  # the other cells a value's operand keeps as its places
_TWIN_DIGITS = 3  # the significant digits a value needs for its cells to be one quantity


def twins(index: EvidenceIndex, rows: _Rows, entry: int) -> tuple[tuple[int, int, int], ...]:
    """The other cells of the entry's table, in other rows, that write its value of three
    significant digits or more (a year's closing balance is the next year's opening; a
    table's one line is its total too)."""
    row = rows.row_of.get(entry, -1)
    if row < 0:
        return ()
    number = index.number(entry)
    found = _cells_by_value(index, rows, number.item).get(number.written, ())
    return tuple(
        (rows.row_of[other], rows.column_of.get(other, -1), number.item)
        for other in found
        if rows.row_of[other] != row
    )[:_MAX_TWINS]


def restating_rows(
    index: EvidenceIndex, rows: _Rows, entry: int, words: frozenset[str]
) -> list[int]:
    """The cells of the table rows, in other evidence items, that write the value of a
    lone figure of prose (the filing's "grew 1.2% to S$3.65 billion" and a tool's row
    "Group free cash flow": 3,650, 3,606 in S$ million), at any scale, where the report's
    sentence (`words`) names the row: the line item's other periods the prose leaves
    out."""
    magnitude = index.magnitude(entry)
    item = index.item_of(entry)
    found: set[int] = set()
    for scale in _SCALES:
        value = magnitude / scale
        for other in index.nearest(value, value * _SAME_LOW, value * _SAME_HIGH, 4):
            if index.is_mantissa(other) and other > 0:
                other -= 1  # the scaled twin stands before its digits
            row = rows.row_of.get(other)
            if row is None or len(rows.cells[row]) < 2 or index.item_of(other) == item:
                continue
            if rows.tokens[row] & words:
                found.add(row)
    # One row, or none: a value several rows write says nothing of which line it is.
    return rows.cells[found.pop()][:MAX_GROUP] if len(found) == 1 else []


_SAME_LOW, _SAME_HIGH = 1 - 1e-9, 1 + 1e-9  # one value, whatever its float's last bit
_SCALES = (1.0, 1e3, 1e6, 1e9)  # a table's digits in units, thousands, millions, billions


def _cells_by_value(index: EvidenceIndex, rows: _Rows, item: int) -> dict[Decimal, list[int]]:
    """One evidence item's cells by the value they write, built once per item of an index
    (only the items a claim's operands lie in are read)."""
    key = ("derive-twins", item)
    remembered: dict[Decimal, list[int]] | None = index.memo.get(key)
    if remembered is not None:
        return remembered
    found: dict[Decimal, list[int]] = {}
    row_of, raw_of = rows.row_of, index.raw_of  # no full record per cell
    span = index.items[item]
    for entry in range(span.first, span.last):
        if entry not in row_of:
            continue
        raw = raw_of(entry)
        # Two cells of one or two digits agree by chance too often to be one quantity.
        if _significant(raw) >= _TWIN_DIGITS:
            found.setdefault(Decimal(raw), []).append(entry)
    index.remember(key, found)
    return found


def _significant(raw: str) -> int:
    """The significant digits of a number as written ("1200" and "0.0120" have two)."""
    if raw.isdigit():
        return len(raw.lstrip("0").rstrip("0"))
    if raw.replace(".", "", 1).isdigit():
        return len(raw.replace(".", "", 1).lstrip("0").rstrip("0"))
    return len(abs(Decimal(raw)).normalize().as_tuple().digits)


_SPACED_REACH = 8  # characters before a number read for a currency sign set apart from it
_SPACED = re.compile(r"([$€£¥])[ \t]+\Z")


def spaced_unit(index: EvidenceIndex, entry: int) -> str:
    """The currency sign a filing's aligned column sets apart from a cell's digits ("$
    9.0" over "$12.2"): the cell's unit, as if written against it. Empty otherwise."""
    span = index.text_span(entry)
    if span is None:
        return ""
    text = index.items[index.item_of(entry)].text or ""
    found = _SPACED.search(text, max(0, span[0] - _SPACED_REACH), span[0])
    return found.group(1) if found else ""


def period_value(index: EvidenceIndex, entry: int) -> bool:
    """A JSON value under a key that names a period ("2019", "Q4 2018"): one of a line's
    values over time (not its "% CHANGE" beside them)."""
    if index.text_span(entry) is not None:
        return False
    return _PERIOD_KEY.search(index.number(entry).label.rsplit(".", 1)[-1]) is not None


# A JSON key that names a period ("2019", "FY2018", "Q4 2019"): a line's values over time.
_PERIOD_KEY = re.compile(r"(?:19|20)\d\d|^(?:Q[1-4]|H[12]|FY)\b", re.IGNORECASE)


def cells_of(index: EvidenceIndex, entries: Sequence[int]) -> tuple[int, ...]:
    """The entries of a derivation's cells as the pool keeps them (a scaled twin's digits)."""
    return tuple(
        entry - 1 if entry > 0 and index.is_mantissa(entry) else entry for entry in entries
    )


def total_rows(index: EvidenceIndex) -> frozenset[int]:
    """The rows of the evidence that are totals (a "Total" line, an unlabelled sum line)."""
    return frozenset(row for rows in _rows(index).totals.values() for row in rows)
