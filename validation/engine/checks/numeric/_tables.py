"""Markdown tables in a text: where they are, their cells, the scale each column or
region declares ("in millions", "$000"), percent columns, dash cells and row labels.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise

from validation.engine.checks.numeric._lexicon import (
    _CUR_OR_CODE,
    _HEADING,
    _ONE,
    _SCALE_PHRASE,
    _SCALE_WORDS,
)


@dataclass(slots=True)
class _Table:
    start: int
    end: int
    header: list[tuple[int, int]]
    line_starts: list[int]
    rows: list[list[tuple[int, int]]]  # rows[0] is the header
    column_scale: dict[int, tuple[Decimal, str]] = field(default_factory=dict)
    percent_columns: frozenset[int] = frozenset()
    row_scale: dict[int, tuple[Decimal, str]] = field(default_factory=dict)
    table_scale: tuple[Decimal, str] | None = None

    def locate(self, pos: int) -> tuple[int, int]:
        """(row, column) of a position inside the table."""
        row = bisect_right(self.line_starts, pos) - 1
        cells = self.rows[row]
        column = 0
        for index, (cell_start, cell_end) in enumerate(cells):
            if cell_start <= pos < cell_end + 1:
                column = index
                break
        return row, column


def _find_tables(text: str) -> list[_Table]:
    """Markdown tables: a header row, a |---|---| separator, then rows with pipes."""
    tables: list[_Table] = []
    done = -1
    for separator in _SEPARATOR_LINE.finditer(text):
        sep_start = separator.start()
        if sep_start <= done or sep_start == 0 or "|" not in separator.group():
            continue
        header_end = sep_start - 1
        header_start = text.rfind("\n", 0, header_end) + 1
        if "|" not in text[header_start:header_end]:
            continue
        rows = [_cells(text, header_start, header_end)]
        line_starts = [header_start]
        end = header_end
        position = separator.end() + 1
        while position < len(text):
            line_end = text.find("\n", position)
            if line_end < 0:
                line_end = len(text)
            line = text[position:line_end]
            if "|" not in line or not line.strip():
                break
            rows.append(_cells(text, position, line_end))
            line_starts.append(position)
            end = line_end
            position = line_end + 1
        table = _Table(
            start=header_start, end=end, header=rows[0], line_starts=line_starts, rows=rows
        )
        _table_scales(text, table)
        tables.append(table)
        done = end
    return tables


_SEPARATOR_LINE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE
)


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    pipes = []
    pos = text.find("|", start, end)
    while pos >= 0:
        if pos == 0 or text[pos - 1] != "\\":
            pipes.append(pos)
        pos = text.find("|", pos + 1, end)
    bounds = [start - 1, *pipes, end]
    cells = [(left + 1, right) for left, right in pairwise(bounds)]
    if pipes and not text[start : pipes[0]].strip():
        cells = cells[1:]  # leading pipe
    if pipes and cells and not text[pipes[-1] + 1 : end].strip():
        cells = cells[:-1]  # trailing pipe
    return cells


def _scale_of_phrase(match: re.Match[str]) -> Decimal | None:
    word = next(
        (match.group(name) for name in ("w1", "w2", "w3", "w4", "w5") if match.group(name)), None
    )
    if word is None:
        return None
    return _SCALE_WORDS.get(word.lower().replace("\u2018", "'").replace("\u2019", "'"))


_SHORT_HEADER_SCALE = re.compile(
    rf"(?:\(|\b|^)(?:{_CUR_OR_CODE}|[$€£])[ ]*(?P<w>[kKmMbB]|mm|MM|mn|bn)\)?(?![A-Za-z])"
)


def _may_state_scale(cell: str) -> bool:
    return any(hint in cell for hint in _CELL_HINTS)


_CELL_HINTS = ("illion", "housand", "000", "$", "€", "£", "mn", "bn", "mm", "MM", "M)", "m)")


def _percent_columns(text: str, table: _Table) -> frozenset[int]:
    """Columns of percentages: "%" or "percent" in the header cell, or "%" on both the
    first and the last number of the column (statements write it only there)."""
    found: set[int] = set()
    width = len(table.header)
    for column in range(1, width):
        start, end = table.header[column]
        header = text[start:end]
        if "%" in header or "percent" in header.lower():
            found.add(column)
            continue
        numeric = [
            cell
            for cells in table.rows[1:]
            if column < len(cells)
            and _HAS_DIGIT.search(cell := text[cells[column][0] : cells[column][1]])
            and not _YEAR_CELL.fullmatch(cell.strip())
        ]
        if len(numeric) >= 2 and _lone_percent(numeric[0]) and _lone_percent(numeric[-1]):
            found.add(column)
    return frozenset(found)


def _lone_percent(cell: str) -> bool:
    """A cell that writes one number, with "%": "-362 (-22.3%)" writes an amount and its
    rate, and the sign is the rate's alone."""
    return "%" in cell and len(_NUMBER_RUN.findall(cell)) == 1


_NUMBER_RUN = re.compile(r"[0-9][0-9,.]*")


_HAS_DIGIT = re.compile(r"[0-9]")
_YEAR_CELL = re.compile(
    r"(?:FY|CY)?[ ]?(?:19|20)[0-9]{2}|[A-Z][a-z]{2,8}\.? [0-9]{1,2},? (?:19|20)[0-9]{2}"
)
_DASHES = frozenset(
    (
        "-",
        "\u2014",
        "\u2013",
        "- -",
        "\u2014 \u2014",
        "-\u2014",
        "nil",
        "Nil",
        "\u2014%",
        "- %",
        "-%",
    )
)


def _dash_cells(text: str, tables: list[_Table]) -> list[tuple[int, int, str, Decimal, str]]:
    """The cells of evidence tables that state nothing as a dash ("—", "-", "nil"):
    zeros, in `scan_numbers`' shape (a report's "$0" or "flat" restates them)."""
    found: list[tuple[int, int, str, Decimal, str]] = []
    for table in tables:
        for cells in table.rows[1:]:
            for column, (start, end) in enumerate(cells):
                if column == 0 or text[start:end].strip() not in _DASHES:
                    continue
                unit = "%" if column in table.percent_columns else ""
                found.append((start, end, "0", _ONE, unit))
    return found


def _table_scales(text: str, table: _Table) -> None:
    table.percent_columns = _percent_columns(text, table)
    for column, (start, end) in enumerate(table.header):
        cell = text[start:end]
        if not _may_state_scale(cell):
            continue
        match = _SCALE_PHRASE.search(cell)
        scale = _scale_of_phrase(match) if match else None
        if scale is None:
            short = _SHORT_HEADER_SCALE.search(cell)
            if short:
                scale = _SCALE_WORDS.get(short.group("w").lower())
                match = short
        if scale is not None and match is not None:
            if column == 0:
                table.table_scale = (scale, match.group().strip())
            else:
                table.column_scale[column] = (scale, match.group().strip())
    for row_index, cells in enumerate(table.rows[1:], start=1):
        if not cells:
            continue
        _units_row(text, table, cells)
        first = text[cells[0][0] : cells[0][1]]
        if not _may_state_scale(first):
            continue
        match = _SCALE_PHRASE.search(first) or _SHORT_HEADER_SCALE.search(first)
        if match:
            scale = (
                _scale_of_phrase(match)
                if match.re is _SCALE_PHRASE
                else _SCALE_WORDS.get(match.group("w").lower())
            )
            if scale is not None:
                table.row_scale[row_index] = (scale, match.group().strip())


def _units_row(text: str, table: _Table, cells: list[tuple[int, int]]) -> None:
    """A row that states units instead of values ("| | (Shares in thousands) | |
    (Dollars in millions) |", "| | Note | £m | £m |"): each cell's scale is its column's;
    a lone one ("| (In thousands) | | |") spans the table. A header's own scale stands."""
    written = [text[start:end].strip() for start, end in cells]
    if any(_HAS_DIGIT.search(cell) for cell in written):
        return
    scales: dict[int, tuple[Decimal, str]] = {}
    for column, cell in enumerate(written):
        if not cell or not _may_state_scale(cell):
            continue  # a blank, or a word beside the units ("| | Note | £m | £m |")
        match = _SCALE_PHRASE.search(cell)
        scale = _scale_of_phrase(match) if match else None
        if scale is None:
            match = _SHORT_HEADER_SCALE.search(cell)
            scale = _SCALE_WORDS.get(match.group("w").lower()) if match else None
        if scale is not None and match is not None:
            scales[column] = (scale, match.group().strip())
    if not scales:
        return
    if len(scales) == 1 and table.table_scale is None and not table.column_scale:
        table.table_scale = next(iter(scales.values()))
        return
    for column, stated in scales.items():
        if column:
            table.column_scale.setdefault(column, stated)


def _scale_regions(text: str, tables: list[_Table]) -> list[tuple[int, int, Decimal, str]]:
    """Prose "(in millions)" phrases: each applies from where it is stated to the
    next heading or the next such phrase."""
    found: list[tuple[int, Decimal, str]] = []
    last_end = -1
    for position, hint_end in _scale_hints(text):
        if position < last_end:
            continue
        # "$5.1 billion" is a number's own scale, not a stated one.
        before = text[max(0, position - 2) : position]
        if before[-1:].isdigit() or (before[-1:] == " " and before[:1].isdigit()):
            continue
        low = max(0, position - 40)
        match = _SCALE_PHRASE.search(text, low, min(len(text), hint_end + 90))
        if match is None or match.start() > position or match.end() < hint_end:
            continue
        if any(table.start <= match.start() < table.end for table in tables):
            continue  # table headers are handled per column / row
        scale = _scale_of_phrase(match)
        if scale is not None:
            found.append((match.start(), scale, match.group().strip()))
            last_end = match.end()
    if not found:
        return []
    headings = [m.start() for m in _HEADING.finditer(text)]
    regions: list[tuple[int, int, Decimal, str]] = []
    for index, (start, scale, phrase) in enumerate(found):
        limit = found[index + 1][0] if index + 1 < len(found) else len(text)
        next_heading = bisect_right(headings, start)
        if next_heading < len(headings):
            limit = min(limit, headings[next_heading])
        regions.append((start, limit, scale, phrase))
    return regions


# Substrings that can start a stated scale. Found with str.find, which is far
# faster than a regex scan over long evidence text.
_HINTS = (
    "illion",
    "housand",
    "000s",
    "'000",
    " mn",
    " bn",
    " mm",
    " MM",
    "($",
    "(€",
    "(£",
    "(US$",
    "(USD",
    "(EUR",
    "(DKK",
    "(GBP",
)
_HINT_WORD = re.compile(
    r"(?i)(?:m|b|tr)illions?\b|thousands?\b|['\u2018\u2019]?000s?\b|mn\b|bn\b|mm\b"
    r"|\((?:US)?[$€£A-Z]{1,3}"
)


def _scale_hints(text: str) -> list[tuple[int, int]]:
    """(start, end) of every word that may state a scale, in order."""
    hits: list[tuple[int, int]] = []
    for needle in _HINTS:
        position = text.find(needle)
        while position >= 0:
            start = position
            while start > 0 and text[start - 1].isalpha():
                start -= 1
            if needle[0] == " ":
                start = position + 1
            word = _HINT_WORD.match(text, start)
            if word is not None:
                hits.append((start, word.end()))
            position = text.find(needle, position + len(needle))
    hits.sort()
    return hits


def _strip_markup(cell: str) -> str:
    return " ".join(cell.replace("*", " ").replace("_", " ").replace("`", " ").split())


def _table_label(text: str, table: _Table, pos: int) -> str:
    row, column = table.locate(pos)
    header = table.header
    column_name = (
        _strip_markup(text[header[column][0] : header[column][1]]) if column < len(header) else ""
    )
    if row == 0:
        return column_name
    cells = table.rows[row]
    row_name = _strip_markup(text[cells[0][0] : cells[0][1]]) if cells and column > 0 else ""
    return " ".join(part for part in (row_name, column_name) if part)


def footnote_marker(text: str, start: int, end: int) -> bool:
    """One or two digits in parentheses glued to the word before them, a reference to a
    note of a table's label ("Service delivery costs(1)", a heading's "carryforwards:(1)"),
    not a value of its row."""
    return (
        end - start <= 2
        and start >= 2
        and text[start - 1] == "("
        and (
            text[start - 2].isalpha()
            or (text[start - 2] == ":" and text[start - 3 : start - 2].isalpha())
        )
        and text[end : end + 1] == ")"
    )
