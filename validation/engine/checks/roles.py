"""A number is supported by evidence about the same thing (issue 26, point 2).

A report number that equals an evidence value is "exact" to the numeric check whatever
that value is about: "scored 12 rebounds" passes on a text whose only 12 is "a 12-point
third quarter". Here each such number is read with its noun (the words right after it,
"12 rebounds") and its own words (those between its neighbouring numbers); each value of
the evidence with its noun (the words after it in prose, its key in a JSON record), the
words around it, and in a record the names beside it ("name": "10K").

The number is ``number_elsewhere`` (``claims_supported``) when no place the evidence
gives the value counts what the claim counts (no noun in common), the claim's own words
name nothing the value is said of (its noun, the record's names beside it) and share
fewer than ``_SAME_TOPIC`` words with the words around it, and the claim's noun is the
noun of another evidence value. One topic is no support when the claim's whole noun is one
other value's own (``_owner``: "12,000 runners finished" beside "11,237 runners finished
..., out of roughly 12,000 who started") and that value's words are at least as near the
claim's; a noun said just before a value ("a prize fund of €40,000") is its own. The
finding quotes where the value does appear; it is
major when the noun points to exactly one other value -- then the fix writes that value,
with its excerpt as proof -- and minor, without a fix, when to several.

A duration is a place of its values in the neighbouring units ("two decades": 20 years),
never the other value a noun points to. ``counts.said_alike`` asks the same of a count
in words.

A number in a record's key ("2019 (11)", "FY2021") is no value but names the period of
the values under it. A number whose clause names one year is ``number_elsewhere`` too
when every place the evidence gives it is under a key naming other years: the finding
names the key's period; fixed only when the key above holds exactly one value under
the claimed year.

A number said of someone else ("Okafor led with 20 points" where the 20 is Ellis's) is
read by ``_role_names``. A number with no noun after it is judged only when its subject
names the noun of the one value beside its own in one evidence sentence (``_sibling``:
"Adult admission will be $12" beside "$18 for adults and $12 for seniors").

Not judged: numbers the numeric check derives or flags itself; any other number without a
noun, the second of a pair ("$45 to $85", "3 hours 43"), a part ("10 of them"; "18 of
those workers" names its noun and is judged); a value whose
noun is nowhere said (but a value that is part of a name, "Local 808", "Gate 12",
counts nothing: it supports a claim that counts something only when the claim says the
name); a noun whose other value is this one rounded ("more than 14,000
children" beside "14,382 participants"); and evidence read as a table (a cell's words are
its row's and column's, read by the numeric check's labels instead).

A year said of what a record's key names ("which opened in 1994" against ``"opened":
2006``) is read by ``_year_keys``.

Linear: the evidence and the body are scanned once; each number's words come from a
bounded window; each claim is compared with the evidence values in one pass.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from decimal import Decimal
from itertools import islice
from typing import Any

from validation.engine.checks._query_words import terms
from validation.engine.checks._restated import restated, tabled, words_index
from validation.engine.checks._role_names import names_index, said_of_another, subject
from validation.engine.checks._role_values import (
    _PAIR,
    _around,
    _first,
    _nouns,
    _paired,
    _Value,
    _words,
    _years,
    evidence_values,
    remembered_values,
)
from validation.engine.checks._year_keys import check_year_keys
from validation.engine.checks.numeric import WORD_VALUES, scan_numbers
from validation.engine.types import EvidenceExcerpt, EvidenceItem, Finding, FixProposal, NumberMatch

__all__ = ["check_roles", "claim_words", "evidence_values", "remembered_values"]

# Words a claim's own words (between its neighbouring numbers) share with the words
# around a value that make them one topic (the same name, place or event): then the
# value is not judged moved.
_SAME_TOPIC = 2

_LOOK = 64  # values sharing a noun that one claim looks through, at most

_NUMBER_TERMS = frozenset(terms(" ".join([*WORD_VALUES, "hundred", "thousand", "dozen"])))


def claim_words(body: str, start: int, end: int) -> frozenset[str]:
    """The words of a claim's clause around ``body[start:end]``, numbers (in digits or
    words) left out."""
    left, right = _around(body, start, end, 0, len(body))
    return _words(left + " " + right) - _NUMBER_TERMS


def _claim(
    body: str, match: NumberMatch, low: int, high: int
) -> tuple[frozenset[str], frozenset[str]]:
    """A claim's own words (between the neighbouring numbers ``low`` and ``high``,
    without the previous number's noun) and its noun (what it counts or measures)."""
    near_left, near_right = _around(body, match.start, match.end, low, high)
    near = _words(near_left + " " + near_right)
    if low and near_left == body[low : match.start]:
        near -= _nouns(near_left)  # "27 points and 12 rebounds": "points" is the 27's
    return near, _nouns(body[match.end : high])


def _shares(claim: frozenset[str], words: frozenset[str]) -> bool:
    """A word in common, or one the stem of the other ("mileag" and "mile")."""
    if claim & words:
        return True
    return any(
        len(short) >= 4 and (long.startswith(short) or short.startswith(long))
        for short in claim
        for long in words
    )


def check_roles(
    body: str,
    evidence: Sequence[EvidenceItem],
    matches: Sequence[NumberMatch],
    memo: dict[Any, Any] | None = None,
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings (and fixes) for numbers supported only by evidence about something else.
    `memo` (the evidence index's) keeps the evidence's values for the next report on it."""
    if not evidence:
        return [], []
    findings, fixes = check_year_keys(body, evidence)  # years: not among the matches
    exact = [match for match in matches if match.status == "exact" and match.evidence_value]
    derived = [match for match in matches if match.status == "derived"]
    if not (exact or derived):
        return findings, fixes
    values = remembered_values(evidence, memo)
    if not values:
        return findings, fixes
    starts = sorted(match.start for match in matches)
    ends = sorted(match.end for match in matches)
    by_value: dict[Decimal, list[_Value]] = {}
    by_noun: dict[str, dict[Decimal, _Value]] = {}
    by_place: dict[tuple[str, int, str], set[Decimal]] = {}  # a record object's years
    for value in values:
        by_value.setdefault(value.value, []).append(value)
        for year in value.period:
            by_place.setdefault((value.source_ref, value.parent, year), set()).add(value.value)
        for noun in () if value.converted else value.nouns:
            by_noun.setdefault(noun, {}).setdefault(value.value, value)
    by_name = names_index(values)
    # the values the report states: none is what another claim's words point to instead
    stated = {abs(match.value) for match in matches}
    read: dict[tuple[str, frozenset[str], str, Decimal], dict[Decimal, _Value]] = {}
    for match in exact:
        before = body[max(0, match.start - _PAIR) : match.start]
        if any(character.isdigit() for character in before) and _paired(
            before[max(index for index, c in enumerate(before) if c.isdigit()) + 1 :]
        ):
            continue  # the second of a pair ("$45 to $85", "555 0193"): the first's words
        after = bisect_right(starts, match.start)
        previous = bisect_left(ends, match.start)
        near, nouns = _claim(
            body,
            match,
            ends[previous - 1] if previous else 0,
            starts[after] if after < len(starts) else len(body),
        )
        low = ends[previous - 1] if previous else 0
        high = starts[after] if after < len(starts) else len(body)
        period = _period_finding(body, match, (low, high), by_value, by_place)
        if period is not None:
            findings.append(period[0])
            if period[1] is not None:
                fixes.append(period[1].model_copy(update={"finding_index": len(findings) - 1}))
            continue
        if match.evidence_value is None or _part(body, match.end):
            continue  # a part of another number's ("18 points, 10 of them before halftime")
        same = by_value.get(abs(match.evidence_value), [])
        said = subject(_around(body, match.start, match.end, low, high)[0])
        # one reading per claim of the same words and value: a wall repeats them
        key = (said, nouns, match.text, abs(match.evidence_value))
        if key not in read:
            read[key] = said_of_another(match.text, said, nouns, same, by_name, _shares) or (
                {} if nouns else _sibling(said, same, by_noun, stated, match.text)
            )
        if read[key]:  # said of someone else, or of the value beside it
            _flag_elsewhere(body, match, same[0], read[key], findings, fixes)
            continue
        if not nouns:
            continue  # nothing names what the number counts
        owner = _owner(nouns, _first(body[match.end : high]), abs(match.evidence_value), by_noun)
        # how near the claim's words the owner's own place is: a value no nearer the
        # claim than the owner is one topic with the claim only as the owner is
        places = by_value.get(owner, []) if owner is not None else []
        owned = max((len(near & value.words) for value in places), default=-1)
        if not same or any(
            value.title in near
            if value.title  # part of a name: supports only a claim that says the name
            else not value.nouns
            or _shares(nouns, value.nouns | value.before)
            or near & (value.nouns | value.whose)
            or (len(near & value.words) >= max(_SAME_TOPIC, owned + 1))
            for value in same
        ):
            continue  # the value counts what the claim counts, the claim's clause names
            # what the value counts or shares its topic (or nothing says what it counts,
            # unless it is part of a name the claim does not say: "Local 808");
            # one topic is no support when the claim's noun is another value's own
        pointed = {
            number: value
            for noun in nouns
            for number, value in by_noun.get(noun, {}).items()
            if number != abs(match.evidence_value)
        }
        _flag_elsewhere(body, match, same[0], pointed, findings, fixes)
    if derived and tabled(evidence):
        derived = []  # a table's rows may be what a claim's words name: none is the one
    by_word = words_index(values) if derived else {}
    for match in derived:
        after = bisect_right(starts, match.start)
        previous = bisect_left(ends, match.start)
        span = (
            ends[previous - 1] if previous else 0,
            starts[after] if after < len(starts) else len(body),
        )
        pointed = restated(body, match, span, by_word, stated, by_value)
        if pointed:
            ((_, shown),) = pointed.items()
            _flag_elsewhere(body, match, shown, pointed, findings, fixes, derived=True)
    return findings, fixes


def _unit_of(text: str) -> str:
    found = scan_numbers(text)
    return found[0][4] if found else ""


def _sibling(
    said: str,
    same: Sequence[_Value],
    by_noun: dict[str, dict[Decimal, _Value]],
    stated: set[Decimal],
    text: str,
) -> dict[Decimal, _Value]:
    """For a claim (``text``) with no noun after it: the one value its subject (``said``, its words
    back to a comma) names as its noun, when that value stands in one sentence with a
    place of the claim's value, each place of which has a noun of its own the subject
    does not say ("Adult admission will be $12" beside "$18 for adults and $12 for
    seniors"); the value is in the claim's unit and not stated by the report. Else empty."""
    words = _words(said)
    if not words or not same or len(same) > _LOOK:
        return {}  # a value given in that many places is said of many things
    sentences = set()
    for value in same:
        if value.converted:
            continue  # "a year" read as 12 months: no place of its own
        if not value.nouns or _shares(words, value.nouns):
            return {}
        sentences.add(value.sentence)
    number = same[0].value
    pointed = {
        other: value
        for word in words
        for other, value in islice(by_noun.get(word, {}).items(), _LOOK)
        if other != number and other not in stated
        if value.sentence in sentences and value.sentence[3] >= 0
    }
    if not pointed:
        return {}
    unit = _unit_of(text)
    pointed = {other: value for other, value in pointed.items() if value.unit == unit}
    return pointed if len(pointed) == 1 else {}


def _flag_elsewhere(
    body: str,
    match: NumberMatch,
    shown: _Value,
    pointed: dict[Decimal, _Value],
    findings: list[Finding],
    fixes: list[FixProposal],
    *,
    derived: bool = False,
) -> None:
    """The finding (and, when ``pointed`` is one value, the fix) for a claim supported only
    by ``shown``, said of something else; none when the claim's words point to no other
    value, or to this one rounded ("more than 14,000 children" beside "14,382 ...").
    A ``derived`` claim (``_restated``) is given no place: ``shown`` is the value its
    words name."""
    claimed = abs(match.evidence_value or Decimal(0))
    if not pointed or any(_rounds_to(claimed, other) for other in pointed):
        return
    where = f'"{shown.excerpt}"' + (f" ({shown.label})" if shown.label else "")
    other = ", ".join(str(value) for value in sorted(pointed)[:4])
    message = (
        f'"{match.text}": the evidence gives what the claim\'s words name as {other}, '
        f"in {where}; {match.text} follows only from an operation no word of the claim names"
        if derived
        else f'"{match.text}": the evidence gives {match.text} only about something '
        f"else, in {where}; what the claim counts, it gives as {other}"
    )
    findings.append(elsewhere_finding(match, message, shown, sure=len(pointed) == 1))
    if len(pointed) == 1:
        ((right, proof),) = pointed.items()
        fix = _fix(body, match, right, proof)
        if fix is not None:
            fixes.append(fix.model_copy(update={"finding_index": len(findings) - 1}))


# Words right after a number that date it relative to the year its clause names.
_RELATIVE_YEAR = re.compile(
    r"(?i)^\W{0,3}(?:a|one|the) (?:year|twelve months) (?:earlier|before|prior|ago)\b|"
    r"^\W{0,3}(?:in |for |during )?(?:the )?(?:prior|previous|preceding) (?:year|period)\b"
)


def _period_finding(
    body: str,
    match: NumberMatch,
    span: tuple[int, int],
    by_value: dict[Decimal, list[_Value]],
    by_place: dict[tuple[str, int, str], set[Decimal]],
) -> tuple[Finding, FixProposal | None] | None:
    """A number whose clause names one year while every place the evidence gives it is
    under a record key naming other years (module docstring)."""
    if match.evidence_value is None:
        return None
    left, right = _around(body, match.start, match.end, *span)
    if _RELATIVE_YEAR.search(right):
        return None  # "against £35.8m a year earlier": the year before the one named
    claimed = _years(left + " " + right)
    same = by_value.get(abs(match.evidence_value), [])
    if len(claimed) != 1 or not same or any(not v.period or v.period & claimed for v in same):
        return None
    (year,) = claimed
    shown = same[0]
    given = "/".join(sorted(shown.period))
    # The fix: the one value beside it (same object) under the claimed year.
    beside = by_place.get((shown.source_ref, shown.parent, year), set())
    finding = elsewhere_finding(
        match,
        f'"{match.text}": the evidence gives {match.text} for {given} ("{shown.excerpt}"), '
        f"not for {year}",
        shown,
        sure=len(beside) == 1,
    )
    fix = None
    if len(beside) == 1:
        (right_value,) = beside
        proof = next(v for v in by_value[right_value] if v.parent == shown.parent)
        fix = _fix(body, match, right_value, proof)
    return finding, fix


# Words after "N of" that name no thing: the number is a part of one named before it.
_PART_OF = frozenset({"them", "which", "whom", "it", "its", "these", "this", "that", "us"})


def _part(body: str, end: int) -> bool:
    """``body[:end]`` ends a part of another number ("10 of them", "41 of which"); "18 of
    those workers" names its own noun and is no part."""
    if not body.startswith(" of ", end):
        return False
    following = body[end + 4 : end + 24].split(maxsplit=1)
    return (
        not following
        or following[0].strip(",.;:").lower() in _PART_OF
        or (following[0].lower() in ("the", "those") and len(following) == 1)
    )


def _owner(
    nouns: frozenset[str],
    ordered: Sequence[str],
    value: Decimal,
    by_noun: dict[str, dict[Decimal, _Value]],
) -> Decimal | None:
    """The one other evidence value whose noun is the claim's ("12,000 runners finished"
    beside "11,237 runners finished ... 12,000 who started"): every word of its noun, or
    else its first word ("converted 160 lounges" beside "210 lounge spaces"); None when
    none or several."""
    held = [by_noun.get(noun, {}) for noun in nouns]
    found = _few(min(held, key=len), value, lambda number: all(number in h for h in held))
    if not found and ordered:
        found = _few(by_noun.get(ordered[0], {}), value, lambda number: True)
    return found[0] if len(found) == 1 else None


def _few(
    numbers: dict[Decimal, _Value], value: Decimal, keep: Callable[[Decimal], bool]
) -> list[Decimal]:
    """Up to two of ``numbers`` other than ``value`` that ``keep`` keeps, looking at no
    more than ``_LOOK`` of them: one claim costs the same however many values share a
    noun (more than that many is "several")."""
    found: list[Decimal] = []
    for number in islice(numbers, _LOOK):
        if number != value and keep(number):
            found.append(number)
            if len(found) == 2:
                break
    return found


def _rounds_to(value: Decimal, other: Decimal) -> bool:
    """``other`` is ``value`` written with fewer digits (14,382 as "14,000"); a count
    under a hundred written to one digit ("35 frogs" as 40) is not a rounding a writer
    makes of it."""
    if other <= 0 or other != other.to_integral_value():
        return False
    whole = int(other)
    step = 1
    while whole % (step * 10) == 0:
        step *= 10
    if whole // step < 10 and value < 100:
        return False  # one significant digit left of a two-digit count
    return step > 1 and abs(value - other) < step


def _fix(body: str, match: NumberMatch, right: Decimal, proof: _Value) -> FixProposal | None:
    """The claim's digits replaced by the one value its words point to, in its form."""
    text = body[match.start : match.end]
    digits = "".join(character for character in text if character.isdigit() or character in ",.")
    digits = digits.strip(",.")
    if not digits or right != right.to_integral_value() or "." in digits:
        return None
    written = f"{int(right):,}" if "," in digits else str(int(right))
    at = text.find(digits)
    if at < 0:
        return None
    return FixProposal(
        finding_index=0,
        kind="close_but_wrong",
        find=text,
        replace=text[:at] + written + text[at + len(digits) :],
        offset=match.start,
        confidence=0.6,
        verified_with=f'evidence ({proof.source_ref}): "{proof.excerpt}"',
    )


def elsewhere_finding(match: NumberMatch, message: str, shown: _Value, *, sure: bool) -> Finding:
    """A `number_elsewhere` finding on the claim, the evidence value `shown` as its proof:
    major when the claim's words point to one other value, minor when to several."""
    return Finding(
        check="claims_supported",
        kind="number_elsewhere",
        severity="major" if sure else "minor",
        message=message,
        start=match.start,
        end=match.end,
        text=match.text,
        evidence=[
            EvidenceExcerpt(
                source_ref=shown.source_ref, excerpt=shown.excerpt[:2000], label=shown.label
            )
        ],
    )
