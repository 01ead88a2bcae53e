"""Ranks as claims: "finished third", "placed 4th", "took sixth place" (issue 26).

An ordinal is no amount: the numeric check leaves "the third time" and "the 21st
festival" alone, and so does this check. An ordinal is a rank when its words say so:
after a verb of ranking within two words ("finished", "placed", "ranked", "came in"),
or before "place" or "position" ("sixth place", "4th-place"); never after an article
("finished a second ahead", "the first place to visit"). In the evidence the same, or
under a record key that names a rank (``"place": "5th"``, ``"rank": 4``).

A report's rank is compared with every ordinal the evidence states, in words or digits
("fourth" is "4th"). When the evidence states a rank and none of its ordinals is the
report's, the rank is ``unsupported_rank`` (``claims_supported``, major) naming the
evidence's ranks. Never fixed: which rank was meant is not said. Evidence without a
rank cannot judge one.

One pass of a pattern without nested quantifiers over each text; each ordinal's words
are read from a bounded window beside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from validation.engine.checks._spans import span_finding
from validation.engine.checks.numeric import TENS
from validation.engine.types import EvidenceItem, Finding

_FIRST = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
}
_TEENS = {
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
}
_TENS = TENS  # "twenty-first": the tens of the one table of number words
_TENTHS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50}
# The lookaheads name the letters an ordinal's word starts with and the digit a written
# ordinal starts with: they change no match, but let the scan pass over most positions at
# once (a 200 KB report's scan takes less than half the time).
_ORDINAL = re.compile(
    r"(?i)\b(?=[tfsen])(?:(" + "|".join(_TENS) + r")[- ](" + "|".join(_FIRST) + r")"
    r"|(" + "|".join([*_FIRST, *_TEENS, *_TENTHS]) + r"))\b"
    r"|(?<![\d.,])(?=[0-9])(\d{1,3})(?:st|nd|rd|th)\b"
)
_WORD = re.compile(r"[A-Za-z]+")
_RANK_VERBS = frozenset(
    {"finished", "finish", "finishes", "placed", "places", "ranked", "ranks", "rank", "came"}
)
_RANK_AFTER = ("place", "-place", "position", "-position")
_RANK_KEYS = frozenset({"place", "placed", "rank", "ranked", "ranking", "position", "finish"})
_KEYED = re.compile(r'"(?:place|rank|ranking|position|finish)": (\d{1,3})\b')
_BEFORE = 30  # characters read before an ordinal for its verb
_LISTED = 6


def _value(match: re.Match[str]) -> int:
    if match.group(4):
        return int(match.group(4))
    if match.group(1):
        return _TENS[match.group(1).lower()] + _FIRST[match.group(2).lower()]
    word = match.group(3).lower()
    return _FIRST.get(word) or _TEENS.get(word) or _TENTHS[word]


def _is_rank(text: str, match: re.Match[str], keys: frozenset[str]) -> bool:
    """The ordinal's words say it is a rank (module docstring)."""
    before = _WORD.findall(text[max(0, match.start() - _BEFORE) : match.start()])
    last = [word.lower() for word in before[-2:]]
    if last and last[-1] in ("the", "a", "an"):
        return False  # "finished a second ahead", "the first place to visit"
    if last and last[-1] in keys:
        return True
    if _RANK_VERBS.intersection(last):
        return True  # "finished third", "came in 5th"
    after = text[match.end() : match.end() + 12].lower().lstrip(" ")
    return after.startswith(_RANK_AFTER)


def _ranks(text: str, keys: frozenset[str]) -> tuple[set[int], set[int], list[re.Match[str]]]:
    """Every ordinal's value, the values given as ranks, and the rank matches."""
    every: set[int] = set()
    ranks: set[int] = set()
    matches: list[re.Match[str]] = []
    for match in _ORDINAL.finditer(text):
        value = _value(match)
        every.add(value)
        if _is_rank(text, match, keys):
            ranks.add(value)
            matches.append(match)
    return every, ranks, matches


def check_ranks(body: str, evidence: Sequence[EvidenceItem]) -> list[Finding]:
    """Findings for the report's ranks the evidence does not give (module docstring)."""
    if not evidence:
        return []
    _, _, claimed = _ranks(body, frozenset())
    if not claimed:
        return []
    stated: set[int] = set()
    ranks: set[int] = set()
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        every, given, _ = _ranks(text, _RANK_KEYS)
        keyed = {int(found.group(1)) for found in _KEYED.finditer(text)}
        stated |= every | keyed
        ranks |= given | keyed
    if not ranks:
        return []
    listed = ", ".join(_nth(value) for value in sorted(ranks)[:_LISTED])
    findings: list[Finding] = []
    for match in claimed:
        if _value(match) in stated:
            continue
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_rank",
                f'the rank "{match.group()}" is not one the evidence gives (it gives {listed})',
                match.start(),
                match.end(),
                match.group(),
            )
        )
    return findings


def _nth(value: int) -> str:
    suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
    return f"{value}{suffix}"
