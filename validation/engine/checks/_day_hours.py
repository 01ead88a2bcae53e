"""The hours of each weekday: a time said of a day is compared with that day's hours.

In the evidence, a record's keys that name weekdays give each day its hours
(``"Sunday": "9:0-21:0"``, ``"Mon-Thu": "6:00-23:00"``, ``"Sat-Sun": ...``). In a
report, a time belongs to the weekdays named between it and the time before it
("Friday 10 am", "Monday-Thursday 10 am", "Monday, Tuesday, and Thursday 8 am"); the
end of a range ("9 am to 10 pm") belongs to the days of its start. A time named
nowhere but in other days' hours is said of the wrong day.

Linear: one walk of each record, one pass over the report's times and the words
between them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from validation.engine.checks._clock import DAYS, ClockTime, evidence_minutes

# Short names, read only when capitalised ("Sat", not the verb "sat").
_SHORT = {day[:3]: day for day in DAYS} | {"tues": "tuesday", "thur": "thursday"}
_SHORT["thurs"] = "thursday"
_GROUPS = {
    "weekday": DAYS[:5],
    "weekdays": DAYS[:5],
    "weekend": DAYS[5:],
    "weekends": DAYS[5:],
}
_DAY_WORD = re.compile(r"[A-Za-z]+|[-\u2013]|\b(?:to|through|thru)\b")
_RANGE = frozenset({"-", "\u2013", "to", "through", "thru"})
_CONNECTOR = re.compile(r"(?i)[ ]?(?:-|\u2013|\u2014|to|until|till)[ ]?")
_GAP = 60  # characters between a time and the day it is said of, at most
_STOPS = ".;!?\n"


def _day(original: str) -> str | None:
    word = original.lower()
    if word in DAYS:
        return word
    if word.endswith("s") and word[:-1] in DAYS:
        return word[:-1]
    return _SHORT.get(word.rstrip(".")) if original[:1].isupper() else None


def named_days(text: str) -> tuple[str, ...]:
    """The weekdays ``text`` names, a range ("Mon-Thu", "Tuesday to Sunday") in full."""
    found: list[str] = []
    words = [match.group() for match in _DAY_WORD.finditer(text)]
    for index, word in enumerate(words):
        group = _GROUPS.get(word.lower())
        if group is not None:
            found.extend(group)
            continue
        day = _day(word)
        if day is None:
            continue
        if index >= 2 and words[index - 1].lower() in _RANGE and found:
            start = DAYS.index(found[-1])
            stop = DAYS.index(day)
            span = range(start + 1, stop + 1) if start < stop else range(0)
            found.extend(DAYS[i] for i in span)
        if day not in found:
            found.append(day)
    return tuple(found)


def day_hours(evidence: Sequence[Any]) -> tuple[dict[str, set[int]], set[int]]:
    """Weekday -> the times of day the evidence's records give as its hours (keys that
    name weekdays); and the times given under any other key."""
    hours: dict[str, set[int]] = {}
    elsewhere: set[int] = set()
    for content in evidence:
        if isinstance(content, str):
            elsewhere |= evidence_minutes(content)
            continue
        stack: list[tuple[str, Any]] = [("", content)]
        while stack:
            key, node = stack.pop()
            if isinstance(node, dict):
                stack.extend((str(k), v) for k, v in node.items())
            elif isinstance(node, list):
                stack.extend((key, child) for child in node)
            elif isinstance(node, str):
                minutes = evidence_minutes(node)
                days = named_days(key) if minutes else ()
                if days and len(key) <= 30:
                    for day in days:
                        hours.setdefault(day, set()).update(minutes)
                else:
                    elsewhere |= minutes
    return hours, elsewhere


def days_of_times(body: str, times: Sequence[ClockTime]) -> list[tuple[str, ...]]:
    """The weekdays each time of ``times`` (in order) is said of; empty when none."""
    found: list[tuple[str, ...]] = []
    previous_end = 0
    previous: tuple[str, ...] = ()
    for time in times:
        gap = body[max(previous_end, time.start - _GAP) : time.start]
        days: tuple[str, ...] = ()
        if previous and previous_end and _CONNECTOR.fullmatch(body[previous_end : time.start]):
            days = previous  # the end of a range: the days of its start
        else:
            cut = max(gap.rfind(mark) for mark in _STOPS)
            days = named_days(gap[cut + 1 :])  # "closed Mondays. Sunday 9 am": Sunday
        found.append(days)
        previous, previous_end = days, time.end
    return found
