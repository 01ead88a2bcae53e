"""Clock times as claims: "opens at 11 am", "closes at 9:30 pm", "noon to 8 pm".

A time the report states is compared, as a time of day, with every time the evidence
states in any notation (``_clock``): "9 pm" is the "21:0" of a record's opening hours
and the "9 p.m." of a passage. A time the evidence does not state is an
``unsupported_time`` finding of ``claims_supported`` (major) that names the times the
evidence does give. A time in a sentence that names a weekday the evidence gives as
closed (``"Sunday": "closed"``, "closed on Sundays") is the same finding, unless the
sentence itself says the day is closed or excepted ("closed Sundays", "except Sunday").
A time said of a weekday ("Sunday 9 am to 10 pm") that the evidence gives only as
another weekday's hours (``_day_hours``) is the same finding, and so is a finishing
time ("2:19:24") the evidence gives in no way (``_splits``).
Evidence that states no time at all cannot judge one: nothing is
said then, and the numbers of the time are left to the numeric check as before.

The numbers inside a judged time are not amounts: the pipeline drops them from the
numeric check (as it does a reference's), so the "9" of "9 pm" neither passes by
meeting some other 9 nor is an orphan.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from validation.engine.checks._clock import (
    DAY,
    ClockTime,
    closed_days,
    day_name,
    evidence_minutes,
)
from validation.engine.checks._day_hours import day_hours, days_of_times
from validation.engine.checks._spans import span_finding
from validation.engine.checks._splits import check_splits
from validation.engine.checks.reading import ReportReading
from validation.engine.types import EvidenceItem, Finding

_LISTED = 8  # evidence times named in a finding
_REACH = 300  # characters looked at either side of a time for its sentence
_WORD = re.compile(r"[A-Za-z]+")
_NOT_OPEN = frozenset({"closed", "except", "excluding", "not", "shut", "but"})


def _sentence(body: str, start: int, end: int) -> str:
    """The sentence around ``[start, end)``, within ``_REACH`` characters: "a.m. on"
    is no sentence end, ". On" is."""
    first = start
    while first > max(0, start - _REACH):
        char = body[first - 1]
        if char in "\n;!?" or (char == "." and body[first : first + 2].strip()[:1].isupper()):
            break
        first -= 1
    last = end
    while last < min(len(body), end + _REACH):
        char = body[last]
        if char in "\n;!?" or (char == "." and body[last + 1 : last + 3].strip()[:1].isupper()):
            break
        last += 1
    return body[first:last]


def _closed_day_named(sentence: str, closed: set[str]) -> str | None:
    """A closed weekday the sentence gives a time for, or None when it names none or
    says it is closed."""
    words = [word.lower() for word in _WORD.findall(sentence)]
    if _NOT_OPEN.intersection(words):
        return None
    return next((day for day in map(day_name, words) if day in closed), None)


def _wrong_day(
    time: ClockTime, days: tuple[str, ...], hours: dict[str, set[int]], elsewhere: set[int]
) -> str | None:
    """A weekday the time is said of whose hours (``_day_hours``) do not hold it, when
    the evidence gives the time nowhere but in other days' hours."""
    if any(value in elsewhere for value in time.minutes):
        return None
    return next(
        (day for day in days if day in hours and not hours[day].intersection(time.minutes)),
        None,
    )


def _clock(minutes: int) -> str:
    hour, minute = divmod(minutes % DAY, 60)
    return f"{hour:02d}:{minute:02d}"


def check_times(
    reading: ReportReading, evidence: Sequence[EvidenceItem]
) -> tuple[list[Finding], list[tuple[int, int]]]:
    """Findings for the report's times the evidence does not state, and the spans of
    every time judged (module docstring)."""
    splits = check_splits(reading.body, evidence)  # "2:19:24", a finishing time
    stated = reading.times
    if not stated or not evidence:
        return splits, []
    known: set[int] = set()
    closed: set[str] = set()
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        known |= evidence_minutes(text)
        closed |= closed_days(text)
    if not known:
        return splits, []
    body = reading.body
    findings: list[Finding] = splits
    listed = ", ".join(_clock(value) for value in sorted(known)[:_LISTED])
    more = f" and {len(known) - _LISTED} more" if len(known) > _LISTED else ""
    hours, elsewhere = day_hours([item.content for item in evidence])
    days = days_of_times(body, stated) if hours else [()] * len(stated)
    for index, time in enumerate(stated):
        shut = _closed_day_named(_sentence(body, time.start, time.end), closed) if closed else None
        if shut is not None:
            findings.append(
                span_finding(
                    "claims_supported",
                    "unsupported_time",
                    f'the time "{time.text(body)}" is given for {shut.title()}, a day '
                    "the evidence gives as closed",
                    time.start,
                    time.end,
                    time.text(body),
                )
            )
            continue
        if any(value in known for value in time.minutes):
            wrong = _wrong_day(time, days[index], hours, elsewhere)
            if wrong is not None:
                findings.append(
                    span_finding(
                        "claims_supported",
                        "unsupported_time",
                        f'the time "{time.text(body)}" is given for {wrong.title()}, '
                        f"whose hours in the evidence are "
                        f"{', '.join(_clock(v) for v in sorted(hours[wrong]))}",
                        time.start,
                        time.end,
                        time.text(body),
                    )
                )
            continue
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_time",
                f'the time "{time.text(body)}" ({_clock(time.minutes[0])}) is not a time '
                f"the evidence gives (it gives {listed}{more})",
                time.start,
                time.end,
                time.text(body),
            )
        )
    return findings, [(time.start, time.end) for time in stated]
