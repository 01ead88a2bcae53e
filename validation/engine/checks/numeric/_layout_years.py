"""The year of a number in a filing's text layout (a fixed-width table, not a Markdown
one): the year of the header line above it whose column it stands under, or, when the
columns are out of line with their header, the year in the same place of the header's
order as the number in its row's.
"""

from __future__ import annotations

import re

_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# A fiscal year named by the two calendar years it spans ("2017/2018", "2017/18").
_FISCAL_PAIR = re.compile(r"(?<!\d)((?:19|20)\d\d)/((?:19|20)?\d\d)(?!\d)")


def fiscal_years(text: str) -> str:
    """`text` with each fiscal year written as the two calendar years it spans, one after
    the other ("2017/2018", "2017/18"), written as its end year alone: one period."""
    if "/" not in text:
        return text
    return _FISCAL_PAIR.sub(_fiscal_end, text)


def short_fiscal_years(text: str) -> str:
    """`text` with each fiscal year written short ("F19", "FY19", "FY 2019") written as
    its year ("2019"), after `fiscal_years`."""
    text = fiscal_years(text)
    if "F" not in text:
        return text
    return _FISCAL_SHORT.sub(_fiscal_short, text)


def _fiscal_short(short: re.Match[str]) -> str:
    digits = short.group(1)
    return digits if len(digits) == 4 else "20" + digits


# "F19", "FY19", "FY 2019", "FY'19": a fiscal year, named by the calendar year it ends in.
_FISCAL_SHORT = re.compile(r"(?<![A-Za-z0-9])(?:FY[ ']?|F)((?:19|20)\d\d|\d\d)(?![0-9A-Za-z])")


def _fiscal_end(pair: re.Match[str]) -> str:
    start, end = pair.group(1), pair.group(2)
    ended = int(start[:2] + end) if len(end) == 2 else int(end)
    return str(ended) if ended == int(start) + 1 else pair.group(0)


_EARLY_MONTHS = ("jan", "feb", "mar")  # a fiscal year ending then is often named the year before


def _layout_period(text: str, position: int, ordered: bool = False) -> int | None:
    """The year of a number in a filing's text layout: the year of the header line above
    it (within `_LAYOUT_LINES` lines, naming two years or more) whose column it stands
    under, right edges aligned within `_ALIGN` characters; None when unsure (no such
    year, two, or a header of fiscal years ending early in the calendar year, unless
    `ordered`: only the periods' order is wanted)."""
    line_start = text.rfind("\n", max(0, position - _LAYOUT_REACH), position) + 1
    if line_start == 0 and position > _LAYOUT_REACH:
        return None
    end = position
    while end < len(text) and end - position < _ALIGN * 4 and text[end] in _NUMBER_CHARS:
        end += 1
    column = end - line_start
    above = line_start - 1
    passed: list[str] = []  # the lines between the number and its header, nearest first
    for _ in range(_LAYOUT_LINES):
        if above <= 0:
            return None
        start = text.rfind("\n", max(0, above - _LAYOUT_REACH), above) + 1
        line = text[start:above]
        above = start - 1
        found = list(_YEAR.finditer(line))
        if len(found) < 2:
            passed.append(line)
            continue
        if not ordered and any(month in line.lower() for month in _EARLY_MONTHS):
            return None  # a fiscal year ending early in the year: named either way
        near = [
            (abs(year.end() - column), int(year.group()))
            for year in found
            if abs(year.end() - column) <= _ALIGN
        ]
        reach = min(len(text), position + _LAYOUT_REACH)
        row_end = text.find("\n", position, reach)
        row = text[line_start : row_end if row_end >= 0 else reach]
        # (a row no longer than the header's last year cannot stand past it: read no values)
        long = len(row.rstrip()) > found[-1].end() + _ALIGN
        values = list(_LAYOUT_VALUE.finditer(row)) if long or len(near) != 1 else []
        if (long or len(near) != 1) and len(values) != len(found):
            values = _after_label(row) or values  # "... into revenue      341      185"
        # A row whose every column holds a value but whose last one stands past the header's
        # last year (a long label pushed it right) is read in order, not by where it stands.
        pushed = len(values) == len(found) and values[-1].end() > found[-1].end() + _ALIGN
        if len(near) == 1 and not pushed:
            return near[0][1]
        grouped = _grouped_year(passed, [(year.end(), int(year.group())) for year in found], column)
        if grouped is not None and not pushed:
            return grouped
        order = [at for at, value in enumerate(values) if value.start() + line_start <= position]
        repeated = _repeated_labels(passed, len(found))
        if repeated is not None and order and len(values) == repeated * len(found):
            return int(found[order[-1] // repeated].group())
        # Columns out of line with their header ("At December 31, 2019At December 31,
        # 2018"): as many values on the row as years above, read in order.
        if len(values) != len(found):
            return None
        return int(found[order[-1]].group()) if order else None
    return None


# A value of a layout's row: digits with thousands commas or a decimal part, or four or
# more digits, perhaps with a currency sign or parentheses (not "Level 3" or "2-5 years").
_LAYOUT_VALUE = re.compile(
    r"(?<![\w.,-])\(?\$? ?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|(?<![\w.,-])\(?\$? ?\d+\.\d+\)?"
)


# A row's values after its label's last letter: plain digits too ("341", "(64)"), no year.
_TAIL_VALUE = re.compile(r"(?<![\w.,-])\(?\$? ?\d[\d,]*(?:\.\d+)?\)?(?![\w.,-])")


def _after_label(row: str) -> list[re.Match[str]]:
    """The values a row writes after its label (its last letter), when none is a year."""
    last = max((at for at, char in enumerate(row) if char.isalpha()), default=-1)
    values = list(_TAIL_VALUE.finditer(row, last + 1))
    return [] if any(_YEAR.fullmatch(value.group()) for value in values) else values


_LAYOUT_LINES = 40  # lines looked up for a layout's years (a long table's last rows)
_LAYOUT_REACH = 400  # characters of one layout line
_ALIGN = 3  # a number's right edge under its year's
_NUMBER_CHARS = frozenset("0123456789,.$%()")


def _grouped_year(lines: list[str], years: list[tuple[int, int]], column: int) -> int | None:
    """A two-level header: each year over a group of as many sub-columns ("2019" over
    "M  $M", "2018" over "M  $M"), named by a line between the years and the number (no
    digits). Each year stands over its group's first (or last) sub-column; a number
    under a sub-column is of its group's year. None when no line reads so."""
    for line in reversed(lines):  # the line right under the years first
        if any(c.isdigit() for c in line):
            continue
        ends = [word.end() for word in _WORD.finditer(line)]
        edges = [_aligned(ends, edge) for edge, _ in years]
        at = _aligned(ends, column)
        if at is None or any(edge is None for edge in edges):
            continue
        first = edges[0]
        assert first is not None
        subs = len(ends) - first
        if subs % len(years) or subs == len(years):
            continue
        size = subs // len(years)
        left = [first + size * k for k in range(len(years))]
        right = [first + size - 1 + size * k for k in range(len(years))]
        if edges == left and at >= first:
            return years[(at - first) // size][1]
        if edges == right and at >= first - size + 1:
            return years[(at - first + size - 1) // size][1]
    return None


def _repeated_labels(lines: list[str], years: int) -> int | None:
    """A two-level header whose sub-columns are named again under each year ("Net Sales
    % of Total" under "2018", the same under "2017"): the number of sub-columns under
    each year, read from the line right under the years (no digits; labels set apart by
    two spaces or more). None when no such line repeats its labels once per year."""
    line = next((line for line in reversed(lines) if line.strip()), None)
    if line is None or any(c.isdigit() for c in line):
        return None
    labels = _LABEL_GAP.split(line.strip())
    if len(labels) % years or len(labels) == years:
        return None
    size = len(labels) // years
    group = labels[:size]
    if any(labels[k * size : (k + 1) * size] != group for k in range(1, years)):
        return None
    return size


_LABEL_GAP = re.compile(r"\s{2,}")


def _aligned(ends: list[int], edge: int) -> int | None:
    near = [at for at, end in enumerate(ends) if abs(end - edge) <= _ALIGN]
    return near[0] if len(near) == 1 else None


_WORD = re.compile(r"\S+")
