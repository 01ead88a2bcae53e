"""Find every numeric claim in a text: its span, exact value, unit, scale,
sign, precision shown and label.

What is *not* a claim and is skipped here: years (1900-2100 standing alone, FY2024,
'24), dates (2024-03-31, 3/31/2024, March 31, 2024, 31 March), times and ratios
(10:30, 3:1), quarters and halves (Q3, Q3 2024, 3Q24, H1), ordinals (1st),
list and section numbering ("1." at a line start, "## 4. Financial"), reference
numbers ("page 67", "Table 2", "Tier 1", "top 10"), section references ("§4.1",
"§ 4.2", "section 4.2", "Table 2.1", "sections 4.1 and 4.3", "Appendix B.2"), footnote
markers ([1], [^2], ^3, [1, 2]), anything inside a URL or a markdown link target,
numbers glued to words (GPT-4, COVID-19, 3D, 10-K; but a period, "a 5-year plan" or
"a 20-minute call", is a claim like "20 days"), index names (S&P 500, Russell 2000),
version strings (1.2.3) and small fractions written with a slash (24/7, 3/4).

Two more rules live in `analyze` (`_check`), because they need the query or the
evidence: numbers quoted from the query, and small integers (<= 10, no unit)
that the evidence does not contain, are not claims.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from decimal import Decimal

from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._layout import mark_layout_percents
from validation.engine.checks.numeric._lexicon import (
    _CODES,
    _CURRENCY_AFTER,
    _CURRENCY_WORDS,
    _FOOTNOTE_LIST,
    _MONTH_AFTER,
    _ONE,
    _PERIOD_COMPOUND,
    _SCALE_AFTER,
    _SCALE_WORDS,
    _SPACED_FIRST,
    _SYMBOLS,
    _THOUSANDS_MARK,
    _TOKEN,
    _TWO_WORD_SUFFIXES,
    _URLS,
    _continues_references,
    _digit_at,
    _is_hedged,
    _is_reference,
    _is_section,
    _mark_ranges,
    _opens_exponent,
    _read_suffix_word,
    currency_sign,
)
from validation.engine.checks.numeric._prose_labels import _prose_label
from validation.engine.checks.numeric._tables import (
    _dash_cells,
    _find_tables,
    _scale_regions,
    _Table,
    _table_label,
    footnote_marker,
)
from validation.engine.checks.numeric._types import NumberMention, _Raw


def extract(text: str, *, labelled: int | None = None) -> list[NumberMention]:
    """Every numeric claim of `text`, in order (see the module docstring); only the first
    `labelled` carry their labels, when given (the numbers check judges no more of them:
    `caps.MAX_NUMBERS_JUDGED`; a wall of 100,000 numbers spent most of its time on the
    labels of numbers nothing reads)."""
    return _Extractor(text, labels=True).run(labelled)


def extract_judged(text: str, judged: int) -> tuple[list[NumberMention], int]:
    """The first `judged` claims of `text` with labels, the next without, and how many it has:
    all the numbers check reads of a wall past its cap (the rest are counted, not read)."""
    extractor = _Extractor(text, labels=True)
    return extractor.run(judged, finished=judged + 1), extractor.count


def extract_values(text: str) -> list[NumberMention]:
    """Like `extract` but without labels."""
    return _Extractor(text, labels=False).run()


def scan_numbers(text: str) -> list[tuple[int, int, str, Decimal, str]]:
    """The fast path for evidence text: the same rules as `extract`, without
    labels (computed later only for the few numbers a lookup returns), and with
    the table cells that state nothing as a dash read as zeros (`_dash_cells`).
    Returns (start, end, digits without separators or sign, scale, unit), in order."""
    extractor = _Extractor(text, labels=False)
    raws = extractor._scan()
    found: list[tuple[int, int, str, Decimal, str]] = []
    if raws:
        _mark_ranges(text, raws)
        extractor._apply_context_scale(raws)
        found = [
            (
                raw.start,
                raw.end,
                raw.number.replace(",", "") if raw.number[0] != "." else "0" + raw.number,
                raw.scale,
                raw.unit,
            )
            for raw in raws
        ]
    extra = _dash_cells(text, extractor.tables) + _ordinals(text)
    if extra:
        found = sorted(found + extra, key=lambda number: number[0])
    return found


# An ordinal of the evidence ("the 65th consecutive year of dividend increases") states a
# count: "65 consecutive years" restates it. (A report's ordinal names a place: no claim.)
_ORDINAL = re.compile(r"(?<![0-9])[0-9]++(?:st|nd|rd|th)\b")  # digits first: a fast scan


def _ordinals(text: str) -> list[tuple[int, int, str, Decimal, str]]:
    found = []
    for match in _ORDINAL.finditer(text):
        start, end = match.span()
        digits = text[start : end - 2]
        if len(digits) > 4 or digits[0] == "0":
            continue
        if start and (text[start - 1].isalpha() or text[start - 1] in "_.,"):
            continue  # part of a word or of a longer number
        found.append((start, end, digits, _ONE, ""))
    return found


def parse_number_string(text: str) -> NumberMention | None:
    """A JSON string holding one number ("15.5B", "1,234", "$190.68", "22.5%")."""
    stripped = text.strip()
    if not stripped or len(stripped) > 40:
        return None
    mentions = extract_values(stripped)
    if len(mentions) != 1:
        return None
    only = mentions[0]
    leftover = (stripped[: only.start] + stripped[only.end :]).strip(" ()+")
    return only if not leftover else None


class _Extractor:
    def __init__(self, text: str, *, labels: bool) -> None:
        self.text = text
        self.labels = labels
        self.tables = _find_tables(text) if "|" in text else []
        self.table_starts = [table.start for table in self.tables]
        self.count = 0  # claims found by the last `run`

    def run(self, labelled: int | None = None, finished: int | None = None) -> list[NumberMention]:
        """The claims (the first `finished`, if given), the first `labelled` with labels."""
        raws = self._scan()
        self.count = len(raws)
        if not raws:
            return []
        _mark_ranges(self.text, raws)
        self._apply_context_scale(raws)
        stop = len(raws) if finished is None else min(finished, len(raws))
        last = stop if labelled is None else min(labelled, stop)
        found = [self._finish(index, raws) for index in range(last)]
        self.labels = False  # past `labelled`
        return found + [self._finish(index, raws) for index in range(last, stop)]

    # ------------------------------------------------------------ scanning

    def _scan(self) -> list[_Raw]:
        text = self.text
        size = len(text)
        raws: list[_Raw] = []
        last_year_end = -10
        last_reference_end = -100  # the end of the last reference skipped ("section 4.1")
        footnote_end = -1  # the end of the last footnote list ("[1, 2]")
        urls = [(m.start(), m.end()) for m in _URLS.finditer(text)] if self._may_link() else []
        url_starts = [start for start, _ in urls]
        labels = self.labels
        for match in _TOKEN.finditer(text):
            number, tail, suffix = match.groups()
            # "1.35:1" is a ratio to one; "3:1" (a split), "10:30" (a time) are not claims
            if tail and tail[0] == "/" and _opens_exponent(text, match.start()):
                # "^(1/2)": the numbers of a root's exponent are operands of its calculation
                denominator = match.start() + len(number) + 1
                for begin, digits in ((match.start(), number), (denominator, tail[1:])):
                    finish = begin + len(digits)
                    plain = ("", "", "", "", _ONE, "", False, False)  # no sign, unit, scale
                    raws.append(_Raw(begin, finish, begin, finish, digits, *plain))
                continue
            to_one = (
                tail == ":1"
                and "." in number
                and not (
                    text[match.end() : match.end() + 1] == "." and _digit_at(text, match.end() + 1)
                )
            )
            if (tail and not to_one) or number.count(".") > 1:
                continue  # a date, a time, a ratio, 24/7, a version, a dotted date
            num_start = match.start()
            if number == "000" and num_start and text[num_start - 1] in _THOUSANDS_MARK:
                continue  # "US$'000", "(€000)": a scale, not a number
            if (
                num_start
                and text[num_start - 1].isalpha()
                and text[num_start - 3 : num_start] not in _CODES
            ) or footnote_marker(text, num_start, num_start + len(number)):
                continue  # glued to a word: Q3, FY2024, A1, v2 (but USD15 is money), "costs(1)"
            num_end = num_start + len(number)
            if urls:
                at = bisect_right(url_starts, num_start) - 1
                if at >= 0 and num_start < urls[at][1]:
                    continue
            # -- suffix: unit or scale
            end = num_end
            unit = ""
            scale = _ONE
            scale_text = ""
            if to_one:
                unit, end = "x", num_end + 2  # "1.35:1": a ratio to one is a multiple
            elif suffix and (suffix[0] not in " \u00a0" or suffix[1] in _SPACED_FIRST):
                attached = suffix[0] not in " \u00a0"
                word = suffix if attached else suffix[1:]
                read = _read_suffix_word(word, attached)
                if read is not None:
                    unit, scale, scale_text = read
                    end = match.end()
                    two_word = _TWO_WORD_SUFFIXES.get(word.lower())
                    if two_word is not None:
                        more = two_word[0].match(text, end)
                        if more is None:
                            unit, end = "", num_end
                        else:
                            unit, end = two_word[1], more.end()
                elif attached:
                    continue  # 3D, 4G, 1st, 10am: part of a word or an ordinal
            after = text[end] if end < size else " "
            if after.isalnum() or after == "_":
                continue
            if (
                after in "-\u2010"
                and end + 1 < size
                and text[end + 1].isalpha()
                and not _PERIOD_COMPOUND.match(text, end + 1)
            ):
                continue  # 10-K, 3-D (but "a 5-year plan" states a period)
            currency = ""
            if after in " \u00a0" and end + 1 < size and text[end + 1] in "UEGJCRIHDSNKBMZTdepy":
                trailing = _CURRENCY_AFTER.match(text, end)
                if trailing is not None:
                    currency = trailing.group("code") or _CURRENCY_WORDS[trailing.group("word")]
                    end = trailing.end()
            if (
                not (unit or scale_text)
                and after == " "
                and text.startswith("in ", end + 1)
                and (trailing := _SCALE_AFTER.match(text, end)) is not None
            ):
                # "$5,466,312 in USD millions": the scale written after the number is its own
                scale_text = trailing.group("word")
                scale = _SCALE_WORDS[scale_text.lower()]
                end = trailing.end()
            # -- prefix: currency, sign, parenthesis
            start = num_start
            before = text[start - 1] if start else " "
            if before == "." and "." in number:
                continue  # ".0.0", ".1.2": the tail of a dotted run, not a number
            if before == "." and (start < 2 or not text[start - 2].isalnum()):
                start -= 1  # ".5"
                number = "." + number
                before = text[start - 1] if start else " "
            sign = ""
            unspaced = False  # a currency sign glued to the word before it ("of$0.40")
            if before in _SYMBOLS:
                start, currency, unspaced = currency_sign(text, start - 1)
            elif before in "-\u2212" and start >= 2 and text[start - 2] in _SYMBOLS:
                sign = before  # "$-5"
                start -= 2
                currency = text[start]
            elif not currency and start >= 3 and (before in " \u00a0" or before.isupper()):
                gap = 1 if before in " \u00a0" else 0
                code = text[start - 3 - gap : start - gap]
                if code in _CODES and (start - 3 - gap == 0 or not text[start - 4 - gap].isalpha()):
                    start -= 3 + gap
                    currency = code
            if start and text[start - 1] in "-\u2212+" and not sign:
                previous = text[start - 2] if start >= 2 else " "
                if not (previous.isalnum() or previous in ")%].,_"):
                    sign = text[start - 1]
                    start -= 1
            before = text[start - 1] if start else " "
            # -- glued to a word: GPT-4, COVID-19, A1, v2, #1, S&P500 (but 1.5^0.5 is a power)
            if (before.isalnum() or before in "_#@&^") and not (
                (before == "^" and _opens_exponent(text, start)) or unspaced
            ):
                continue
            if before in "-\u2010" and start >= 2 and text[start - 2].isalpha():
                continue
            if before in ",." and start >= 2 and text[start - 2].isdigit():
                continue  # the rest of a malformed number ("1,2345", "10,899/20,875")
            if (
                before == "."
                and start >= 2
                and text[start - 2].isalpha()
                and (start < 3 or not text[start - 3].isalnum())
            ):
                continue  # "Appendix B.2", "A.1": numbering after a single letter
            if before in "'\u2019" and len(number) == 2:
                continue  # '24
            if before == "[" and after == "]" and not unit and not currency:
                continue  # footnote [1]
            if num_start < footnote_end:
                continue  # the rest of a footnote list "[1, 2]"
            if before == "[" and not (unit or currency or scale_text):
                footnotes = _FOOTNOTE_LIST.match(text, start - 1)
                if footnotes is not None:
                    footnote_end = footnotes.end()
                    continue  # footnotes [1, 2], [3-5]
            if before == ">" and text.startswith("<sup>", start - 5):
                continue
            if (
                not (unit or currency or scale_text)
                # cheap guards first: most numbers are neither
                and (before in "§ \t\u00a0" or num_start - last_reference_end <= 12)
                and (
                    _is_section(text, start, number, before)
                    or _continues_references(text, last_reference_end, num_start, number)
                )
            ):
                last_reference_end = end
                continue  # "§4.1", "section 4.2", "sections 4.1 and 4.3"
            bare = not (unit or currency or scale_text or sign)
            if bare and "," not in number and self._is_numbering(start, end):
                continue  # "1." opening a list item, "## 2.3 Risks"
            if bare and "." not in number:
                if "," not in number:
                    if len(number) == 4 and 1900 <= int(number) <= 2100:
                        last_year_end = end
                        continue
                    # "2019-20", "2023/24": the second half of a year range.
                    if len(number) == 2 and 0 < start - last_year_end <= 1:
                        continue
                if before in " \t#№" and _is_reference(text, start, number):
                    last_reference_end = end
                    continue
                if len(number) <= 2 and after == " " and _MONTH_AFTER.match(text, end):
                    continue  # 31 March, 1st of May
            parens = before == "(" and after == ")"
            if parens and unit in ("%", "pp") and self._table_at(start) is None:
                parens = False  # "(22.5%)" in prose is an aside, not a negative
            approx = labels  # hedged or not: read when finished (a wall's rest never is)
            raws.append(
                _Raw(
                    start,
                    end,
                    num_start - 1 if number[0] == "." else num_start,
                    num_end,
                    number,
                    sign,
                    currency,
                    suffix or "",
                    unit or currency,
                    scale,
                    scale_text,
                    parens,
                    approx,
                )
            )
        return raws

    def _may_link(self) -> bool:
        text = self.text
        return "://" in text or "www." in text or "](" in text

    def _is_numbering(self, start: int, end: int) -> bool:
        """ "1." / "2)" opening a line, or the first number of a heading."""
        text = self.text
        # Numbering sits within a few characters of the line start ("#### 4.2 ").
        line_start = text.rfind("\n", max(0, start - 9), start) + 1
        if line_start == 0 and start > 8:
            return False
        prefix = text[line_start:start]
        if prefix.strip(" \t#>*+-"):
            return False
        if "#" in prefix:
            return True
        follow = text[end : end + 2]
        return follow[:1] in (".", ")") and (len(follow) < 2 or follow[1] in " \t\n*")

    def _table_at(self, pos: int) -> _Table | None:
        index = bisect_right(self.table_starts, pos) - 1
        if index >= 0 and pos < self.tables[index].end:
            return self.tables[index]
        return None

    # ------------------------------------------------------------ context scale

    def _apply_context_scale(self, raws: list[_Raw]) -> None:
        if any(table.percent_columns for table in self.tables):
            self._apply_percent_columns(raws)
        mark_layout_percents(self.text, raws)
        regions = _scale_regions(self.text, self.tables)
        scaled_tables = any(
            table.column_scale or table.row_scale or table.table_scale for table in self.tables
        )
        if not regions and not scaled_tables:
            return
        region_starts = [region[0] for region in regions]
        for raw in raws:
            if raw.scale != 1 or raw.unit in ("%", "pp", "bp", "x"):
                continue
            found = self._table_scale(raw.start) if scaled_tables else None
            if found is None and regions:
                index = bisect_right(region_starts, raw.start) - 1
                if index >= 0 and raw.start < regions[index][1]:
                    found = (regions[index][2], regions[index][3])
            if found is not None:
                raw.scale, raw.scale_text = found
                raw.scale_from_context = True

    def _apply_percent_columns(self, raws: list[_Raw]) -> None:
        """A bare number of a markdown column of percentages is one (`_percent_columns`)."""
        for raw in raws:
            if raw.unit or raw.currency or raw.scale != 1:
                continue
            table = self._table_at(raw.start)
            if table is None or not table.percent_columns:
                continue
            row, column = table.locate(raw.start)
            if row > 0 and column in table.percent_columns:
                raw.unit = "%"

    def _table_scale(self, pos: int) -> tuple[Decimal, str] | None:
        table = self._table_at(pos)
        if table is None:
            return None
        row, column = table.locate(pos)
        if row == 0:
            return None
        return table.row_scale.get(row) or table.column_scale.get(column) or table.table_scale

    # ------------------------------------------------------------ finishing

    def _finish(self, index: int, raws: list[_Raw]) -> NumberMention:
        raw = raws[index]
        text = self.text
        number = raw.number.replace(",", "")
        written = Decimal(number if not number.startswith(".") else "0" + number)
        negative = raw.sign in ("-", "\u2212") or raw.parens
        if negative:
            written = -written
        decimals = len(number) - number.index(".") - 1 if "." in number else 0
        label = ""
        tokens: frozenset[str] = frozenset()
        in_table = False
        table = self._table_at(raw.start) if self.tables else None
        if table is not None:
            in_table = True
            if self.labels:
                label = _table_label(text, table, raw.start)
        elif self.labels:
            label, after = _prose_label(
                text,
                raw.start,
                raw.end,
                raws[index - 1].end if index else 0,
                raws[index + 1].start if index + 1 < len(raws) else len(text),
            )
            tokens = label_tokens(label + " " + after)
        if self.labels and in_table:
            tokens = label_tokens(label)
        return NumberMention(  # positional: hundreds per report, keywords cost more
            text[raw.start : raw.end],
            raw.start,
            raw.end,
            raw.num_start,
            raw.num_end,
            written,
            written * raw.scale if raw.scale != 1 else written,
            decimals,
            raw.unit,
            raw.currency,
            raw.scale,
            raw.scale_text,
            raw.scale_from_context,
            negative,
            raw.parens,
            "," in raw.number,
            raw.approx and _is_hedged(text, raw.start),
            in_table,
            raw.in_range,
            label,
            tokens,
        )
