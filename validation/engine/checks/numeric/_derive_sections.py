"""A section of a table summed where the table writes no total for it, for the derived
search's operands (:mod:`._derive`).

A markdown table often groups its lines under a heading row with no figures ("| Tax credit
carryforwards: | | |", "| Assets | | |") and gives no total for the group. A writer who
names the group ("the three asset lines add up to $64,509 thousand", "the total of the tax
credit carryforwards") sums its lines, and may take that sum further (a line's share of
it). The search offers, for each section its sentence or its heading names, one operand
per column: the sum of the section's lines there, as a result derived from their cells.
A section with a total line of its own (a "Total ..." line, or an unlabelled line under
its lines) is left out: its total is a cell already.

A schedule laid out with a line per year ("| 2020 | $460 | 47 |", "| 2021 | 361 | 28 |")
is summed the same way over the span of years a sentence names ("finance lease payments due
from 2020 through 2024 sum to $140 million"), when every year of the span has its line.
And a small table that writes no total line at all is summed whole, by column, where the
sentence says "total" ("the four line items sum to a total of $1,322 thousand").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import replace
from decimal import Decimal
from functools import partial
from itertools import islice

from validation.engine.checks.numeric._counts_said import says_total
from validation.engine.checks.numeric._cues import SUM, Cue
from validation.engine.checks.numeric._derive_buckets import _span_of
from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_naming import _names
from validation.engine.checks.numeric._derive_pool import (
    NAMED,
    Operand,
    _evidence_operand,
    _rows,
)
from validation.engine.checks.numeric._derive_rows import _TOTAL_LABEL, MAX_GROUP, _digits_of, _Rows
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens

_MAX_SUMS = 6  # section sums offered to one claim
_MAX_SECTIONS = 2_000  # sections read per evidence index (a wall of headings costs the same)
_LOOK_AHEAD = 3  # rows of the item looked at for a line's own
_MAX_LINES = 12  # lines of a table summed whole

_YEAR_LINE = re.compile(r"(?m)^[ \t]*\|[ \t]*(?:FY[ \t]?)?((?:19|20)\d\d)[ \t]*\|[^\n]*")

_Section = tuple[frozenset[str], tuple[int, ...]]  # its heading's words, its rows


def group_sums(
    index: EvidenceIndex, units: dict[int, float], words: str, heading: str, adding: bool = False
) -> list[Operand]:
    """The sums a sentence (`words`, under `heading`) may take: of the sections it names,
    of a schedule over the span of years it names, of a table with no total line (where
    it says "total" or adds up)."""
    rows = _rows(index)
    return [
        *section_sums(index, rows, units, (words, heading)),
        *span_sums(index, rows, units, words),
        *table_sums(index, rows, units, words, adding),
        *gross_sums(index, rows, units, words),
    ]


def gross_sums(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], words: str
) -> list[Operand]:
    """Where a sentence says "gross", the gross each net line of the evidence is left from
    when its table does not write it: the sum of the lines above the deductions ("Less
    accumulated depreciation", a negative line) that stand right above the net line, one
    a column, offered only when lines, deductions and net tie in every column."""
    if "gross" not in label_tokens(words):
        return []
    found: list[Operand] = []
    for lines in _grossed(index, rows, units):
        found += _sums(index, units, lines)
    return found[:_MAX_SUMS]


def _grossed(index: EvidenceIndex, rows: _Rows, units: dict[int, float]) -> list[list[list[int]]]:
    """The lines of each net line's gross (`_left_from`), read once per index: a tie is
    a tie at any scale the report reads the evidence at."""
    remembered: list[list[list[int]]] | None = index.memo.get(("derive-gross",))
    if remembered is not None:
        return remembered
    found: list[list[list[int]]] = []
    for item_rows in _item_rows(index, rows).values():
        start = 0
        for place, row in enumerate(item_rows):
            if "net" not in rows.tokens[row]:
                continue
            if lines := _left_from(index, rows, units, item_rows[start : place + 1]):
                found.append(lines)
            start = place + 1
        if len(found) >= _MAX_SUMS:
            break
    index.remember(("derive-gross",), found)
    return found


def _left_from(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], block: Sequence[int]
) -> list[list[int]]:
    """The lines a net line (the last of `block`) is left from, by the deductions between:
    their cells, or none when they do not tie to it (nor when the gross is written)."""
    cell = partial(_evidence_operand, index, rows, units, strength=NAMED)
    *above, net = (rows.cells[row] for row in block)
    deducted = 0
    while deducted < len(above) and all(
        _deducted(cell(entry)) for entry in above[len(above) - 1 - deducted]
    ):
        deducted += 1
    lines, deductions = above[: len(above) - deducted], above[len(above) - deducted :]
    if not deductions or not 2 <= len(lines) <= MAX_GROUP:
        return []
    if len({len(cells) for cells in (*lines, *deductions, net)}) != 1:
        return []
    for column, entry in enumerate(net):
        gross = sum(cell(line[column]).value for line in lines)
        taken = sum(abs(cell(line[column]).value) for line in deductions)
        left, unit = cell(entry).value, cell(entry).digits
        if abs(gross - taken - left) > unit * 1.000001:
            return []  # lines, deductions and net do not tie
        if abs(cell(lines[-1][column]).value * 2 - gross) <= unit:
            return []  # its last line is the sum of those above: the gross is written
    return list(lines)


def _deducted(cell: Operand) -> bool:
    return cell.value < 0 or cell.negative  # "-20188", "(9,000)"


def section_sums(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], texts: Sequence[str]
) -> list[Operand]:
    """The sums of the sections whose heading `texts` name (the claim's sentence, the
    heading it stands under): one per column every line of the section fills."""
    words = frozenset().union(*(label_tokens(text) for text in texts if text))
    found: list[Operand] = []
    for heading, members in _sections(index, rows):
        if not _names(len(heading & words), len(heading)):
            continue
        found += _sums(index, units, [rows.cells[row] for row in members])
        if len(found) >= _MAX_SUMS:
            break
    return found[:_MAX_SUMS]


def _sums(
    index: EvidenceIndex, units: dict[int, float], members: Sequence[Sequence[int]]
) -> list[Operand]:
    """One operand a column: the sum of the cells of the lines `members` in it."""
    rows = _rows(index)
    found: list[Operand] = []
    width = min(len(cells) for cells in members)
    for column in range(1, min(width, MAX_GROUP) + 1):  # from the right: a label's
        cells = [  # footnote mark may stand first in a row ("Other assets (1)")
            _evidence_operand(index, rows, units, line[-column], NAMED) for line in members
        ]
        if any(cell.percent for cell in cells):
            break  # a section of rates sums to nothing
        found.append(summed(cells, NAMED))
    return found


def added_up(sums: Sequence[Operand], cue: Cue) -> Iterator[Candidate]:
    """Where a sentence adds up lines ("adding both categories gives about $681.4
    million"), the sums its words give (`group_sums`), each a candidate as it stands,
    weighed among themselves: the other derived figures of the report are no neighbours
    of theirs."""
    if SUM in cue.kinds:
        yield from as_found(sums, "sum")


def averaged(runs: Sequence[Operand], count: int) -> list[Operand]:
    """The runs of `count` lines (`counted_runs`) as their averages: "the average of the
    four quarterly lows was about $3.83" over a table's four lines of lows."""
    return [
        replace(run, value=run.value / count, text=f"{run.text} / {count}") for run in runs if count
    ]


def as_found(results: Sequence[Operand], operation: str = "average") -> Iterator[Candidate]:
    """Results the words give whole (`averaged`, the sums of `added_up`), each a candidate
    as it stands."""
    for operand in results:
        yield 0, operand.value, "{0}", operation, (operand,)


def summed(cells: Sequence[Operand], strength: int) -> Operand:
    """One operand, the sum of evidence cells, a result derived from them."""
    return Operand(
        value=sum(cell.value for cell in cells),
        text="(" + " + ".join(cell.text for cell in cells) + ")",
        percent=False,
        digits=cells[0].digits,
        strength=strength,
        row=-1,
        column=cells[0].column,
        item=cells[0].item,
        unit=cells[0].unit,
        sources=tuple(cell.entry for cell in cells),
        derived=True,
    )


def counted_runs(
    index: EvidenceIndex, units: dict[int, float], count: int, items: Sequence[int]
) -> list[Operand]:
    """Where a sentence counts the lines it sums ("the four note issues due 2022-2024
    carry $1,711.4 million in total"), the sums of every run of that many consecutive
    lines, a sum a column: in the items its pool already offers (`items`) first, then in
    the other tables. The lines of a schedule by year are summed over every run of that
    many years; those of another table only when it writes a total line (its lines are the
    parts of one whole: a table of revenue, margin and income is not), never across that
    line, or when the count is all the lines of a small table ("the 7 officers ... added
    together"). A line is one with as many figures as the total line (not a label's own figure,
    "6.50% Senior Notes"). Two lines are a pair the closed search sums."""
    if count < 3:
        return []
    rows = _rows(index)
    found: list[Operand] = []
    by_item, schedules = _item_rows(index, rows), _year_lines(index, rows)
    tables = _tables(index, rows)
    for item in dict.fromkeys([*(item for item in items if item >= 0), *by_item, *schedules]):
        years = schedules.get(item, {})  # a schedule's lines by year ("| 2025 | $241 |")
        for first in sorted(years):
            if all(year in years for year in range(first, first + count)):
                found += _sums(index, units, [years[year] for year in range(first, first + count)])
        totals = rows.totals.get(item, ())
        if not totals:  # lines with no total may be no parts of one whole (revenue, margin)
            whole = tables.get(item, [])  # unless the count is every line of a small table
            found += _sums(index, units, whole) if len(whole) == count else []
            continue
        width = min(len(rows.cells[row]) for row in totals)
        run: list[int] = []  # the lines since the last total line
        for row in by_item.get(item, ())[:_MAX_RUN_ROWS]:
            if row in totals:
                run = []
            elif len(rows.cells[row]) >= width:
                run.append(row)
                if len(run) >= count:
                    found += _sums(index, units, [rows.cells[line] for line in run[-count:]])
            if len(found) >= _MAX_RUNS:
                return found[:_MAX_RUNS]
    return found[:_MAX_RUNS]


_MAX_RUNS = 36  # counted runs offered to one claim
_MAX_RUN_ROWS = 60  # rows of one item read for its runs


def table_sums(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], words: str, adding: bool = False
) -> list[Operand]:
    """Where a sentence says "total" or adds up (`adding`: "adding up the lines gives
    ..."), the column sums of each small table that writes no total line: its lines of
    one width."""
    if not (adding or says_total(words)):
        return []
    found: list[Operand] = []
    for item, lines in _tables(index, rows).items():
        if item not in rows.totals:
            found += _sums(index, units, lines)
        if len(found) >= _MAX_SUMS:
            break
    return found[:_MAX_SUMS]


def _tables(index: EvidenceIndex, rows: _Rows) -> dict[int, list[list[int]]]:
    """Each JSON record or markdown table of two to `_MAX_LINES` lines of one width, by
    item (read once): prose is no table."""
    remembered: dict[int, list[list[int]]] | None = index.memo.get(("derive-tables",))
    if remembered is not None:
        return remembered
    by_item = {
        item: [rows.cells[row] for row in item_rows]
        for item, item_rows in _item_rows(index, rows).items()
    }
    found = {
        item: lines
        for item, lines in by_item.items()
        if 2 <= len(lines) <= _MAX_LINES
        and len({len(line) for line in lines}) == 1
        and "|" in (index.items[item].text or "|")  # a JSON record or a markdown table
    }
    index.remember(("derive-tables",), found)
    return found


def span_sums(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], words: str
) -> list[Operand]:
    """The sums over the span of years `words` names of the lines of a schedule with a
    line per year: one per column every line of the span fills."""
    span = _span_of(words)
    if span is None:
        return []
    found: list[Operand] = []
    for lines in _year_lines(index, rows).values():
        if all(year in lines for year in range(span[0], span[1] + 1)):
            found += _sums(index, units, [lines[year] for year in range(span[0], span[1] + 1)])
    return found[:_MAX_SUMS]


def _year_lines(index: EvidenceIndex, rows: _Rows) -> dict[int, dict[int, list[int]]]:
    """For each markdown table, the cells of each line labelled with a year alone, by
    year (read once per index)."""
    remembered: dict[int, dict[int, list[int]]] | None = index.memo.get(("derive-years",))
    if remembered is not None:
        return remembered
    by_item: dict[int, list[int]] = {}
    for entries in rows.cells:
        if entries:
            by_item.setdefault(index.item_of(entries[0]), []).extend(entries)
    found: dict[int, dict[int, list[int]]] = {}
    for item, entries in by_item.items():
        text = index.items[item].text
        lines = [
            (line.start(), line.end(), int(line.group(1)))
            for line in islice(_YEAR_LINE.finditer(text or ""), _MAX_SECTIONS)
        ]
        if not lines:
            continue
        starts = [start for start, _, _ in lines]
        years: dict[int, list[int]] = found.setdefault(item, {})
        for entry in entries:
            span = index.text_span(entry)
            at = bisect_right(starts, span[0]) - 1 if span is not None else -1
            if at >= 0 and span is not None and span[0] < lines[at][1]:
                years.setdefault(lines[at][2], []).append(entry)
    index.remember(("derive-years",), found)
    return found


def _sections(index: EvidenceIndex, rows: _Rows) -> list[_Section]:
    """Every section of two lines or more, with no total, of the evidence's markdown
    tables (read once per index)."""
    remembered: list[_Section] | None = index.memo.get(("derive-sections",))
    if remembered is not None:
        return remembered
    found: list[_Section] = []
    for item, item_rows in _item_rows(index, rows).items():
        text = index.items[item].text
        if text is not None and "|" in text:
            found += _item_sections(index, rows, text, item_rows)
        if len(found) >= _MAX_SECTIONS:
            break
    index.remember(("derive-sections",), found)
    return found


def _item_rows(index: EvidenceIndex, rows: _Rows) -> dict[int, list[int]]:
    """Each evidence item's rows, in order (read once per index)."""
    remembered: dict[int, list[int]] | None = index.memo.get(("derive-item-rows",))
    if remembered is not None:
        return remembered
    by_item: dict[int, list[int]] = {}
    for row, entries in enumerate(rows.cells):
        if entries:
            by_item.setdefault(index.item_of(entries[0]), []).append(row)
    index.remember(("derive-item-rows",), by_item)
    return by_item


def _item_sections(
    index: EvidenceIndex, rows: _Rows, text: str, item_rows: Sequence[int]
) -> list[_Section]:
    """The sections of one item's markdown table: a heading line (a label, no figures),
    then lines with a label and figures, each matched in order to its row by its first
    figure's digits."""
    found: list[_Section] = []
    heading: frozenset[str] = frozenset()
    members: list[int] = []
    at = 0  # the next row of the item to match

    def close() -> None:
        if heading and len(members) >= 2 and not _sums_above(index, rows, members):
            found.append((heading, tuple(members)))

    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        label, figures = cells[0], [cell for cell in cells[1:] if any(c.isdigit() for c in cell)]
        if not figures:
            if any(cells):  # "| Assets | |", "| | Liabilities and equity | |"
                close()
                heading, members = label_tokens(" ".join(cells)), []
            continue
        digits = {_digits_of(figure) for figure in figures}
        ahead = item_rows[at : at + _LOOK_AHEAD]
        step = next((n for n, row in enumerate(ahead) if digits & _firsts(index, rows, row)), -1)
        if step < 0:
            continue  # a line the index reads no row of (a header of years)
        row, at = item_rows[at + step], at + step + 1
        if not label or _TOTAL_LABEL.match(label):
            heading, members = frozenset(), []  # its total is written: no sum to offer
        elif heading:
            members.append(row)
    close()
    return found


def _sums_above(index: EvidenceIndex, rows: _Rows, members: Sequence[int]) -> bool:
    """A line of the section is the sum of the lines above it: its total, under another
    name ("Gross deferred tax assets")."""
    running = Decimal(0)
    for count, row in enumerate(members):
        value = abs(index.number(rows.cells[row][-1]).value)
        if count >= 2 and abs(value - running) <= 1:
            return True
        running += value
    return False


def _firsts(index: EvidenceIndex, rows: _Rows, row: int) -> set[str]:
    """The digits of a row's first two cells (its label's footnote mark may be the first:
    "Other assets (1)")."""
    return {_digits_of(index.number(entry).raw) for entry in rows.cells[row][:2]}
