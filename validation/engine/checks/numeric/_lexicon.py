"""The words around a number: currency codes and symbols, months and periods,
reference and section words, hedges, scale and unit words, ranges and moves. The labels
prose gives a number ("revenue of $5M") are read by `_prose_labels`.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from itertools import pairwise

from validation.engine.checks.numeric._labels import wordset
from validation.engine.checks.numeric._types import NumberMention, _Raw

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
    return _reference_after(text[max(0, start - 24) : start], number)


# Read from the 24 characters before a number, which a long report repeats: once each.
@lru_cache(maxsize=4096)
def _reference_after(head: str, number: str) -> bool:
    if head[-1:] in ("#", "№"):
        return True
    words = head.split()[-2:]  # `_words_before`
    if not words:
        return False
    last = words[-1].lstrip("*_([")  # "**Apr. 18", "(Oct. 9"
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
    return _hedge_in(text[max(0, start - 24) : start])


@lru_cache(maxsize=4096)
def _hedge_in(before: str) -> bool:
    head = before.rstrip()
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
# After a hyphen, what leaves the number a claim: a lowercase word, the compound then
# states an amount of it -- a period ("a 5-year plan"), a measure ("a 44-kilogram
# capsule", "a 187-kilometre stage", "a $2,500-a-day bonus") or "plus" ("a 1,500-plus
# crowd" is at least 1,500). Not "52-week high" (a window's name), and not a capital
# (10-K, 3-D: a code).
_PERIOD_COMPOUND = re.compile(r"(?!week)[a-z]")
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
_RANGE_GAP = re.compile(r"[ \t]*(?:-|\u2013|\u2014|to|and)[ \t]*")
# A hedge may stand between "from" / "by" and the number ("from roughly 50.9% to 40.0%").
_HEDGE = r"(?:(?:about|roughly|around|approximately|nearly|almost|some|just|only)[ \t]+)?"
_RANGE_FROM = re.compile(r"(?i)\b(?:from|between)[ \t]*" + _HEDGE + "$")
_BY_BEFORE = re.compile(r"(?i)\bby[ \t]+" + _HEDGE + "$")
_BEFORE_REACH = 28  # characters looked at before a range's first end for those words
# A verb of a move right before the first end ("fell $540 million to $13,448 million").
_MOVED_BEFORE = re.compile(
    r"(?i)\b(?:rose|rises|risen|fell|falls|fallen|grew|grows|grown|increased|increases"
    r"|decreased|decreases|declined|declines|dropped|drops|climbed|climbs|jumped|jumps"
    r"|gained|gains|slipped|slid|dipped|surged|soared|plunged|tumbled|shrank|contracted"
    r"|expanded|advanced|retreated|sank|eased|softened|up|down)[ \t]+" + _HEDGE + "$"
)
_MAGNITUDES = 2  # a range's ends are of one magnitude; a move's level is this many times it


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
            from_before = _RANGE_FROM.search(text, max(0, first.start - _BEFORE_REACH), first.start)
            if connector == "and" and from_before is None:
                continue
            if connector == "to" and from_before is not None and "from" in from_before.group():
                continue  # "from X to Y" is a change, not a range
            if connector == "to" and _BY_BEFORE.search(
                text, max(0, first.start - _BEFORE_REACH), first.start
            ):
                continue  # "increased by $445,000 to $1,609,000": a change and where it ends
            if connector == "to" and _moved_to_level(text, first, second):
                continue  # "fell $540 million to $13,448 million": the move, then the level
        if first.unit and second.unit and first.unit != second.unit:
            continue  # "fell 5% to $3.2 billion": a change and a level, not two ends
        if first.unit == "%" and second.unit != "%":
            continue  # "cut 11.9% to 3,732 million": a rate is never one end of a count
        elif connector == "-" and first.end < second.start - 1:
            continue  # "15.5 - 0.7" with spaces is a subtraction
        first.in_range = second.in_range = True
        if not first.unit:
            first.unit = second.unit
            first.currency = second.currency
        if first.scale == 1 and first.unit not in ("%", "pp", "bp", "x"):
            first.scale, first.scale_text = second.scale, second.scale_text


def _moved_to_level(text: str, first: _Raw, second: _Raw) -> bool:
    """A verb of a move before "X to Y", Y many times X: how much it moved and the level it
    reached ("dropped $406 million to $5,686 million"). Ends of one magnitude stay a range
    ("should grow 5% to 7%")."""
    if not _MOVED_BEFORE.search(text, max(0, first.start - _BEFORE_REACH), first.start):
        return False
    low, high = _amount(first, second), _amount(second, second)
    return low > 0 and high >= _MAGNITUDES * low


def _amount(raw: _Raw, scaled: _Raw) -> Decimal:
    """`raw`'s size, at its own scale or else at `scaled`'s (a bare first end takes it,
    unless it writes a thousand or more: "up $590,000 to $65.5 million" moved by dollars)."""
    try:
        written = abs(Decimal(raw.number.replace(",", "")))
    except ArithmeticError:
        return Decimal(0)
    if raw.scale != 1 or raw.scale_text or written >= 1000:
        return written * raw.scale
    return written * scaled.scale


def written_as_multiple(body: str, mention: NumberMention, named: bool = False) -> bool:
    """The number is a multiple: "16.5x", "2.7 times", "a 3-fold rise"; with `named`, a
    ratio its clause names too ("the current ratio of about 0.46", for the closed search:
    matching and the fixpoint read such a figure as they read any plain number)."""
    if mention.unit == "x":
        return True
    after = body[mention.end : mention.end + 8].lower()
    if after.startswith((" times", "x ", "-fold", " fold")):
        return True
    words = clause_before(body, mention.start) if named and not mention.is_percent else ""
    return named_ratio(words) is not None


# Ratios analysts name, and what each is of: (the line over, the line under).
_NAMED_RATIOS = {
    "current ratio": ("current assets", "current liabilities"),
    "debt to equity": ("debt", "equity"),
    "payout ratio": ("dividends", "net income"),
}
_NAMED_RATIO = re.compile(r"(?i)\b(?:current ratio|debt[ -]to[ -]equity|payout ratio)\b")
RATIO_REACH = 60  # characters before a number read for the ratio its words name


def clause_before(body: str, start: int) -> str:
    """The words of a number's own clause before it, within `RATIO_REACH` characters."""
    window = body[max(0, start - RATIO_REACH) : start]
    cut = max(window.rfind(mark) for mark in ("\n", ". ", ";", ":", "("))
    return window[cut + 1 :]


def named_ratio(words: str) -> tuple[str, str] | None:
    """The lines a ratio the words name is of, the last one named: "the current ratio"
    is total current assets over total current liabilities."""
    named = _NAMED_RATIO.findall(words)
    return _NAMED_RATIOS[named[-1].lower().replace("-", " ")] if named else None


# A margin (gross, operating, net) is a line's share of revenue; "margin of safety" is
# a gap between a price and a value (`_cues.GAP`), no share.
_MARGIN = re.compile(r"\bmargins?\b(?! of safety)", re.IGNORECASE)
MARGIN_REACH = 80  # characters before a rate read for the margin its words name


def names_a_margin(body: str, low: int, start: int) -> bool:
    """The words just before a rate, in its clause, call it a margin."""
    return _MARGIN.search(body, max(low, start - MARGIN_REACH), start) is not None


def currency_sign(text: str, sign: int) -> tuple[int, str, bool]:
    """Where a number's currency starts, given its sign's place: (start, currency, unspaced).
    "US$5" and "A$3" start at their prefix. A sign right after a lower-case word is a
    space lost when the text was copied out of its document ("dividends of$0.40",
    "approximately$5.1 million"): unspaced, the number is read all the same."""
    symbol = text[sign]
    if symbol == "$" and sign and text[sign - 1].isalpha():
        for prefix in _DOLLAR_PREFIXES:
            head = sign - len(prefix)
            if text.startswith(prefix, head) and (head == 0 or not text[head - 1].isalpha()):
                return head, prefix + "$", False
    return sign, symbol, sign >= 2 and text[sign - 1].islower() and text[sign - 2].islower()
