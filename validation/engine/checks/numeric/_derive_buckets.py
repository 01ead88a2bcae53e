"""An average a year over a span the evidence gives in buckets of several years, for the
derived search (:mod:`._derive`).

A schedule of obligations often has a column for one year and columns for two-year
buckets ("2020", "2021-2022", "2023-2024"). "Spread across the five years from 2020 through
2024, lease payments average about $2,988 thousand a year" adds the row's cells that tile
the span and divides by its years: (4,143 + 7,111 + 3,686) / 5. The family's average of a
row's cells divides by how many cells there are, so it never lands there.

So when a sentence names a span of three years or more and its words name an average, each
row of the pool whose cells' periods (a JSON key, a markdown table's column header) tile
that span exactly, one bucket at least longer than a year, gives one candidate: their sum
over the span's years. The candidates are few (one a row) and weighed among themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import pairwise

from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import Operand
from validation.engine.checks.numeric._derive_years import YEAR_SPAN
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._misquotes import _tables_of

AVERAGE = "average a year"
# A column's period: one year, or a span of years ("2021-2022", "2023 to 2024").
_PERIOD = re.compile(
    r"\s*(?:FY\s?|fiscal\s+)?((?:19|20)\d\d)"
    r"(?:\s*(?:-|\u2013|\u2014|to|through)\s*(?:FY\s?|fiscal\s+)?((?:19|20)\d\d))?\s*",
    re.IGNORECASE,
)


def per_year(operands: Sequence[Operand], index: EvidenceIndex, words: str) -> Iterator[Candidate]:
    """For each row whose cells' periods tile the span the sentence names (with a bucket
    of two years or more among them), their sum over the span's years."""
    span = _span_of(words)
    if span is None:
        return
    first, last = span
    rows: dict[int, dict[tuple[int, int], Operand]] = {}
    for operand in operands:
        if operand.row < 0 or operand.entry < 0 or operand.percent:
            continue
        period = period_of_column(index, operand.entry)
        if period is not None and first <= period[0] <= period[1] <= last:
            rows.setdefault(operand.row, {}).setdefault(period, operand)
    for cells in rows.values():
        periods = sorted(cells)
        if len(periods) < 2 or all(start == end for start, end in periods):
            continue  # one year a cell: the family's own average
        tiled = (
            periods[0][0] == first
            and periods[-1][1] == last
            and all(earlier[1] + 1 == later[0] for earlier, later in pairwise(periods))
        )
        if not tiled:
            continue
        used = [cells[period] for period in periods]
        years = last - first + 1
        total = sum(cell.value for cell in used)
        formula = "(" + " + ".join("{}" for _ in used) + f") / {years}"
        yield 0, abs(total / years), formula, AVERAGE, tuple(used)


@lru_cache(maxsize=16)
def _span_of(words: str) -> tuple[int, int] | None:
    # Each number of a sentence asks: a wall that is one sentence is read once.
    spans = YEAR_SPAN.findall(words)
    return next(((int(a), int(b)) for a, b in spans if int(b) - int(a) >= 2), None)


def period_of_column(index: EvidenceIndex, entry: int) -> tuple[int, int] | None:
    """The years an evidence cell's column covers, (first, last), from its JSON key or its
    markdown table's header; None when that names no year or span alone."""
    number = index.number(entry)
    item = index.items[number.item]
    if item.text is None:
        return _period(number.label.rsplit(".", 1)[-1])
    record = index._record[entry]
    if record[0] != 0:
        return None
    position = record[2]
    for table, _ in _tables_of(index, number.item, item.text):
        if table.start <= position <= table.end:
            column = table.locate(position)[1]
            header = table.rows[0]
            if column < len(header):
                start, end = header[column]
                return _period(item.text[start:end])
    return None


def _period(text: str) -> tuple[int, int] | None:
    found = _PERIOD.fullmatch(text.strip("| *"))
    if found is None:
        return None
    first = int(found.group(1))
    last = int(found.group(2) or first)
    return (first, last) if first <= last <= first + 10 else None
