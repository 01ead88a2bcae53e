"""The end of a range (issue 26): "4 to 7 eggs" where the evidence says "four to six
eggs". Each end of a range is a claim, but the numeric check matches each alone, and a
wrong end that the evidence states for something else ("7 days") passes there.

A range is two numbers, in digits or words, joined by "-", "to", "through" or "and"
(a short unit may stand between: "20 Hz to 45 kHz"). A report's range whose start the
evidence also starts a range of the same thing with (a noun or unit in common: "eggs",
"Hz") but never ends where the report does is ``range_end_number`` (``claims_supported``,
major), naming the evidence's range; the fix, only when the evidence ends such ranges at
one value and the report writes the end in digits, writes that value.

A score is a pair with a noun between ("three games to one", "1,842 votes to 1,207"):
its two numbers are one claim, in either order. A report's score that shares one number
with an evidence score of the same noun ("lost it 2 games to 3") but is not that score
has its other number flagged the same way (fixed only in digits, to the evidence's other
number).

Linear: one scan of the body and of each evidence text for numbers (a long body only when
the evidence states a range; a text for its scores only when it holds a score's " word to
"); ranges are neighbouring numbers, looked up by their start in a dict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from itertools import pairwise

from validation.engine.checks._query_words import terms
from validation.engine.checks.numeric import number_words, scan_numbers
from validation.engine.types import EvidenceExcerpt, EvidenceItem, Finding, FixProposal

_JOIN = re.compile(
    r"[ ]?(?:[A-Za-z%\u00b0]{1,3}[ ]?)?(?:-|\u2013|\u2014|to|through|and)[ ]?[$\u00a3\u20ac]?"
)
_NOUN = 24  # characters after a range where its noun stands
_STOPS = ".;:,()\n|"
_MAX_NUMBERS = 20_000
_LONG_BODY = 20_000  # characters: a body longer is read after the evidence, when it must be
_DIGITS = re.compile(r"[0-9]+")

_Range = tuple[Decimal, Decimal, frozenset[str], int, int, int]  # start, end, nouns, spans


def _numbers(text: str) -> list[tuple[int, int, str, Decimal, str]]:
    if _many(text):
        return []  # a wall of numbers: read by the numeric check alone
    found = sorted(scan_numbers(text) + number_words(text, smallest=0))
    return found if len(found) <= _MAX_NUMBERS else []


def _many(text: str) -> bool:
    """More runs of digits than ``_MAX_NUMBERS`` (counted without reading them)."""
    return any(count >= _MAX_NUMBERS for count, _ in enumerate(_DIGITS.finditer(text)))


def _decimal(digits: str) -> Decimal | None:
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def _nouns(text: str, gap: str, end: int) -> frozenset[str]:
    after = text[end : end + _NOUN]
    cuts = [found for found in (after.find(mark) for mark in _STOPS) if found >= 0]
    if cuts:
        after = after[: min(cuts)]
    found = [term for term in terms(gap + " " + after) if not term[:1].isdigit()]
    return frozenset(found[:3])


def ranges(text: str) -> list[_Range]:
    """(start, end, nouns, start of the first number, span of the end) of each range."""
    numbers = _numbers(text)
    found: list[_Range] = []
    for first, second in pairwise(numbers):
        gap = text[first[1] : second[0]]
        if not gap or _JOIN.fullmatch(gap) is None:
            continue
        low, high = _decimal(first[2]), _decimal(second[2])
        if low is None or high is None or not low < high:
            continue
        letters = "".join(character for character in gap if character.isalpha())
        unit = gap if letters not in ("to", "and", "through", "") else ""
        found.append((low, high, _nouns(text, unit, second[1]), first[0], second[0], second[1]))
    return found


# A score: two numbers with one noun between them ("3 games to 2").
_SCORE = re.compile(r"[ ]([a-z]{3,})[ ]to[ ]")

_LOOK = 64  # evidence scores of one noun a report score is compared with, at most
_Score = tuple[Decimal, Decimal, str, int, int, int]  # first, second, noun, spans


def scores(text: str) -> list[_Score]:
    """(first, second, noun's stem, start of the first, span of the second) of each
    score. A text with no " word to " anywhere has none: its numbers are not read."""
    if _SCORE.search(text) is None:
        return []
    numbers = _numbers(text)
    found: list[_Score] = []
    for first, second in pairwise(numbers):
        join = _SCORE.fullmatch(text, first[1], second[0])
        if join is None:
            continue
        one, other = _decimal(first[2]), _decimal(second[2])
        noun = next(iter(terms(join.group(1))), "")
        if one is None or other is None or not noun:
            continue
        found.append((one, other, noun, first[0], second[0], second[1]))
    return found


def _texts(evidence: Sequence[EvidenceItem]) -> Iterator[tuple[EvidenceItem, str]]:
    """Each evidence item with its text (a JSON record as its JSON)."""
    for item in evidence:
        content = item.content
        yield item, content if isinstance(content, str) else json.dumps(content)


def _score_findings(
    body: str, evidence: Sequence[EvidenceItem], findings: list[Finding]
) -> list[FixProposal]:
    """The second number of each report score that an evidence score of its noun
    shares one number with but is not (module docstring)."""
    stated = scores(body)
    if not stated:
        return []
    known: dict[str, list[tuple[Decimal, Decimal, str, str]]] = {}
    for item, text in _texts(evidence):
        for one, other, noun, start, _, end in scores(text):
            excerpt = text[max(0, start - 60) : end + 60].strip()
            known.setdefault(noun, []).append((one, other, item.source_ref, excerpt))
    fixes: list[FixProposal] = []
    for one, other, noun, start, end_start, end_end in stated:
        same = known.get(noun, [])[:_LOOK]
        if any(sorted((one, other)) == sorted(entry[:2]) for entry in same):
            continue
        rest = {
            entry[1] if entry[0] == one else entry[0]: entry for entry in same if one in entry[:2]
        }
        if not rest:
            continue
        written = body[end_start:end_end]
        shown = next(iter(rest.values()))
        findings.append(
            Finding(
                check="claims_supported",
                kind="range_end_number",
                severity="major",
                message=(f'the score "{body[start:end_end]}" is not the evidence\'s: "{shown[3]}"'),
                start=end_start,
                end=end_end,
                text=written,
                evidence=[EvidenceExcerpt(source_ref=shown[2], excerpt=shown[3][:2000])],
            )
        )
        digits = str(other)
        if len(rest) == 1 and written == digits:
            fixes.append(
                FixProposal(
                    finding_index=len(findings) - 1,
                    kind="close_but_wrong",
                    find=written,
                    replace=str(next(iter(rest))),
                    offset=end_start,
                    confidence=0.8,
                    verified_with=f'evidence ({shown[2]}): "{shown[3]}"',
                )
            )
    return fixes


def check_ranges(
    body: str, evidence: Sequence[EvidenceItem]
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings (and fixes) for the ends of the report's ranges (module docstring)."""
    if not evidence:
        return [], []
    findings: list[Finding] = []
    fixes = _score_findings(body, evidence, findings)
    # A report's range is compared only with the evidence's ranges. A long body (a wall
    # of numbers against a short record) is read only when the evidence states one.
    body_first = len(body) <= _LONG_BODY
    stated = ranges(body) if body_first else []
    if body_first and not stated:
        return findings, fixes
    known: dict[Decimal, list[tuple[Decimal, frozenset[str], str, str]]] = {}
    for item, text in _texts(evidence):
        for low, high, nouns, start, _, end in ranges(text):
            excerpt = text[max(0, start - 60) : end + 60].strip()
            known.setdefault(low, []).append((high, nouns, item.source_ref, excerpt))
    if not body_first:
        stated = ranges(body) if known else []
    for low, high, nouns, _, end_start, end_end in stated:
        same = [entry for entry in known.get(low, []) if nouns & entry[1]]
        if not same or any(entry[0] == high for entry in same):
            continue
        ends = sorted({entry[0] for entry in same})
        shown = same[0]
        written = body[end_start:end_end]
        listed = ", ".join(str(value) for value in ends[:4])
        findings.append(
            Finding(
                check="claims_supported",
                kind="range_end_number",
                severity="major",
                message=(
                    f'the range from {low} ends at "{written}", but the evidence\'s range '
                    f"from {low} ends at {listed}"
                ),
                start=end_start,
                end=end_end,
                text=written,
                evidence=[EvidenceExcerpt(source_ref=shown[2], excerpt=shown[3][:2000])],
            )
        )
        digits = str(high)
        if len(ends) == 1 and written.replace(",", "").startswith(digits) and "," not in written:
            right = ends[0]
            fixes.append(
                FixProposal(
                    finding_index=len(findings) - 1,
                    kind="close_but_wrong",
                    find=written,
                    replace=str(right) + written[len(digits) :],
                    offset=end_start,
                    confidence=0.8,
                    verified_with=f'evidence ({shown[2]}): "{shown[3]}"',
                )
            )
    return findings, fixes
