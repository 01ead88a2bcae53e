"""Durations restated in another unit: "a minute and a half" is 90 seconds, "two decades"
20 years, "half an hour" 30 minutes.

A length of time the evidence states (an amount, in digits or words, and a unit of time)
is also read in the units next to its own -- one step down and one step up the ladder
second, minute, hour, day, week and, apart, month, year, decade -- when that gives a
whole number or a half. A fraction written in words ("a minute and a half") is read in
its own unit too (1.5), since no digits say it. Nothing else: each duration adds at most
three values, so a report's number restates a duration only when the units agree.

One pass of a pattern without nested quantifiers.
"""

from __future__ import annotations

import re
from decimal import Decimal

from validation.engine.checks.numeric._number_words import ONES, TEENS, TENS

# Two ladders of units, each unit in the smallest of its ladder.
_LADDERS = (
    {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800},
    {"month": 1, "year": 12, "decade": 120},
)
_UNITS = {unit: (ladder, size) for ladder in _LADDERS for unit, size in ladder.items()}
_WORDS: dict[str, int] = {"a": 1, "an": 1, "one": 1, **ONES, **TEENS, **TENS}
_AMOUNT = r"(\d{1,5}(?:\.\d{1,2})?|" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")"
_HALF = r"(?:[ -]and[ -]a[ -]half)"
_UNIT = r"(" + "|".join(_UNITS) + r")s?"
# (The lookahead only skips, fast, the places no amount's first character stands.)
_FIRST = "".join(sorted({word[0] for word in _WORDS} | {"h"}))
_DURATION = re.compile(
    r"(?i)(?<![\w.,])(?=[\d"
    + _FIRST
    + r"])(?:"
    + _AMOUNT
    + r"("
    + _HALF
    + r")?[ -]"
    + _UNIT
    + r"("
    + _HALF
    + r")?|half[ -](?:an?[ -])?"
    + _UNIT
    + r")\b"
)
_HALF_VALUE = Decimal("0.5")


def _amount(written: str) -> Decimal:
    word = written.lower()
    return Decimal(_WORDS[word]) if word in _WORDS else Decimal(written)


def _whole_or_half(value: Decimal) -> bool:
    return value > 0 and (value * 2) == (value * 2).to_integral_value()


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def durations_in_units(text: str) -> list[tuple[int, int, Decimal, str]]:
    """(start, end, value, unit) of each duration of ``text`` read in its neighbouring
    units (module docstring), in order."""
    found: list[tuple[int, int, Decimal, str]] = []
    for match in _DURATION.finditer(text):
        amount, half_before, unit, half_after, half_unit = match.groups()
        if half_unit is not None:
            value, unit = _HALF_VALUE, half_unit
        else:
            value = _amount(amount)
            if half_before or half_after:
                value += _HALF_VALUE
        unit = unit.lower()
        ladder, size = _UNITS[unit]
        names = sorted(ladder, key=ladder.__getitem__)
        at = names.index(unit)
        start, end = match.span()
        if value != value.to_integral_value():
            found.append((start, end, value, unit))
        for other in names[max(0, at - 1) : at + 2]:
            if other != unit:
                converted = value * size / ladder[other]
                if _whole_or_half(converted):
                    found.append((start, end, converted, other))
    return found


def durations(text: str) -> list[tuple[int, int, str, Decimal, str]]:
    """(start, end, value as digits, scale 1, no unit) of each duration of ``text`` read
    in its neighbouring units, in order."""
    return [
        (start, end, _plain(value), Decimal(1), "")
        for start, end, value, _ in durations_in_units(text)
    ]


def with_durations(
    text: str, numbers: list[tuple[int, int, str, Decimal, str]]
) -> list[tuple[int, int, str, Decimal, str]]:
    """``numbers`` (read from ``text`` in order) with its durations in other units."""
    extra = durations(text)
    if not extra:
        return numbers
    return sorted(numbers + extra, key=lambda number: number[0])
