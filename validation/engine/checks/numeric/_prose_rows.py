"""Rows of evidence prose (for :mod:`._derive_rows`): a sentence of running text that
gives one quantity for each of the years it names ("$41.2 million in 2020, $37.5 million
in 2019 and $30.1 million in 2018", "... $12.4 million and $15.0 million at December 31,
2020 and 2019, respectively") holds one line item over those periods. Its numbers of one
unit, in order, are rows of as many cells as the distinct years the sentence names (two
or more), when they fill one to three such rows exactly ("sales were $A, $B and $C, and
operating profit $D, $E and $F, respectively" over three years: two rows).

A sentence here ends at a full stop or a blank line (a filing's text wraps its lines);
one with a pipe or a wide gap (a table, a filing's text layout) is no prose. One pass
over each text: linear.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens

_END = re.compile(r"\n[ \t]*\n|(?<![A-Z])\.(?=\s)")  # not the stop of "U.S."
_LAYOUT = re.compile(r"\||\S {3}")
_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")
_DAY = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? $", re.IGNORECASE
)
_MAX_CELLS = 8  # a longer list is no row of periods
_MAX_ROWS = 3  # quantities one sentence gives over its years

GroupKey = tuple[int, int, str, int]  # (item, sentence start, unit, row of the sentence)


def prose_groups(index: EvidenceIndex) -> dict[int, GroupKey]:
    """For each entry that is a cell of a prose row, the row's key (read once per
    evidence index and kept in its memo: the rows, their periods and their words ask)."""
    found: dict[int, GroupKey] | None = index.memo.get(("prose-groups",))
    if found is None:
        found = _prose_groups(index)
        index.remember(("prose-groups",), found)
    return found


def _prose_groups(index: EvidenceIndex) -> dict[int, GroupKey]:
    members: dict[tuple[int, int, str], list[int]] = {}
    years: dict[tuple[int, int], int] = {}  # (item, sentence start) -> distinct years
    for item, each in enumerate(index.items):
        if each.text is not None:  # a text item's own numbers (JSON values have no span)
            _text_members(index, item, each.text, members, years)
    found: dict[int, GroupKey] = {}
    for (item, start, unit), entries in members.items():
        periods = years[(item, start)]
        rows, rest = divmod(len(entries), periods)
        if rest or not 1 <= rows <= _MAX_ROWS or periods > _MAX_CELLS:
            continue
        for order, entry in enumerate(entries):
            found[entry] = (item, start, unit, order // periods)
    return found


def _text_members(
    index: EvidenceIndex,
    item: int,
    text: str,
    members: dict[tuple[int, int, str], list[int]],
    years: dict[tuple[int, int], int],
) -> None:
    """The numbers of one text item by sentence and unit, in sentences naming two or
    more distinct years (and those counts, by sentence)."""
    ends: list[int] | None = None  # the sentence ends in order, once a number asks
    for entry in range(index.items[item].first, index.items[item].last):
        span = index.text_span(entry)
        if span is None or index.is_mantissa(entry):
            continue
        if ends is None:
            ends = [found.start() for found in _END.finditer(text)]
            ends.append(len(text))
        start = _sentence_start(ends, span[0])
        place = (item, start)
        if place not in years:
            end = ends[_after(ends, span[0])]
            sentence = text[start:end]
            years[place] = -1 if _LAYOUT.search(sentence) else len(set(_YEAR.findall(sentence)))
        if years[place] < 2:
            continue
        number = index.number(entry)
        if not number.unit and _YEAR.fullmatch(number.raw):
            continue  # a year the sentence names
        if not number.unit and _DAY.search(text, max(0, span[0] - 10), span[0]):
            continue  # the day of a date ("December 31")
        members.setdefault((item, start, number.unit), []).append(entry)


def _after(ends: list[int], position: int) -> int:
    """The index of the first sentence end at or after `position`."""
    return bisect_left(ends, position)


def _sentence_start(ends: list[int], position: int) -> int:
    following = bisect_left(ends, position)
    return ends[following - 1] + 1 if following else 0


def prose_period(index: EvidenceIndex, entry: int) -> int | None:
    """The year of a prose row's cell, when its sentence says it plainly: each value
    followed by its own year ("$290.2 million in 2019, $239.6 million in 2018 and $190.4
    million in 2017"), or the years listed in the values' order with "respectively"
    ("During fiscal 2017, 2018 and 2019 sales were $318,928, $296,316 and $18,951,
    respectively"). None otherwise: a row whose cells do not each get another year, or a
    sentence naming a fiscal year that ends early in the calendar year."""
    periods: dict[int, int] | None = index.memo.get(("prose-periods",))
    if periods is None:
        periods = _prose_periods(index)
        index.remember(("prose-periods",), periods)
    return periods.get(entry)


def _prose_periods(index: EvidenceIndex) -> dict[int, int]:
    rows: dict[GroupKey, list[int]] = {}
    for entry, key in prose_groups(index).items():
        rows.setdefault(key, []).append(entry)
    found: dict[int, int] = {}
    for (item, start, _unit, _row), entries in rows.items():
        text = index.items[item].text or ""
        spans = [index.text_span(entry) for entry in entries]
        if any(span is None for span in spans):
            continue
        end = _END.search(text, start)  # the first stop only: linear over the rows
        sentence = text[start : end.start() if end is not None else len(text)]
        if any(month in sentence.lower() for month in _EARLY_MONTHS):
            continue  # "fiscal 2019" may end in March 2019 or March 2020: unsure
        listed = list(dict.fromkeys(int(year) for year in _YEAR.findall(sentence)))
        years: list[int | None]
        if _RESPECTIVELY.search(sentence) and len(listed) == len(entries):
            years = list(listed)
        else:
            years = [_own_year(text, span[1]) for span in spans if span is not None]
        if None in years or len(set(years)) != len(entries):
            continue
        for entry, year in zip(entries, years, strict=True):
            assert year is not None
            found[entry] = year
    return found


def _own_year(text: str, end: int) -> int | None:
    """The year written right after a value ("$239.6 million in 2018"): within a few
    words, with no other number and no clause's end between."""
    window = text[end : end + _OWN_YEAR_REACH]
    year = _YEAR.search(window)
    if year is None:
        return None
    between = window[: year.start()]
    if any(c.isdigit() or c in ",;:()" for c in between):
        return None
    return int(year.group())


_RESPECTIVELY = re.compile(r"(?i)\brespectively\b")
_EARLY_MONTHS = ("january", "february", "march", " jan ", " feb ", " mar ")
_OWN_YEAR_REACH = 24  # characters after a value read for its year


def row_words(index: EvidenceIndex, entry: int) -> frozenset[str]:
    """The words that say what a prose row's cell is: those before its row's first cell,
    back to the number before it ("..., respectively, and related operating profit was
    $17,076, $18,177 and $3,300": the last cell's own words are only "and"). Empty for a
    number of no prose row."""
    words: dict[int, frozenset[str]] | None = index.memo.get(("prose-row-words",))
    if words is None:
        words = _row_words(index)
        index.remember(("prose-row-words",), words)
    return words.get(entry, frozenset())


_ROW_WORDS_REACH = 160  # characters before a row's first cell read for its words


def _row_words(index: EvidenceIndex) -> dict[int, frozenset[str]]:
    first: dict[GroupKey, frozenset[str]] = {}
    found: dict[int, frozenset[str]] = {}
    for entry, key in sorted(prose_groups(index).items()):
        if key not in first:
            first[key] = index.tokens(entry) | _words_before(index, entry)
        found[entry] = first[key]
    return found


def _words_before(index: EvidenceIndex, entry: int) -> frozenset[str]:
    """The words between a number and the number before it in its text (its sentence's
    start at most, and no more than `_ROW_WORDS_REACH` characters)."""
    span = index.text_span(entry)
    if span is None:
        return frozenset()
    item = index.item_of(entry)
    text = index.items[item].text or ""
    low = max(0, span[0] - _ROW_WORDS_REACH)
    if entry > 0 and index.item_of(entry - 1) == item:
        previous = index.text_span(entry - 1)
        if previous is not None:
            low = max(low, previous[1])
    stop = text.rfind(". ", low, span[0])
    return label_tokens(text[stop + 1 if stop >= 0 else low : span[0]])
