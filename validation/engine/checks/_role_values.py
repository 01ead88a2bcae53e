"""The evidence's values with their own words, for ``roles`` and ``holders``: each value
of the evidence with its noun (the words after it in prose, its key in a JSON record), the
words around it, and in a record the names beside it and the period its keys name (the
module docstring of ``roles`` says how they are read and used).

Linear: each evidence item is scanned once; each value's words come from a bounded window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from validation.engine.checks._query_words import terms
from validation.engine.checks.numeric import durations_in_units, number_words, scan_numbers
from validation.engine.checks.ranges import _many
from validation.engine.errors import EngineError
from validation.engine.types import EvidenceItem

_WINDOW = 100  # characters of a number's own words on each side, at most
_STOPS = ".;!?\n|"
_NAME = 40  # a sibling string this short, without digits, names the record ("10K")
_MAX_VALUES = 5000
_MEMO_KEY = ("roles-values",)  # the evidence's values, kept in its index's memo
_PAIR = 8  # characters between two numbers of one pair ("$45 to $85", "3 hours 43")
_NOUN = 30  # characters after a number where its noun stands
# A currency code in a record's key ("fare_from_usd") is the unit of its value, written as
# a report writes it.
_CODES = {"usd": "$", "eur": "€", "gbp": "£"}
_SENTENCE = 300  # characters of a value's sentence read for its names, each side
_CLAUSE = _STOPS + ",:()"  # marks that end the words said before a value
# A year of its own in a key or a clause ("FY2021", "2019 (11)", "2020-21" ends in 2021).
_YEAR = re.compile(r"(?<![\d.,$])((?:19|20)\d\d)(?:[-/\u2013](\d\d)(?![\d/-]))?(?![\d%])")


class _TooMany(EngineError):
    """More values than a comparison of words can say anything about."""


@dataclass(frozen=True)
class _Value:
    value: Decimal
    words: frozenset[str]
    nouns: frozenset[str]
    source_ref: str
    excerpt: str
    label: str
    # In a record, the words of whose value it is (the key above, the names beside): a
    # claim naming them beside the number is about it.
    whose: frozenset[str] = frozenset()
    # In a record, the years the keys above it name: the period the value is of.
    period: frozenset[str] = frozenset()
    parent: int = -1  # in a record, which object holds it (its siblings share it)
    # A duration read in another unit ("two decades" as 20 years): it can support a
    # claim, never be the other value a claim's noun points to.
    converted: bool = False
    unit: str = ""  # "$", "%", "EUR": what the value is an amount of, when written
    # In a record: the words of its own key, and of each short string of its object
    # ("Breakfast burrito", "Latte (16 oz)"): what names its holder (``holders``).
    key: frozenset[str] = frozenset()
    names: tuple[frozenset[str], ...] = ()
    # In prose, the words of its clause before it, back to the previous number or a
    # comma ("a prize fund of €40,000"): a noun said there is the value's own.
    before: frozenset[str] = frozenset()
    # In prose, the names said before it in its sentence, back to the previous number
    # ("Kamryn Ellis, who finished with 20 points"): whom the value is said of.
    named: frozenset[str] = frozenset()
    told: frozenset[str] = frozenset()  # every name of its sentence (``_SENTENCE`` each side)
    sentence: tuple[str, str, int, int] = ("", "", -1, -1)  # in prose: which sentence holds it
    # In prose, the name a bare integer is part of ("Local 808", "Gate 12"): a number
    # that counts nothing. Empty for any other value.
    title: str = ""


def _years(text: str) -> frozenset[str]:
    """The years ``text`` names, a season "2020-21" naming both."""
    found: set[str] = set()
    for match in _YEAR.finditer(text):
        found.add(match.group(1))
        if match.group(2):
            found.add(match.group(1)[:2] + match.group(2))
    return frozenset(found)


@lru_cache(maxsize=16_384)  # a record's keys and names recur with every value under them
def _words(text: str) -> frozenset[str]:
    return frozenset(term for term in terms(text) if not term[:1].isdigit())


def _around(text: str, start: int, end: int, low: int, high: int) -> tuple[str, str]:
    """The words of a number's clause: up to the neighbouring numbers, a sentence end or
    ``_WINDOW`` characters."""
    left = text[max(low, start - _WINDOW) : start]
    cut = max(left.rfind(mark) for mark in _STOPS)
    if cut >= 0:
        left = left[cut + 1 :]
    right = text[end : min(high, end + _WINDOW)]
    cuts = [found for found in (right.find(mark) for mark in _STOPS) if found >= 0]
    if cuts:
        right = right[: min(cuts)]
    return left, right


_CAPITAL = re.compile(r"[A-Z][a-z]+")
# Capitalised words that name a time, not whom a number is said of.
_CALENDAR = frozenset(
    terms(
        "January February March April May June July August September October November "
        "December Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
    )
)


def names_in(text: str) -> frozenset[str]:
    """The names ``text`` says: the words of its capitalised words, months, days and
    words that name nothing ("The", "It") left out."""
    return (
        frozenset(term for match in _CAPITAL.finditer(text) for term in _words(match.group(0)))
        - _CALENDAR
    )


def _sentence(text: str, start: int, end: int) -> tuple[int, str]:
    """Where the sentence around ``text[start:end]`` starts, and its text, at most
    ``_SENTENCE`` characters each side."""
    low = max(0, start - _SENTENCE)
    left = text[low:start]
    right = text[end : end + _SENTENCE]
    cuts = [found for found in (right.find(mark) for mark in _STOPS) if found >= 0]
    cut = max(left.rfind(mark) for mark in _STOPS) + 1
    return low + cut, left[cut:] + " " + right[: min(cuts, default=len(right))]


def _nouns(right: str) -> frozenset[str]:
    """What a number counts or measures: the first two words after it ("10 rebounds",
    "600 permanent jobs", "-day")."""
    return frozenset(_first(right))


def _first(right: str, most: int = 2) -> list[str]:
    right = right[:_NOUN]
    cuts = [found for found in (right.find(mark) for mark in ",;:()\n|") if found >= 0]
    stop = right.find(". ")
    if stop >= 0:
        cuts.append(stop)
    if cuts:
        right = right[: min(cuts)]  # "costs $60, and has a limit": no noun of the 60
    found: list[str] = []
    for term in terms(right):
        if term[:1].isdigit():
            break
        found.append(term)
        if len(found) == most:
            break
    return found


def _paired(gap: str) -> bool:
    """Two numbers this far apart, in one clause, are one pair ("$45 to $85")."""
    return len(gap) <= _PAIR and not any(mark in gap for mark in _STOPS)


def _decimal(digits: str) -> Decimal | None:
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


# A text's numbers in order, and its worded durations ("two decades").
_Read = tuple[list[tuple[int, int, str, Decimal, str]], list[tuple[int, int, Decimal, str]]]


def _read(text: str, read: dict[str, _Read]) -> _Read:
    """A text's numbers and durations, read once for the count and the values
    (`evidence_values`); _TooMany for a wall of numbers."""
    found = read.get(text)
    if found is None:
        if _many(text):
            raise _TooMany
        numbers = sorted(scan_numbers(text) + number_words(text, smallest=0))
        if len(numbers) > _MAX_VALUES:
            raise _TooMany
        found = read[text] = (numbers, durations_in_units(text))
    return found


def _prose_values(
    text: str,
    extra: frozenset[str],
    ref: str,
    label: str,
    read: dict[str, _Read],
    whose: frozenset[str] = frozenset(),
    holder: tuple[int, tuple[frozenset[str], ...]] = (-1, ()),
) -> Iterator[_Value]:
    numbers, durations = _read(text, read)
    for index, (start, end, digits, _, unit) in enumerate(numbers):
        value = _decimal(digits)
        if value is None:
            continue
        following = index + 1
        if following < len(numbers) and _paired(text[end : numbers[following][0]]):
            following += 1  # "20 and even 25 meters": the noun of the pair is after both
        high = numbers[following][0] if following < len(numbers) else len(text)
        if following > index + 1:
            end = numbers[index + 1][1]
        left, right = _around(text, start, end, 0, len(text))
        excerpt = text[max(0, start - _WINDOW) : end + _WINDOW].strip()
        nouns = _nouns(text[end:high]) | extra
        lead = text[max(numbers[index - 1][1] if index else 0, start - _WINDOW) : start]
        lead = lead[max(lead.rfind(mark) for mark in _STOPS) + 1 :]
        said = names_in(lead)  # whom it is said of: named before it in its sentence
        sentence, said_there = _sentence(text, start, end)
        told = names_in(said_there)
        lead = lead[max(lead.rfind(mark) for mark in _CLAUSE) + 1 :]
        words = _words(left + " " + right) | extra
        yield _Value(
            value,
            words,
            nouns,
            ref,
            excerpt,
            label,
            whose,
            title="" if nouns or unit or not digits.isdigit() else _title(text, start),
            parent=holder[0],
            unit=unit,
            key=extra,
            names=holder[1],
            before=_words(lead),
            named=said,
            told=told,
            sentence=(ref, label, holder[0], sentence),
        )
    for start, end, value, unit in durations:  # "two decades": 20 years
        left, right = _around(text, start, end, 0, len(text))
        excerpt = text[max(0, start - _WINDOW) : end + _WINDOW].strip()
        words = _words(left + " " + right) | extra
        nouns = _words(unit) | extra
        yield _Value(value, words, nouns, ref, excerpt, label, whose, converted=True)


_TITLE = 30  # characters of the word before a number read for a name
# Capitalised words before a number that are no name: a sentence's first word saying
# when or how many.
_NO_NAME = frozenset(terms("since around roughly nearly almost another top every than till circa"))


def _title(text: str, start: int) -> str:
    """The stem of the capitalised word right before a bare integer at ``start`` ("Local
    808", "Gate 12"), of which the integer is part; empty after a word that says when or
    how many ("In 2019", "Around 40"), a month or weekday ("May 14"), or any other word."""
    if start < 3 or text[start - 1] != " ":
        return ""
    head = text[max(0, start - _TITLE) : start - 1]
    at = len(head)
    while at and head[at - 1].isalpha():
        at -= 1
    word = head[at:]
    if at == 0 and len(head) == _TITLE - 1:
        return ""  # a word longer than the window
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return ""
    stems = _words(word)
    if len(stems) != 1 or stems & (_CALENDAR | _NO_NAME):
        return ""  # "In 2019", "Since 2019", "Around 40", "May 14" name nothing
    return next(iter(stems))


def _key_words(key: Any) -> str:
    return str(key).replace("_", " ") if isinstance(key, str) else ""


def _json_values(root: Any, ref: str, read: dict[str, _Read]) -> Iterator[_Value]:
    """Each value of a JSON record: its key says what it counts; the key above it and
    the short names beside it ("name": "10K") say whose it is."""
    # node, its key, whose, the period its keys name, the object holding it, its names
    Names = tuple[frozenset[str], ...]
    stack: list[tuple[Any, str, str, frozenset[str], int, Names]] = [
        (root, "", "", frozenset(), -1, ())
    ]
    objects = 0
    while stack:
        node, key, whose, period, parent, held = stack.pop()
        if isinstance(node, dict):
            objects += 1
            names = " ".join(
                value
                for value in node.values()
                if isinstance(value, str)
                and len(value) <= _NAME
                and not any(character.isdigit() for character in value)
            )
            held = tuple(
                _words(value)
                for value in node.values()
                if isinstance(value, str) and len(value) <= _NAME
            )
            for child_key, child in node.items():
                years = _years(child_key) if isinstance(child_key, str) else frozenset()
                whose = f"{key} {names}"
                stack.append((child, _key_words(child_key), whose, years or period, objects, held))
        elif isinstance(node, list):
            stack.extend((child, key, whose, period, parent, held) for child in node)
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, (int, float)):
            value = _decimal(str(node))
            if value is not None:
                own = _words(key)
                coded = own & _CODES.keys()  # "fare_from_usd": an amount in dollars
                unit = _CODES[min(coded)] if len(coded) == 1 else ""
                own = own - coded if unit else own
                label = key.strip()
                excerpt = f"{label}: {node}"
                yield _Value(
                    value,
                    own,
                    own,
                    ref,
                    excerpt,
                    label,
                    _words(whose),
                    period,
                    parent,
                    unit=unit,
                    key=own,
                    names=held,
                )
        elif isinstance(node, str) and any(character.isdigit() for character in node):
            yield from _prose_values(
                node, _words(key), ref, key.strip(), read, _words(whose), (parent, held)
            )


def evidence_values(evidence: Sequence[EvidenceItem]) -> list[_Value]:
    """Every value of the evidence with its own words (tables left out: see above). Past
    `_MAX_VALUES` of them, none: they are counted first, so a wall of numbers costs a
    count, not the words of the values read before it."""
    found: list[_Value] = []
    read: dict[str, _Read] = {}
    try:
        _count(evidence, read)
        for item in evidence:
            content = item.content
            if isinstance(content, str):
                if "\n|" in content or content.startswith("|"):
                    continue
                found.extend(_prose_values(content, frozenset(), item.source_ref, "", read))
            else:
                for value in _json_values(content, item.source_ref, read):
                    found.append(value)
                    if len(found) > _MAX_VALUES:
                        raise _TooMany
            if len(found) > _MAX_VALUES:
                raise _TooMany
    except _TooMany:
        return []  # a wall of numbers: too little said about each to compare
    return found


def _count(evidence: Sequence[EvidenceItem], read: dict[str, _Read]) -> int:
    """How many values `evidence_values` reads, in its order (a record's numbers, and the
    numbers and durations of each text it reads as prose); _TooMany once past
    `_MAX_VALUES`."""
    count = 0
    for item in evidence:
        content = item.content
        if isinstance(content, str):
            if "\n|" in content or content.startswith("|"):
                continue
            count += _text_count(content, read)
        else:
            stack = [content]
            while stack:
                node = stack.pop()
                if isinstance(node, dict):
                    stack.extend(node.values())
                elif isinstance(node, list):
                    stack.extend(node)
                elif isinstance(node, bool) or node is None:
                    continue
                elif isinstance(node, (int, float)):
                    # Every int and float reads as a Decimal ("1e-05", "inf", "nan").
                    exact = type(node) is int or type(node) is float
                    count += exact or _decimal(str(node)) is not None
                elif isinstance(node, str) and any(character.isdigit() for character in node):
                    count += _text_count(node, read)
                if count > _MAX_VALUES:
                    raise _TooMany
        if count > _MAX_VALUES:
            raise _TooMany
    return count


def _text_count(text: str, read: dict[str, _Read]) -> int:
    """The values `_prose_values` reads from a text: its numbers that read as a Decimal,
    and its durations."""
    numbers, durations = _read(text, read)
    return sum(_decimal(digits) is not None for _, _, digits, _, _ in numbers) + len(durations)


def remembered_values(
    evidence: Sequence[EvidenceItem], memo: dict[Any, Any] | None
) -> list[_Value]:
    """``evidence_values``, kept in ``memo`` (the evidence index's) for the next report."""
    values: list[_Value] | None = memo.get(_MEMO_KEY) if memo is not None else None
    if values is None:
        values = evidence_values(evidence)
        if memo is not None:
            memo[_MEMO_KEY] = values
    return values
