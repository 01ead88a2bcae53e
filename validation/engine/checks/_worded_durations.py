"""Lengths of time written in words: "another four weeks", "seven straight days".

A report's number word followed by a unit of time (one adjective may stand between)
states a duration, compared as a length of time with the durations the evidence states
(digits or words, "3 more weeks", "five consecutive days", "a fortnight"), each read in
the smallest unit of its ladder (seconds for second..week, months for month..decade).
It is an ``unsupported_number_word`` (major, never fixed) when some evidence duration
of its ladder is said of the same thing (its clause shares ``_SAME_TOPIC`` words with
the report's clause) and the report's length is none of the evidence's, nor the sum or
difference of two of them ("two weeks in the nest, then three more": five weeks).

Not claims: a period named as a span rather than a length ("three-year", "the past two
years", "within one year", "every two weeks"), and "one".

One pass of a pattern without nested quantifiers over the report and each evidence
text; the sums are over the durations said of the claim's topic, at most ``_SUMMED``;
at most ``_MAX_CLAIMS`` lengths are each compared with at most ``_MAX_STATED``
evidence durations (more is a wall, and nothing is said).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks._query_words import terms
from validation.engine.checks._spans import span_finding
from validation.engine.checks.numeric import ONES, TEENS, TENS, WORD_VALUES
from validation.engine.types import EvidenceItem, Finding

_SIZES = {
    "second": (0, 1),
    "minute": (0, 60),
    "hour": (0, 3600),
    "day": (0, 86400),
    "week": (0, 604800),
    "fortnight": (0, 1209600),
    "month": (1, 1),
    "year": (1, 12),
    "decade": (1, 120),
}
_WORDED = r"(?:(?:" + "|".join(TENS) + r")(?:-(?:" + "|".join(ONES) + r"))?|"
_WORDED += "|".join([*ONES, *TEENS]) + r")"
_UNIT = r"(" + "|".join(_SIZES) + r")s?"
# A length: a number, one optional adjective ("straight", "more"), a unit of time.
# (The lookaheads only skip, fast, the places no number word's first letter stands.)
_FIRST = "".join(sorted({word[0] for word in (*ONES, *TEENS, *TENS)}))
_REPORT = re.compile(
    r"(?i)(?<![\w-])(?:([a-z]+)[ ]+)?((?=["
    + _FIRST
    + r"])"
    + _WORDED
    + r")[ ]+(?:([a-z]+)[ ]+)??"
    + _UNIT
    + r"\b(?!-)"
)
_EVIDENCE = re.compile(
    r"(?i)(?<![\w.,-])(?=[\da"
    + _FIRST
    + r"])(\d{1,4}|an?|"
    + _WORDED
    + r")[ -]+(?:([a-z]+)[ ]+)??"
    + _UNIT
    + r"\b"
)
# A word before the number that makes it a span, not a length: "the past two years".
_SPAN = frozenset(
    [
        *("the", "past", "last", "next", "first", "previous", "within"),
        *("per", "every", "each", "these", "those", "recent", "coming"),
    ]
)
_SAME_TOPIC = 2
_REACH = 100  # characters of a duration's clause on each side
_STOPS = ".;!?\n|"
_SUMMED = 12
_MAX_STATED = 2000  # evidence durations compared, at most
_MAX_CLAIMS = 200  # report lengths judged, at most
_NUMBER_TERMS = frozenset(terms(" ".join([*WORD_VALUES, *_SIZES, "dozen"])))


def _amount(word: str) -> int:
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in ("a", "an"):
        return 1
    if "-" in word:
        tens, ones = word.split("-")
        return WORD_VALUES[tens] + WORD_VALUES[ones]
    return WORD_VALUES[word]


def _clause(text: str, start: int, end: int) -> frozenset[str]:
    left = text[max(0, start - _REACH) : start]
    cut = max(left.rfind(mark) for mark in _STOPS)
    left = left[cut + 1 :]
    right = text[end : end + _REACH]
    cuts = [found for found in (right.find(mark) for mark in _STOPS) if found >= 0]
    right = right[: min(cuts)] if cuts else right
    found = terms(left + " " + right)
    return frozenset(term for term in found if not term[:1].isdigit()) - _NUMBER_TERMS


def _evidence_durations(evidence: Sequence[EvidenceItem]) -> list[tuple[int, int, frozenset[str]]]:
    """(ladder, length in its smallest unit, words of its clause) of each duration."""
    found: list[tuple[int, int, frozenset[str]]] = []
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        for match in _EVIDENCE.finditer(text):
            ladder, size = _SIZES[match.group(3).lower()]
            length = _amount(match.group(1)) * size
            found.append((ladder, length, _clause(text, match.start(), match.end())))
    return found


def check_worded_durations(body: str, evidence: Sequence[EvidenceItem]) -> list[Finding]:
    """Findings for the report's lengths of time in words (module docstring)."""
    claims = [
        match
        for match in _REPORT.finditer(body)
        if match.group(2).lower() != "one" and (match.group(1) or "").lower() not in _SPAN
    ]
    if not claims or not evidence:
        return []
    stated = _evidence_durations(evidence)
    if len(stated) > _MAX_STATED:
        return []  # a wall of durations: too little said about each to compare
    findings: list[Finding] = []
    for match in claims[:_MAX_CLAIMS]:
        unit = match.group(4).lower()
        ladder, size = _SIZES[unit]
        length = _amount(match.group(2)) * size
        lengths = {value for kind, value, _ in stated if kind == ladder}
        if not lengths or length in lengths:
            continue
        near = _clause(body, match.start(2), match.end())
        topic = [
            value
            for kind, value, words in stated
            if kind == ladder and len(near & words) >= _SAME_TOPIC
        ][:_SUMMED]
        if not topic:
            continue  # nothing the evidence says of the same thing is a length of time
        if any(
            abs(topic[i] + sign * topic[j]) == length
            for i in range(len(topic))
            for j in range(i + 1, len(topic))
            for sign in (1, -1)
        ):
            continue  # derived: two stated lengths added or taken apart
        start, end = match.span(2)
        said = ", ".join(_written(value, unit, size) for value in sorted(set(topic))[:4])
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_number_word",
                f'"{body[start : match.end()]}": the evidence gives this length of time as {said}',
                start,
                end,
                body[start:end],
            )
        )
    return findings


def _written(value: int, unit: str, size: int) -> str:
    amount = Decimal(value) / Decimal(size)
    shown = format(amount.normalize(), "f")
    return f"{shown} {unit}{'' if amount == 1 else 's'}"
