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

Two more rules live in `numeric.analyze`, because they need the query or the
evidence: numbers quoted from the query, and small integers (<= 10, no unit)
that the evidence does not contain, are not claims.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise

from validation.engine.checks.numeric._labels import label_tokens, wordset

CURRENCY_CODES = (
    "USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|HKD|DKK|SEK|NOK|KRW|BRL|MXN|ZAR|SGD|NZD|TWD"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_CODES = frozenset(CURRENCY_CODES.split("|"))
_SYMBOLS = "$€£¥₹₩₽"
_THOUSANDS_MARK = "'\u2019" + _SYMBOLS
_DOLLAR_PREFIXES = ("US", "HK", "NZ", "C", "A", "S", "R")
# One cheap token per digit run: the number, an optional date/time/fraction tail
# (which makes it a non-claim) and an optional suffix word. Context checks are
# done on the few characters around each token, which is much faster than one
# regex with an alternative per non-claim form.
_TOKEN = re.compile(
    r"(?P<num>[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)*)"
    r"(?P<tail>-[0-9]{1,2}-[0-9]{1,4}|/[0-9]+(?:/[0-9]+)?|:[0-9]+(?::[0-9]+)?)?"
    r"(?P<suf>[ \u00a0]?(?:%|\u00d7|[A-Za-z]+))?"
)
_URLS = re.compile(r"(?:https?://|www\.)[^\s<>\])\"'`]+|\]\([^()\[\]\s]*\)")
_MONTHS = wordset(
    "Jan January Feb February Mar March Apr April May Jun June Jul July Aug August Sep Sept "
    "September Oct October Nov November Dec December"
)
_PERIOD_MARKERS = wordset("FY CY Q1 Q2 Q3 Q4 H1 H2")
_INDEX_NAMES = wordset(
    "s&p russell ftse nikkei dax cac stoxx eurostoxx nasdaq asx nifty sensex ibex omxc omxs "
    "kospi tsx wilshire dow"
)
# Words before a bare integer that make it a reference, not a quantity.
_REFERENCE_WORDS = wordset(
    """step steps section sec page pages pp p table figure fig note notes item items phase tier
    level version ver chapter ch appendix exhibit ex slide rule article art form schedule part
    sections tables figures chapters appendices exhibits paragraphs clauses articles parts
    no nos question round line paragraph para clause footnote rank ranked top bottom attempt
    iteration loop option scenario case day week month year quarter gen generation series model
    class grade stage group category type # №"""
)
# Words before a dotted number that make it a section of a document ("section 4.2",
# "Table 2.1"); a dotted number after other reference words ("day 4.5") is a value.
_SECTION_WORDS = wordset(
    """section sections sec chapter chapters ch appendix appendices exhibit exhibits table
    tables figure figures fig note notes item items step steps clause clauses paragraph
    paragraphs para article articles art part parts rule schedule slide version ver"""
)
# Between two references of one list: "§§ 4.1-4.3", "sections 4.1, 4.2 and 4.3".
_REFERENCE_LIST_GAP = re.compile(
    r"[ \t]*(?:[-\u2013\u2014,/&]|and|or|to|through)[ \t]*(?:§+[ \t]*)?"
)
_FOOTNOTE_LIST = re.compile(r"\[[0-9]{1,3}(?:[ ]*[,\-\u2013][ ]*[0-9]{1,3})+\]")
_HEDGE_WORDS = wordset(
    "about approximately approx around roughly nearly almost over under some circa c estimated ~ ≈"
)
_HEDGE_PAIR_ENDS = frozenset(("than", "to", "of", "least", "most", "over", "under"))
_HEDGE_PAIRS = frozenset(
    (
        "more than",
        "less than",
        "close to",
        "upwards of",
        "at least",
        "at most",
        "up to",
        "just over",
        "just under",
    )
)


def _words_before(text: str, start: int) -> list[str]:
    return text[max(0, start - 24) : start].split()[-2:]


def _is_reference(text: str, start: int, number: str) -> bool:
    """ "page 67", "Table 2", "March 31", "FY 24", "S&P 500", "No. 1", "#3"."""
    if text[start - 1 : start] in ("#", "№"):
        return True
    words = _words_before(text, start)
    if not words:
        return False
    last = words[-1]
    bare = last.rstrip(".")
    if bare in _MONTHS or bare.capitalize() in _MONTHS or last in _PERIOD_MARKERS:
        return True
    lowered = bare.lower()
    if lowered in _INDEX_NAMES:
        return number in _INDEX_SIZES
    return lowered in _REFERENCE_WORDS


def _is_section(text: str, start: int, number: str, before: str) -> bool:
    """ "§4.1", "§ 4.2", "[§4.1 quote]", "section 4.2", "Table 2.1": a place in a document."""
    if before == "§":
        return True
    if before not in " \t\u00a0":
        return False
    if text[start - 2 : start - 1] == "§":
        return True
    if "." not in number:
        return False
    words = _words_before(text, start)
    return bool(words) and words[-1].rstrip(".").lower() in _SECTION_WORDS


def _continues_references(text: str, last_end: int, num_start: int, number: str) -> bool:
    """The next number of a list of references ("sections 4.1 and 4.3", "§§ 4.1-4.3")."""
    if num_start - last_end > 12 or "," in number or len(number.split(".", 1)[0]) > 3:
        return False
    return _REFERENCE_LIST_GAP.fullmatch(text, last_end, num_start) is not None


def _is_hedged(text: str, start: int) -> bool:
    """ "about 1,200", "~$5B", "more than 40%"."""
    head = text[max(0, start - 24) : start].rstrip()
    if not head:
        return False
    if head[-1] in "~\u2248":
        return True
    cut = head.rfind(" ")
    last = head[cut + 1 :].lower().rstrip(".,")
    if last in _HEDGE_WORDS:
        return True
    if last not in _HEDGE_PAIR_ENDS or cut < 0:
        return False
    previous = head[:cut].rstrip()
    return f"{previous[previous.rfind(' ') + 1 :].lower()} {last}" in _HEDGE_PAIRS


_INDEX_SIZES = wordset(
    "500 400 600 100 1500 1000 2000 3000 250 350 225 30 40 50 200 300 35 25 60 5000"
)
_MONTH_AFTER = re.compile(rf"(?:st|nd|rd|th)?[ ]+(?:of[ ]+)?{_MONTH}\b")
_PERIOD_COMPOUND = re.compile(r"(?:day|month|minute|hour|year)\b")  # not "52-week high"
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
# Suffix words after a space; single letters only count when attached ("5B").
_SPACED_SUFFIXES = wordset(
    "% percent pct pp ppt ppts bp bps thousand thousands million millions billion billions "
    "trillion trillions mn mln bn bln tn trn mm"
)
# First letters of the suffixes that may follow a number after a space.
_SPACED_FIRST = frozenset("%pPbBtTmM")
_TWO_WORD_SUFFIXES = {
    "percentage": (re.compile(r"[ ]+points?\b"), "pp"),
    "basis": (re.compile(r"[ ]+points?\b"), "bp"),
    "per": (re.compile(r"[ ]?cent\b"), "%"),
}
_CURRENCY_AFTER = re.compile(
    rf"[ \u00a0](?:(?P<code>{CURRENCY_CODES})|(?P<word>dollars|euros|pounds|yen))\b"
)
_SCALE_AFTER = re.compile(
    rf"[ ]in[ ]+(?:(?:{CURRENCY_CODES})[ ]+|US[ ]?\$[ ]*|\$[ ]*)?"
    r"(?P<word>(?i:thousands|millions|billions|trillions))\b"
)
_SCALE_WORDS: dict[str, Decimal] = {
    "k": Decimal(1000),
    "thousand": Decimal(1000),
    "thousands": Decimal(1000),
    "000": Decimal(1000),
    "000s": Decimal(1000),
    "'000": Decimal(1000),
    "'000s": Decimal(1000),
    "m": Decimal(10**6),
    "mm": Decimal(10**6),
    "mn": Decimal(10**6),
    "mln": Decimal(10**6),
    "million": Decimal(10**6),
    "millions": Decimal(10**6),
    "b": Decimal(10**9),
    "bn": Decimal(10**9),
    "bln": Decimal(10**9),
    "billion": Decimal(10**9),
    "billions": Decimal(10**9),
    "t": Decimal(10**12),
    "tn": Decimal(10**12),
    "trn": Decimal(10**12),
    "trillion": Decimal(10**12),
    "trillions": Decimal(10**12),
}
_UNIT_WORDS: dict[str, str] = {
    "%": "%",
    "\u00d7": "x",
    "percent": "%",
    "per cent": "%",
    "percent.": "%",
    "pct": "%",
    "pp": "pp",
    "ppt": "pp",
    "ppts": "pp",
    "percentage point": "pp",
    "percentage points": "pp",
    "bp": "bp",
    "bps": "bp",
    "basis point": "bp",
    "basis points": "bp",
    "x": "x",
}
_CURRENCY_WORDS = {"dollars": "$", "euros": "€", "pounds": "£", "yen": "¥"}

_CUR_OR_CODE = rf"(?:US[ ]?\$|\$|€|£|¥|₹|\b(?:{CURRENCY_CODES})\b)"
_SCALE_PHRASE = re.compile(
    # (in millions) / ($ in thousands) / (USD millions) / (in millions of dollars, except ...)
    rf"\((?:[ ]*(?:all[ ]+)?(?:amounts?|figures?|values?|numbers?|data)[ ]+)?[ ]*(?:in[ ]+)?"
    rf"(?:{_CUR_OR_CODE}[ ]*(?:in[ ]+)?)?"
    r"(?P<w1>(?i:thousands|millions|billions|trillions|thousand|million|billion|mm|mn|mln|bn"
    r"|['\u2018\u2019]?000s?))\b"
    r"(?:[ ]+of[ ]+[A-Za-z$€£ ]{2,20}?)?(?:[ ]*[,;][^()\n]{0,80})?[ ]*\)"
    # ($M) / (€m) / (USD bn) / ($000)
    rf"|\([ ]*{_CUR_OR_CODE}[ ]*(?P<w2>[kKmMbB]|mm|MM|mn|bn|['\u2018\u2019]?000s?)[ ]*\)"
    # in $ millions / in millions of dollars / figures in thousands
    rf"|\b(?i:in)[ ]+(?:{_CUR_OR_CODE}[ ]*)?(?P<w3>(?i:thousands|millions|billions|trillions))\b"
    # USD millions / $ millions / DKK bn (no digits follow)
    rf"|{_CUR_OR_CODE}[ ]*(?P<w4>(?i:thousands|millions|billions|mn|bn|mm))\b"
    # USD '000 / US$'000 (a statement's "in thousands")
    rf"|{_CUR_OR_CODE}[ ]*(?P<w5>['\u2018\u2019]000s?)(?![0-9])"
)
_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]", re.MULTILINE)
# Label words: words, and years (they say *which* number: "2024 revenue").
_WORDS = re.compile(
    r"(?<![0-9A-Za-z.,])(?:[A-Za-z][A-Za-z0-9&'\u2019_/-]*|(?:19|20)[0-9]{2}(?![0-9]))"
)
# Unit and scale words say nothing about *what* a number is.
_NOT_LABEL_WORDS = wordset(
    """
    k m b t bn mn mm mln tn x pp bp bps percent pct per cent thousand thousands million
    millions billion billions trillion trillions usd eur gbp dkk jpy
    """
)
_CLAUSE_BOUNDARIES = ("\n", "|", ";", ". ")
_RANGE_GAP = re.compile(r"[ \t]*(?:-|\u2013|\u2014|to|and)[ \t]*")
_RANGE_FROM = re.compile(r"(?i)\b(?:from|between)[ \t]*$")
_BY_BEFORE = re.compile(r"(?i)\bby[ \t]+$")


@dataclass(slots=True)
class NumberMention:
    """One number as written in a text.

    `written` is the signed number as shown ("$14.8B" -> 14.8, "(1,234)" -> -1234);
    `value` is `written * scale` (14_800_000_000). Percentages keep their written
    value (22.5 for "22.5%"); matching converts them. `decimals` is the precision
    shown (digits after the point). `unit` is "%", "pp", "bp", "x", a currency
    symbol or code ("$", "€", "USD", ...) or "". `scale_from_context` marks a scale
    taken from "(in millions)" and the like rather than from the number itself.
    `num_start`/`num_end` span just the digits, so a fix can keep the format.
    Treat it as read-only (it is not frozen only because frozen dataclasses are
    several times slower to create, and reports have hundreds of numbers).
    """

    text: str
    start: int
    end: int
    num_start: int
    num_end: int
    written: Decimal
    value: Decimal
    decimals: int
    unit: str = ""
    currency: str = ""
    scale: Decimal = Decimal(1)
    scale_text: str = ""
    scale_from_context: bool = False
    negative: bool = False
    parens: bool = False
    separators: bool = False
    approx: bool = False
    in_table: bool = False
    in_range: bool = False
    label: str = ""
    tokens: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_percent(self) -> bool:
        return self.unit in ("%", "pp")

    @property
    def has_explicit_scale(self) -> bool:
        return self.scale != 1 and not self.scale_from_context

    @property
    def quantum(self) -> Decimal:
        """One unit in the last place shown, in the units of `value`."""
        return Decimal(1).scaleb(-self.decimals) * self.scale

    @property
    def significant_digits(self) -> int:
        digits = str(abs(self.written)).replace(".", "").lstrip("0")
        return max(1, len(digits))

    def is_plain_integer(self) -> bool:
        return (
            self.decimals == 0
            and not self.unit
            and self.scale == 1
            and not self.separators
            and not self.negative
        )


@dataclass(slots=True)
class _Raw:
    start: int
    end: int
    num_start: int
    num_end: int
    number: str
    sign: str
    currency: str
    suffix: str
    unit: str
    scale: Decimal
    scale_text: str
    parens: bool
    approx: bool
    in_range: bool = False
    scale_from_context: bool = False


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


def extract(text: str) -> list[NumberMention]:
    """Every numeric claim of `text`, in order (see the module docstring)."""
    return _Extractor(text, labels=True).run()


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
    dashes = _dash_cells(text, extractor.tables)
    if dashes:
        found = sorted(found + dashes, key=lambda number: number[0])
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

    def run(self) -> list[NumberMention]:
        raws = self._scan()
        if not raws:
            return []
        _mark_ranges(self.text, raws)
        self._apply_context_scale(raws)
        return [self._finish(index, raws) for index in range(len(raws))]

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
                    raws.append(
                        _Raw(
                            begin,
                            finish,
                            begin,
                            finish,
                            digits,
                            "",
                            "",
                            "",
                            "",
                            _ONE,
                            "",
                            False,
                            False,
                        )
                    )
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
            ):
                continue  # glued to a word: Q3, FY2024, A1, v2 (but USD15 is money)
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
            if before in _SYMBOLS:
                start -= 1
                currency = before
                if currency == "$" and start and text[start - 1].isalpha():
                    for prefix in _DOLLAR_PREFIXES:
                        head = start - len(prefix)
                        if text.startswith(prefix, head) and (
                            head == 0 or not text[head - 1].isalpha()
                        ):
                            start, currency = head, prefix + "$"
                            break
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
                before == "^" and _opens_exponent(text, start)
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
            if parens and unit in ("%", "pp") and not self._in_table(start):
                parens = False  # "(22.5%)" in prose is an aside, not a negative
            approx = labels and _is_hedged(text, start)
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

    def _in_table(self, pos: int) -> bool:
        return self._table_at(pos) is not None

    def _table_at(self, pos: int) -> _Table | None:
        index = bisect_right(self.table_starts, pos) - 1
        if index >= 0 and pos < self.tables[index].end:
            return self.tables[index]
        return None

    # ------------------------------------------------------------ context scale

    def _apply_context_scale(self, raws: list[_Raw]) -> None:
        if any(table.percent_columns for table in self.tables):
            self._apply_percent_columns(raws)
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
        """A bare number in a column of percentages ("100.0 %" above it, "7.2 %" in
        the last row, or "%" in its header) is a percentage too."""
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
            raw.approx,
            in_table,
            raw.in_range,
            label,
            tokens,
        )


_ONE = Decimal(1)
_ATTACHED_SCALES = {"K": "k", "k": "k", "M": "m", "m": "m", "B": "b", "b": "b", "T": "t"}


def _opens_exponent(text: str, start: int) -> bool:
    """The number at `start` is an exponent: "1.5^0.5", "(a / b)^(1/2)", "x ** (1/3)"."""
    position = start - 1
    floor = max(0, start - 6)
    while position >= floor and text[position] in " (":
        position -= 1
    if position < floor or text[position] not in "^*":
        return False
    if text[position] == "*":
        position -= 1
        if position < 0 or text[position] != "*":
            return False
    position -= 1
    floor = max(0, position - 4)
    while position > floor and text[position] == " ":
        position -= 1
    return position >= 0 and (text[position].isdigit() or text[position] == ")")


def _digit_at(text: str, index: int) -> bool:
    return index < len(text) and text[index].isdigit()


def _read_suffix_word(word: str, attached: bool) -> tuple[str, Decimal, str] | None:
    """(unit, scale, scale text) of the word after a number, or None if it is
    not a unit or scale ("5 stores")."""
    if word in _ATTACHED_SCALES:
        if not attached:
            return None
        return "", _SCALE_WORDS[_ATTACHED_SCALES[word]], word
    lowered = word.lower()
    if lowered in ("x", "\u00d7"):
        return ("x", _ONE, "") if attached else None
    if lowered in _TWO_WORD_SUFFIXES:
        return "", _ONE, ""  # completed by the caller
    if not attached and lowered not in _SPACED_SUFFIXES and word != "MM":
        return None
    unit = _UNIT_WORDS.get(lowered)
    if unit is not None:
        return unit, _ONE, ""
    scale = _SCALE_WORDS.get(lowered)
    if scale is not None and lowered not in ("t", "k", "m", "b"):
        return "", scale, word
    return None


def _mark_ranges(text: str, raws: list[_Raw]) -> None:
    """ "10-12%", "$5 to $7", "$1.2-1.5B": both ends are numbers; a bare first end
    takes the unit and scale of the second."""
    for first, second in pairwise(raws):
        gap = _RANGE_GAP.fullmatch(text, first.end, second.start)
        if gap is None:
            continue
        connector = gap.group().strip()
        if connector in ("to", "and"):
            from_before = _RANGE_FROM.search(text, max(0, first.start - 12), first.start)
            if connector == "and" and from_before is None:
                continue
            if connector == "to" and from_before is not None and "from" in from_before.group():
                continue  # "from X to Y" is a change, not a range
            if connector == "to" and _BY_BEFORE.search(text, max(0, first.start - 8), first.start):
                continue  # "increased by $445,000 to $1,609,000": a change and where it ends
        if first.unit and second.unit and first.unit != second.unit:
            continue  # "fell 5% to $3.2 billion": a change and a level, not two ends
        elif connector == "-" and first.end < second.start - 1:
            continue  # "15.5 - 0.7" with spaces is a subtraction
        first.in_range = second.in_range = True
        if not first.unit:
            first.unit = second.unit
            first.currency = second.currency
        if first.scale == 1 and first.unit not in ("%", "pp", "bp", "x"):
            first.scale, first.scale_text = second.scale, second.scale_text


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
        if len(numeric) >= 2 and "%" in numeric[0] and "%" in numeric[-1]:
            found.add(column)
    return frozenset(found)


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


def prose_label(text: str, start: int, end: int, prev_end: int, next_start: int) -> str:
    """The label words of a number in running text (used for evidence text too)."""
    before, after = _prose_label(text, start, end, prev_end, next_start)
    return before if before else after


def _prose_label(
    text: str, start: int, end: int, prev_end: int, next_start: int
) -> tuple[str, str]:
    """(words before, words after) the number, within its clause. Before-words stop
    at the previous number when there are words in between ("OCF $15.5B - CapEx
    $0.7B": the label of $0.7B is "CapEx"), else reach back to the clause start."""
    low = max(0, start - 160)
    window = text[low:start]
    period = window.rfind(". ")
    clause = low + max(
        window.rfind("\n") + 1,
        window.rfind("|") + 1,
        window.rfind(";") + 1,
        period + 2 if period >= 0 else 0,
    )
    words: list[str] = []
    if prev_end > clause:
        words = _last_label_words(_WORDS.findall(text, prev_end, start))
    if not words:
        words = _last_label_words(_WORDS.findall(text, clause, start))
    if not words and clause > 0 and text[clause - 1] == "\n" and prev_end < clause:
        # A number alone on its line (a table extracted from a PDF, one cell a line,
        # "$" on a line of its own): its label is the words on the lines above, back to
        # the previous number.
        words = _last_label_words(_WORDS.findall(text, max(prev_end, clause - 160), clause))
    before = " ".join(words).strip(" -/")
    high = min(len(text), end + 60, max(next_start, end))
    tail = text[end:high]
    for boundary in _CLAUSE_BOUNDARIES:
        found = tail.find(boundary)
        if found >= 0:
            tail = tail[:found]
    after = [word for word in _WORDS.findall(tail)[:5] if word.lower() not in _NOT_LABEL_WORDS]
    return before, " ".join(after[:3])


def _last_label_words(words: list[str]) -> list[str]:
    """The words before a number up to eight content words (unit and scale words
    are dropped; small words like "to", "of" do not count towards the eight)."""
    kept: list[str] = []
    content = 0
    for word in reversed(words[-16:]):
        lowered = word.lower()
        if lowered in _NOT_LABEL_WORDS:
            continue
        kept.append(word)
        if lowered not in _SMALL_WORDS:
            content += 1
            if content == 8:
                break
    kept.reverse()
    return kept


_SMALL_WORDS = wordset(
    "a an the of in on at to for and or by with from as is was were are be been its it this "
    "that than then which who up down"
)
