"""Shares written as fractions in words (issue 26, point 1): "two-thirds of residents",
"three quarters of them", "a third of its area".

A fraction in words followed by "of" states a share, a claim like "67%". It is read as
its value (two-thirds: 2/3) and compared with the evidence's shares: its fractions in
words and its percentages of something (a percentage within ``_SLACK`` of the fraction
states it: "64% of residents" is "nearly two-thirds"; "fell by 75%" is a change, no
share). The claim is ``number_elsewhere`` (``claims_supported``) when the evidence
states a share said with the claim's own words (``_SAME_TOPIC`` words of its clause in
common: "live in or around the capital") and none of those is the claim's fraction:
"three-quarters of them live around the capital" beside "nearly two-thirds of residents
live around the capital". Major when the claim's words point to one other share, minor
when to several; never fixed (a share in words is rewritten by a person).

Not claims: a fraction naming a period or a part of one ("the second half of", "the
first quarter of": an ordinal before it, or no number word at all: "half of" is left
alone), and one no evidence share is said with the claim's words about.

Linear: one pass of a pattern without nested quantifiers over the report and each
evidence text; each claim compares its words with at most ``_LOOK`` shares per word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from validation.engine.checks._role_values import _words
from validation.engine.types import EvidenceExcerpt, EvidenceItem, Finding

_SAME_TOPIC = 2
_SLACK = Fraction(5, 100)  # a percentage this near a fraction states it
_WINDOW = 120  # characters of a share's clause read on each side
_STOPS = ".;!?\n|"
_MAX_SHARES = 2000  # shares of the evidence compared, at most
_LOOK = 64  # shares sharing one word that a claim compares, at most
_MAX_FINDINGS = 50

_NUMERATORS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "nine": 9}
_DENOMINATORS = {
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "tenth": 10,
    "tenths": 10,
}
_FRACTION = re.compile(
    r"(?i)(?<![\w-])(?=[aotfsn])(" + "|".join(_NUMERATORS) + r")[- ]("
    r"thirds?|quarters?|fourths?|fifths?|tenths?)(?=[*_]{0,2} of\b)"
)
_ORDINAL_BEFORE = re.compile(r"(?i)\b(?:first|second|third|fourth|last|final|the|each)[ ]+\Z")
# A share: a percentage of something ("64% of residents"); "fell by 75%" is a change.
_PERCENT = re.compile(r"(?<![\w.,])(\d{1,2}(?:\.\d+)?)[ ]?(?:%|percent|per cent)(?=[*_]{0,2} of\b)")


@dataclass(frozen=True)
class _Share:
    value: Fraction
    words: frozenset[str]
    source_ref: str
    excerpt: str


def _clause(text: str, start: int, end: int) -> frozenset[str]:
    left = text[max(0, start - _WINDOW) : start]
    left = left[max(left.rfind(mark) for mark in _STOPS) + 1 :]
    right = text[end : end + _WINDOW]
    cuts = [found for found in (right.find(mark) for mark in _STOPS) if found >= 0]
    right = right[: min(cuts, default=len(right))]
    return _words(left + " " + right)


def _fractions(text: str) -> list[tuple[int, int, Fraction]]:
    found = []
    for match in _FRACTION.finditer(text):
        if _ORDINAL_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue  # "the first quarter of", "each third of": a part of a period
        numerator = _NUMERATORS[match.group(1).lower()]
        denominator = _DENOMINATORS[match.group(2).lower()]
        if numerator < denominator:
            found.append((match.start(), match.end(), Fraction(numerator, denominator)))
    return found


def _shares(evidence: Sequence[EvidenceItem]) -> list[_Share]:
    shares: list[_Share] = []
    for item in evidence:
        for text in _texts(item.content):
            places = _fractions(text)
            for match in _PERCENT.finditer(text):
                places.append((match.start(), match.end(), Fraction(match.group(1)) / 100))
            for start, end, value in places:
                excerpt = text[max(0, start - 80) : end + 80].strip()
                words = _clause(text, start, end)
                shares.append(_Share(value, words, item.source_ref, excerpt))
                if len(shares) > _MAX_SHARES:
                    return []  # a wall of percentages: too little said about each
    return shares


def _texts(content: object) -> Iterator[str]:
    """The texts of an evidence item: itself, or each string of a record with its key
    ("population_note: 64% of residents ..."), so that one string's words are not
    another's."""
    if isinstance(content, str):
        yield content
        return
    stack: list[tuple[object, str]] = [(content, "")]
    while stack:
        node, key = stack.pop()
        if isinstance(node, dict):
            stack.extend((child, str(name).replace("_", " ")) for name, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, key) for child in node)
        elif isinstance(node, str):
            yield f"{key}: {node}"


def _judge(
    value: Fraction, words: frozenset[str], by_word: dict[str, list[_Share]]
) -> tuple[list[Fraction], _Share] | None:
    """The other shares the claim's words describe, and the one to show; None when
    nothing is said with its words or its own share is."""
    seen = {id(share): share for word in words for share in by_word.get(word, [])[:_LOOK]}
    said = [share for share in seen.values() if len(words & share.words) >= _SAME_TOPIC]
    if not said or any(abs(share.value - value) <= _SLACK for share in said):
        return None
    shown = max(said, key=lambda share: len(words & share.words))
    return sorted({share.value for share in said}), shown


def check_fractions(body: str, evidence: Sequence[EvidenceItem]) -> list[Finding]:
    """Findings for the report's fractions in words (module docstring)."""
    claims = _fractions(body)
    if not claims or not evidence:
        return []
    by_word: dict[str, list[_Share]] = {}
    kept: set[tuple[Fraction, frozenset[str]]] = set()
    for share in _shares(evidence):
        if (share.value, share.words) in kept:
            continue  # the same share said again in the same words
        kept.add((share.value, share.words))
        for word in share.words:
            by_word.setdefault(word, []).append(share)
    findings: list[Finding] = []
    read: dict[tuple[Fraction, frozenset[str]], tuple[list[Fraction], _Share] | None] = {}
    for start, end, value in claims:
        if len(findings) >= _MAX_FINDINGS:
            break  # a wall of shares: the first ones tell
        words = _clause(body, start, end)
        if (value, words) not in read:  # a wall repeats its claims
            read[value, words] = _judge(value, words, by_word)
        judged = read[value, words]
        if judged is None:
            continue
        others, shown = judged
        written = body[start:end]
        listed = ", ".join(f"{float(other):.0%}" for other in others[:4])
        findings.append(
            Finding(
                check="claims_supported",
                kind="number_elsewhere",
                severity="major" if len(others) == 1 else "minor",
                message=f'"{written}" ({float(value):.0%}): the evidence gives the share its '
                f"words describe as {listed}",
                start=start,
                end=end,
                text=written,
                evidence=[
                    EvidenceExcerpt(source_ref=shown.source_ref, excerpt=shown.excerpt[:2000])
                ],
            )
        )
    return findings
