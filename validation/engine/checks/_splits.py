"""Times on a clock of hours, minutes and seconds: "won in 2:19:24", a finishing time.

A report's ``H:MM:SS`` (seconds may carry a fraction, "1:02:03.4") is a length of time
compared as one: with the evidence's own ``H:MM:SS`` times (or "2 hours, 9 minutes and
14 seconds"), and with each of them moved
by a length the evidence states in seconds or minutes ("broke the record of 2:21:09 by
87 seconds": 2:19:42). A time the evidence gives in none of these ways, when the
evidence gives such times at all, is ``unsupported_time`` (major, never fixed): the
digits of a time are not three numbers that may each stand somewhere.

Two digits a side only with colons, so a ratio ("3:1") or a clock time ("9:30") is not
read; an ``H:MM:SS`` whose minutes or seconds pass 59 is no time. One pass of a
pattern without nested quantifiers over each text; at most ``_MOVES`` moved times.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks._spans import span_finding
from validation.engine.types import EvidenceItem, Finding

_SPLIT = re.compile(r"(?<![\d:.,])(\d{1,2}):([0-5]\d):([0-5]\d)(\.\d{1,3})?(?![\d:]|\.\d)")
# The same time in words: "2 hours, 9 minutes and 14 seconds", "2 hr 9 min 14 sec".
_SPELLED = re.compile(
    r"(?i)(?<![\d.,])(\d{1,2})[ ]?(?:hours?|hrs?|h)\b,?[ ]+(\d{1,2})[ ]?(?:minutes?|mins?|m)\b"
    r",?[ ]+(?:and[ ]+)?(\d{1,2})[ ]?(?:seconds?|secs?|s)\b"
)
_LENGTH = re.compile(r"(?i)(?<![\d.,])(\d{1,4}(?:\.\d{1,2})?)[ -](second|sec|minute|min)s?\b")
_MOVES = 5000
_LISTED = 6


def _seconds(match: re.Match[str]) -> Decimal:
    hours, minutes, seconds, fraction = match.groups()
    whole = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
    return Decimal(whole) + (Decimal(fraction) if fraction else 0)


def _shown(value: Decimal) -> str:
    whole = int(value)
    hours, rest = divmod(whole, 3600)
    minutes, seconds = divmod(rest, 60)
    fraction = value - whole
    tail = format(fraction.normalize(), "f")[1:] if fraction else ""
    return f"{hours}:{minutes:02d}:{seconds:02d}{tail}"


def check_splits(body: str, evidence: Sequence[EvidenceItem]) -> list[Finding]:
    """Findings for the report's ``H:MM:SS`` times (module docstring)."""
    claims = list(_SPLIT.finditer(body))
    if not claims or not evidence:
        return []
    given: set[Decimal] = set()
    lengths: set[Decimal] = set()
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        given.update(_seconds(match) for match in _SPLIT.finditer(text))
        given.update(
            Decimal(int(hours) * 3600 + int(minutes) * 60 + int(seconds))
            for hours, minutes, seconds in _SPELLED.findall(text)
        )
        for match in _LENGTH.finditer(text):
            size = 60 if match.group(2).lower().startswith("min") else 1
            lengths.add(Decimal(match.group(1)) * size)
    if not given:
        return []
    moved = set(given)
    pairs = ((time, length) for time in sorted(given) for length in sorted(lengths))
    for time, length in pairs:
        if len(moved) > _MOVES:
            break
        moved.update((time + length, time - length))
    listed = ", ".join(_shown(value) for value in sorted(given)[:_LISTED])
    findings: list[Finding] = []
    for match in claims:
        if _seconds(match) in moved:
            continue
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_time",
                f'the time "{match.group(0)}" is not one the evidence gives (it gives {listed})',
                match.start(),
                match.end(),
                match.group(0),
            )
        )
    return findings
