"""Clock times as people write them, read as minutes after midnight.

In a report, a time is what a reader takes for one without doubt: an hour with ``am``
or ``pm`` ("9 am", "11:30 p.m."), "noon" and "midnight", and the first end of a range
whose second end carries the ``am``/``pm`` ("10 to 11:30 pm", "12:30-4 pm": the first
end takes the same half of the day unless that would put it after the second). A bare
"2:19:42" or "1:12 ahead" is a duration, not a time, and is left alone.

In the evidence, the usual notations of a record are read too: 24-hour ``H:MM`` with
one or two digits of minutes (the "10:0-22:0" of opening hours). Without ``am``/``pm``
an evidence time below 12:00 may be either half of the day, so it stands for both:
the evidence is read generously, a report strictly.

One pass of a pattern without nested quantifiers over each text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DAY = 24 * 60

_MERIDIEM = r"(?:([ap])\.?[ ]?m\b\.?)"
_TIME = re.compile(
    r"(?i)(?<![\d:.,$])(\d{1,2})(?::(\d{1,2}))?(?::\d\d)?"
    r"(?:[ ]?(?:-|\u2013|\u2014|to|until|till)[ ]?(\d{1,2})(?::(\d{1,2}))?)?"
    r"[ ]?" + _MERIDIEM + r"?(?![\d:])|\b(noon|midday|midnight)\b"
)


@dataclass(frozen=True)
class ClockTime:
    """A time at ``[start, end)`` of its text: the minutes after midnight it may be."""

    start: int
    end: int
    minutes: tuple[int, ...]

    def text(self, source: str) -> str:
        return source[self.start : self.end]


def _minutes(hour: int, minute: int, meridiem: str | None) -> int | None:
    if minute >= 60 or hour > 24 or (meridiem and not 1 <= hour <= 12):
        return None
    if meridiem == "p" and hour != 12:
        hour += 12
    elif meridiem == "a" and hour == 12:
        hour = 0
    return (hour * 60 + minute) % DAY


def _word(word: str) -> int:
    return 0 if word.lower() == "midnight" else 12 * 60


def report_times(text: str) -> list[ClockTime]:
    """The clock times a report states (module docstring), in order."""
    found: list[ClockTime] = []
    for match in _TIME.finditer(text):
        if match.group(6):
            found.append(ClockTime(match.start(), match.end(), (_word(match.group(6)),)))
            continue
        meridiem = (match.group(5) or "").lower() or None
        if meridiem is None:
            continue  # no am/pm: a count, a score or a duration, not a time
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if match.group(3) is None:
            value = _minutes(hour, minute, meridiem)
            if value is not None:
                found.append(ClockTime(match.start(), match.end(), (value,)))
            continue
        last = _minutes(int(match.group(3)), int(match.group(4) or 0), meridiem)
        if last is None:
            continue
        first = _minutes(hour, minute, meridiem)
        if first is not None and first > last and meridiem == "p":
            first = _minutes(hour, minute, "a")
        if first is None:
            continue
        split = match.start(3) - 1
        while split > match.start() and not text[split - 1].isdigit():
            split -= 1
        found.append(ClockTime(match.start(), split, (first,)))
        found.append(ClockTime(match.start(3), match.end(), (last,)))
    return found


def evidence_minutes(text: str) -> set[int]:
    """Every time ``text`` may state, in any usual notation (module docstring). A text
    that writes an hour past 12 without ``am``/``pm`` keeps a 24-hour clock: its
    "10:0" is 10:00 only."""
    found: set[int] = set()
    bare: list[tuple[int, int]] = []  # times without am/pm
    for match in _TIME.finditer(text):
        if match.group(6):
            found.add(_word(match.group(6)))
            continue
        meridiem = (match.group(5) or "").lower() or None
        ends = [(match.group(1), match.group(2), match.group(3) is not None)]
        if match.group(3) is not None:
            ends.append((match.group(3), match.group(4), False))
        for hour_text, minute_text, first_of_range in ends:
            hour, minute = int(hour_text), int(minute_text or 0)
            if meridiem is None:
                if minute_text is not None:  # "10" alone is no time
                    bare.append((hour, minute))
                continue
            # "10 to 4 pm": the first end may be in either half of the day.
            for half in ("a", "p") if first_of_range else (meridiem,):
                value = _minutes(hour, minute, half)
                if value is not None:
                    found.add(value)
    twenty_four = any(hour > 12 for hour, _ in bare)
    for hour, minute in bare:
        value = _minutes(hour, minute, None)
        if value is None:
            continue
        found.add(value)
        if not twenty_four and hour < 12:
            found.add(value + 12 * 60)
    return found


DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")
_LABEL_MARKS = frozenset({'"', "'", ":", "|", "=", "-", "is", "are"})  # "Sunday": closed
_LIST_MARKS = frozenset({",", "and", "or", "&"})  # Saturdays and Sundays
_LEAD_MARKS = frozenset({"on", "every", "all"})  # closed on Sundays


def day_name(word: str) -> str | None:
    """The weekday ``word`` names ("Sundays" -> "sunday"), or None."""
    word = word.lower()
    if word.endswith("s") and word[:-1] in DAYS:
        return word[:-1]
    return word if word in DAYS else None


def closed_days(text: str) -> set[str]:
    """The weekdays ``text`` gives as closed: a day labelled "closed" (``"Sunday":
    "closed"``, ``| Sunday | closed |``, "Sundays: closed") or named right after it
    ("closed on Sundays and Mondays"). One pass over the words, a bounded look at
    each "closed"'s neighbours."""
    words = [match.group().lower() for match in _TOKEN.finditer(text)]
    found: set[str] = set()
    for index, word in enumerate(words):
        if word != "closed":
            continue
        after = index + 1
        while after < len(words) and after - index <= 12:
            day = day_name(words[after])
            if day is not None:
                found.add(day)
            elif words[after] not in _LIST_MARKS and words[after] not in _LEAD_MARKS:
                break
            after += 1
        before = index - 1
        while before >= 0 and index - before <= 4 and words[before] in _LABEL_MARKS:
            before -= 1
        if before < 0 or day_name(words[before]) is None:
            continue  # "Monday-Saturday, closed Sunday": a comma is no label
        while before >= 0 and index - before <= 12:
            day = day_name(words[before])
            if day is not None:
                found.add(day)
            elif words[before] not in _LIST_MARKS:
                break
            before -= 1
    return found
