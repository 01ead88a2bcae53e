"""Counts written in words: "seven floors", "four restored vessels", "a dozen vendors".

A number word states a count the evidence can confirm when the evidence counts the
same thing: the noun after the report's number word (one adjective may stand between,
"four *restored* vessels") is a noun the evidence also gives a count of, in digits or in
words ("118 rooms over nine floors", ``"floors": 9``). The count is then compared with
the evidence's counts of that noun; one the evidence does not give is an
``unsupported_number_word`` (``claims_supported``, major) -- unless the evidence gives the
value about the same thing in other words: a place of the value (``roles``) shares a noun
with the count, or two of the words of its clause ("three games to two" beside "2 games
to 3"; "fourteen people" beside "employs 14 workers"). A value in a table only, or in a
wall of numbers, is given the benefit of the doubt. A value written as money or a
percentage ("$12", "15%") is no count of things, and the 9 of "9,000" no value at all.
When the evidence gives exactly one count of that noun, the fix writes it in the
report's form (words stay words).

A multiple ("eight times the daily average") is a count of times, compared with the
evidence's multiples; a part ("nine new stations") with the evidence's count of the
same part ("six new stations").

A count with no noun after it ("ten at the bar", "up to eight") is unsupported when
the evidence states its value nowhere and its clause shares ``_SAME_TOPIC`` words with
the words of an evidence value (never fixed); a determiner or an operation before it
("the two", "divided by three") makes it no count, and so does a pair's end ("three
games to two"). A length of time in words
("another four weeks") is ``_worded_durations``'s; a share in words ("two-thirds of")
``_fractions``'s.

Not claims here: a number word naming a period ("three-year", "within one year", "two
quarters"), "one of" and other idioms, and any count of a noun the evidence never
counts (then nothing can confirm or refute it). The digits of a report are the numeric
check's, never this one's.

One pass of a pattern without nested quantifiers over the report and each evidence
text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from validation.engine.checks._fractions import check_fractions
from validation.engine.checks._query_words import _STOP_WORDS, stem, terms
from validation.engine.checks._role_values import _Value
from validation.engine.checks._spans import span_finding
from validation.engine.checks._worded_durations import check_worded_durations
from validation.engine.checks.numeric import ONES, TEENS, TENS, WORD_VALUES
from validation.engine.checks.reading import ReportReading
from validation.engine.checks.roles import (
    _SAME_TOPIC,
    _shares,
    claim_words,
    remembered_values,
)
from validation.engine.types import EvidenceItem, Finding, FixProposal

_WORDS = WORD_VALUES
_NAMES = {value: word for word, value in _WORDS.items()}
_NUMBER = (
    r"(?:(?:"
    + "|".join(TENS)
    + r")(?:-(?:"
    + "|".join(ONES)
    + r"))?|"
    + "|".join([*ONES, *TEENS])
    + r")"
)
# A count: a number (in words, or digits in the evidence), one optional adjective, a noun.
_REPORT_COUNT = re.compile(
    r"(?i)\b(?=[zotfsenda])(" + _NUMBER + r"|a dozen|dozen)[ -]([a-z]+)(?:[ -]([a-z]{3,}))?\b"
)
_EVIDENCE_COUNT = re.compile(
    r"(?i)(?<![\w.,$])(?=[\dzotfsenda])(\d{1,4}|" + _NUMBER + r"|a dozen)"
    r"[ -]([a-z]+)(?:[ -]([a-z]{3,}))?\b"
)
# Whole numbers only: the 9 of "9,000" or "9.5" is no value of its own.
# A number in words and the word after it, if any: "ten at the bar", "up to eight.".
# A determiner before it makes it a reference back ("the sum of the two"), and "by" or
# "into" an operand ("divided by two", "split into three"): neither is a count.
# (The lookaheads only skip, fast, the places no alternative's first letter stands.)
_FIRST = "".join(sorted({word[0] for word in (*ONES, *TEENS, *TENS)}))
_BARE_COUNT = re.compile(
    r"(?i)(?<![\w-])(?=[tbaih" + _FIRST + r"])"
    r"(?:(?=[tbaih])(the|these|those|both|all|its|their|his|her|by|into|in)[ ]+)?"
    r"((?=[" + _FIRST + r"])" + _NUMBER + r")\b(?!-)(?:[ ]+([a-z]+))?"
)
# The end of a pair ("three games to two", "5 or six"): a score or a range, not a count.
_PAIR_END = re.compile(r"(?i)(?:\d|\b" + _NUMBER + r")(?:[ ]+[a-z]+)?[ ]+(?:to|and|or)[ ]+$")
_MAX_BARE = 200  # counts without a noun compared with the evidence's values, at most
_BARE_IDIOMS = frozenset({"of", "another", "or", "and", "to", "in"})
_ANY_NUMBER = re.compile(r"(?i)(?<![\w.,])\d{1,4}(?![\d]|[.,]\d)|\b" + _NUMBER + r"\b|a dozen")
_JSON_COUNT = re.compile(r'"([A-Za-z_ ]{3,40})":[ ]?(\d{1,4})(?![\d.])')
_PERIODS = frozenset(
    stem(word)
    for word in [
        "year",
        "years",
        "month",
        "months",
        "quarter",
        "quarters",
        "week",
        "weeks",
        "day",
        "days",
        "hour",
        "hours",
        "minute",
        "minutes",
        "period",
        "periods",
        "decade",
        "decades",
        "time",
        "times",
    ]
)
_PERCENT_TERMS = frozenset(terms("percent percentage pct"))
_MONEY_TERMS = frozenset(terms("dollars euros pounds cents bucks yen francs"))
_MULTIPLE = "times"  # the noun of a multiple
_IDIOMS = frozenset({"of", "another", "off", "time", "way", "hand", "thing"}) | _STOP_WORDS
# "two other defendants", "three new stores": a part of what the evidence counts.
_SUBSET = frozenset(
    [
        "other",
        "more",
        "additional",
        "new",
        "remaining",
        "further",
        "separate",
        "different",
        "former",
        "existing",
        "extra",
        "fewer",
    ]
)


def _value(word: str) -> int:
    word = word.lower()
    if word.isdigit():
        return int(word)
    if "dozen" in word:
        return 12
    if "-" in word:
        tens, ones = word.split("-")
        return _WORDS[tens] + _WORDS[ones]
    return _WORDS[word]


def _written(value: int, like: str) -> str:
    """``value`` in words, capitalised as ``like`` is."""
    if value in _NAMES:
        word = _NAMES[value]
    elif 20 < value < 100 and value % 10 and value - value % 10 in _NAMES:
        word = f"{_NAMES[value - value % 10]}-{_NAMES[value % 10]}"
    else:
        return str(value)
    return word.capitalize() if like[:1].isupper() else word


def _nouns(first: str, second: str | None) -> list[str]:
    """The stems a count may be of, nearest first: "nine floors" (``floor``), "four
    restored vessels" (``restor``, then ``vessel``). Empty when the number is no count
    of a thing: a period ("three-year", "two quarters"), a part ("two other
    defendants"), an idiom or a small word ("one of", "one and")."""
    first = first.lower()
    if first in ("time", "times"):
        return [_MULTIPLE]  # "five times the daily average": a multiple, a claim
    if first in _SUBSET:
        # "two other defendants" is a part of what the evidence counts; but "nine new
        # stations" is checked against the evidence's own count of new stations
        return [f"{first} {stem(second.lower())}"] if second else []
    if first in _IDIOMS:
        return []
    found = [stem(first)]
    if second:
        found.append(stem(second.lower()))
    if any(noun in _PERIODS for noun in found):
        return []
    return found


def evidence_counts(evidence: Sequence[EvidenceItem]) -> tuple[dict[str, set[int]], set[int]]:
    """Noun stem -> every count the evidence gives of it; and every whole number the
    evidence states at all, in digits or words."""
    counts: dict[str, set[int]] = {}
    anywhere: set[int] = set()
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        anywhere.update(_value(match.group(0)) for match in _ANY_NUMBER.finditer(text))
        for match in _EVIDENCE_COUNT.finditer(text):
            value = _value(match.group(1))
            for noun in _nouns(match.group(2), match.group(3)):
                counts.setdefault(noun, set()).add(value)
        if not isinstance(content, str):
            for match in _JSON_COUNT.finditer(text):  # "floors": 9
                key = match.group(1).replace("_", " ").split()[-1]
                counts.setdefault(stem(key.lower()), set()).add(int(match.group(2)))
    return counts, anywhere


def said_alike(
    places: Sequence[_Value], value: Decimal, nouns: frozenset[str], near: frozenset[str]
) -> bool | None:
    """Whether some place the evidence gives ``value`` is about what a claim with these
    ``nouns`` and own words ``near`` is about (a noun in common, or ``_SAME_TOPIC`` of its
    words); None when the evidence's values were not read at that value (a table, a wall)."""
    same = [place for place in places if place.value == value]
    if not same:
        return None
    return any(
        _same_kind(place.unit, nouns)
        and (
            _shares(nouns, place.nouns | place.words | place.whose)
            or len(near & place.words) >= _SAME_TOPIC
        )
        for place in same
    )


def _same_kind(unit: str, nouns: frozenset[str]) -> bool:
    """Whether a value written with ``unit`` can be the amount a claim with these nouns
    states: "$12" is no count of games, "15%" no count of anything but percent."""
    if not unit:
        return True
    return bool(nouns & (_PERCENT_TERMS if unit == "%" else _MONEY_TERMS))


def check_counts(
    reading: ReportReading, evidence: Sequence[EvidenceItem], memo: dict[Any, Any] | None = None
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings (and fixes) for the report's counts in words (module docstring). ``memo``
    (the evidence index's) keeps the evidence's values for the next report on it."""
    body = reading.body
    if not evidence:
        return [], []
    read: tuple[dict[str, set[int]], set[int]] | None = None
    findings: list[Finding] = []
    fixes: list[FixProposal] = []
    for match in _REPORT_COUNT.finditer(reading.masked):
        if match.group(1).lower() == "one":
            continue  # "one" is an idiom far more often than a count
        nouns = _nouns(match.group(2), match.group(3))
        if not nouns:
            continue
        if read is None:
            read = evidence_counts(evidence)
        counts, anywhere = read
        position = next((i for i, n in enumerate(nouns) if n in counts), None)
        value = _value(match.group(1))
        if position is None:
            continue  # nothing counts it
        known = counts[nouns[position]]
        if value in known:
            continue
        if value in anywhere:
            alike = said_alike(
                remembered_values(evidence, memo),
                Decimal(value),
                frozenset(nouns),
                claim_words(body, *match.span(1)),
            )
            if alike is None or alike:
                continue  # the evidence gives the value about the same thing ("three
                # games to two" is a score), or where its words cannot be read
        noun = match.group(2 + position)
        start, end = match.span(1)
        written = body[start:end]
        listed = ", ".join(_written(v, "a") for v in sorted(known)[:6])
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_number_word",
                f'"{body[start : match.end()]}": the evidence counts {noun} as {listed}, '
                f"not {value}",
                start,
                end,
                written,
            )
        )
        if len(known) == 1:
            (right,) = known
            fixes.append(
                FixProposal(
                    finding_index=len(findings) - 1,
                    kind="close_but_wrong",
                    find=body[start : match.end()],
                    replace=_written(right, written) + body[end : match.end()],
                    offset=start,
                    confidence=0.8,
                    verified_with=f"evidence: {right} {noun}",
                )
            )
    findings += _bare_counts(reading, evidence, memo, read)
    findings += check_worded_durations(body, evidence)  # no fixes: indices hold
    findings += check_fractions(body, evidence)  # shares in words ("two-thirds of")
    return findings, fixes


def _bare_counts(
    reading: ReportReading,
    evidence: Sequence[EvidenceItem],
    memo: dict[Any, Any] | None,
    read: tuple[dict[str, set[int]], set[int]] | None,
) -> list[Finding]:
    """Counts in words with no noun after them ("ten at the bar", "up to eight"): a
    value the evidence states nowhere, in a clause about something the evidence gives
    another value of (``_SAME_TOPIC`` words in common with that value's own), is
    unsupported. Never fixed: no noun says which value was meant."""
    body = reading.body
    findings: list[Finding] = []
    judged = 0
    places: Sequence[_Value] | None = None  # read only when a count asks
    for match in _BARE_COUNT.finditer(reading.masked):
        word, after = match.group(2), (match.group(3) or "").lower()
        if (
            match.group(1)
            or word.lower() == "one"
            or after in _BARE_IDIOMS
            or after in _SUBSET
            or (after and after not in _STOP_WORDS)
        ):
            continue  # a reference back or an operand, "one", a part ("three of", "two
            # other"), or a count of a noun (``check_counts``)
        value = _value(word)
        left = body[max(0, match.start(2) - 30) : match.start(2)]
        if _PAIR_END.search(left):
            continue
        if read is None:
            read = evidence_counts(evidence)
        if value in read[1]:
            continue  # stated somewhere: whether about this is ``roles``' question
        judged += 1
        if judged > _MAX_BARE:
            break  # a wall of number words: each is compared with every value
        near = claim_words(body, *match.span(2))
        if places is None:
            places = remembered_values(evidence, memo)
        others = sorted(
            {
                int(place.value)
                for place in places
                if not place.converted
                and not place.unit
                and place.value == place.value.to_integral_value()
                and len(near & place.words) >= _SAME_TOPIC
            }
        )
        if not others:
            continue  # the clause is about nothing the evidence gives a value of
        start, end = match.span(2)
        findings.append(
            span_finding(
                "claims_supported",
                "unsupported_number_word",
                f'"{body[start:end]}" is a number the evidence never states; what it '
                f"says of the same thing gives {', '.join(str(v) for v in others[:6])}",
                start,
                end,
                body[start:end],
            )
        )
    return findings
