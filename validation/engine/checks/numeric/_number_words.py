"""Numbers written in words, as the evidence states them: "twenty-four arches",
"eighteen months", "forty-eight hours", "a dozen performers", "two hundred seats".

The evidence index reads them beside the digits (a report's "24 arches" restates
"twenty-four arches"). A word number is a count: it has no unit and no scale of its
own beyond its own multiplier ("two hundred", "three million").

Only numbers above ten are read (see ``_SMALL``). One pass of a pattern without
nested quantifiers.
"""

from __future__ import annotations

import re
from decimal import Decimal

# The one table of number words (counts, instructions and the evidence index read it).
ONES = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
TEENS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
# "one" to "ninety": the words a count of one word or a hyphened pair is made of.
WORD_VALUES = {**ONES, **TEENS, **TENS}
_UNITS = {"zero": 0, **ONES, **TEENS, "dozen": 12, "fortnight": 14}
_TENS = TENS
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ONES = "|".join(name for name in _UNITS if _UNITS[name] < 10 and name != "zero")
_WORD_NUMBER = re.compile(
    # Every number word starts with one of these letters: the look-ahead turns most
    # word starts away before the alternatives are tried.
    r"(?i)\b(?=[zotfsend])(?:(" + "|".join(_TENS) + r")(?:[- ](" + _ONES + r"))?"
    r"|(" + "|".join(_UNITS) + r"))"
    r"(?:[ -](" + "|".join(_MULTIPLIERS) + r"))?\b"
)
_ONE = Decimal(1)
# "one" to "ten" are left out: a report's small integer that the evidence does not
# hold is no claim anyway, and as an operand a 1 or a 2 explains far too much by
# chance (13.8 + one = 14.8).
_SMALL = 10


def number_words(text: str, smallest: int = _SMALL) -> list[tuple[int, int, str, Decimal, str]]:
    """(start, end, value as digits, scale 1, no unit) of every number in words above
    ``smallest``."""
    found: list[tuple[int, int, str, Decimal, str]] = []
    for match in _WORD_NUMBER.finditer(text):
        tens, ones, unit, multiplier = match.groups()
        if tens is not None:
            value = _TENS[tens.lower()] + (_UNITS[ones.lower()] if ones else 0)
        else:
            value = _UNITS[unit.lower()]
        if multiplier is not None:
            value *= _MULTIPLIERS[multiplier.lower()]
        if value <= smallest:
            continue
        found.append((match.start(), match.end(), str(value), _ONE, ""))
    return found


def with_number_words(
    text: str, numbers: list[tuple[int, int, str, Decimal, str]]
) -> list[tuple[int, int, str, Decimal, str]]:
    """``numbers`` (read from ``text`` in order) with its numbers in words, in order."""
    words = number_words(text)
    if not words:
        return numbers
    return sorted(numbers + words, key=lambda number: number[0])
