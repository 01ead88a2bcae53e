"""A number is about what its own words name (issue 26, point 2, with ``roles``).

The words bound to a report number are the noun right after it ("164 home runs") and,
when a "for" or "of" links it to the words before, those words ("a cardamom bun for
$4.25", "a warranty of 90 days"). They name a record's holder of a value when they cover
every word of the value's own key ("home_runs", "days_listed") or the words of a short
string of the value's object ("Cardamom bun (large)" names the object whose "price" is
"$4.25").

A report number that equals an evidence value ("exact" to the numeric check) is flagged
``number_elsewhere`` when its bound words name holders of values in the same unit, none
of which gives its value: the number belongs to those holders and is wrong, whatever
else in the record it equals. The finding names the holder; major, with a fix to the
holder's value, when the words name exactly one value; minor without a fix when several.
A value restated for two holders that both give it passes, and so does a number whose
words name no holder (``roles`` judges those by their noun).

Only record evidence (JSON) is read here: a record's keys and names say plainly whose
each value is, where a sentence of prose would need its grammar read.

Linear: the values are grouped once; each number's bound words come from a bounded window
and are compared with the values once.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from validation.engine.checks._role_values import (
    _PAIR,
    _decimal,
    _first,
    _paired,
    _Value,
    _words,
    remembered_values,
)
from validation.engine.checks.numeric import scan_numbers
from validation.engine.checks.roles import _rounds_to, _shares, elsewhere_finding
from validation.engine.spans import occurs_once
from validation.engine.types import EvidenceItem, Finding, FixProposal, NumberMatch

_BEFORE = 60  # characters before a number where its "X for" stands
_LINKS = ("for", "of")  # "X for $N", "X of N": X is what N is of
# A word between two numbers that starts a new phrase: they are no pair (".262 with 164
# home runs", where "$45 to $85" and "3 hours 43" are pairs).
_NEW_PHRASE = frozenset({"with", "for", "of", "at", "in", "on", "by", "from", "after"})
_CLAUSE = ",;:.!?\n|()"
_MAX_X = 4  # words of X, at most
_STEM = 4  # letters two words share when one is the other's stem ("runs", "run")
_MAX_FIXES = 20  # each fix looks for a unique span of the body: a bounded number of them


def bound_words(body: str, start: int, end: int, low: int, high: int) -> frozenset[str]:
    """The words bound to ``body[start:end]``: its noun, and X of "X for N" / "X of N"
    (``low`` and ``high`` are the neighbouring numbers' ends)."""
    right = body[end:high]
    head = right.split(maxsplit=1)[0] if right.strip() else ""
    # the noun stands right after the number: "55 and a full service" has none
    found = set(_first(right)) if head and _words(head) else set()
    left = body[max(low, start - _BEFORE) : start]
    cut = max(left.rfind(mark) for mark in _CLAUSE)
    left = left[cut + 1 :].rstrip().lower()
    for link in _LINKS:
        if left == link or left.endswith(" " + link):
            before = left[: len(left) - len(link)].split()[-_MAX_X:]
            found.update(_words(" ".join(before)))
            break
    return frozenset(found)


def _subject(body: str, start: int, low: int) -> frozenset[str]:
    """The first words of the clause before a number ("Fares start at $189")."""
    left = body[max(low, start - _BEFORE) : start]
    left = left[max(left.rfind(mark) for mark in _CLAUSE) + 1 :]
    return _words(" ".join(left.split()[:_MAX_X]))


def _covers(bound: frozenset[str], words: frozenset[str]) -> bool:
    """Every word of ``words`` is one of ``bound`` or shares its stem ("runs", "run")."""
    return all(
        word in bound
        or any(
            len(short) >= _STEM and long.startswith(short)
            for other in bound
            for short, long in ((word, other), (other, word))
        )
        for word in words
    )


def _named(value: _Value, bound: frozenset[str]) -> bool:
    if value.key and _covers(bound, value.key):
        return True
    return any(len(name) >= 2 and _covers(bound, name) for name in value.names)


def _about(value: _Value) -> frozenset[str]:
    """Every word said of a value: its noun, key, names and the words around it."""
    return value.nouns | value.key | value.words | value.whose.union(*value.names)


def _said(bound: frozenset[str], words: frozenset[str]) -> int:
    """How many of a number's bound words ``words`` say (or share a stem with)."""
    return sum(1 for word in bound if _shares(frozenset({word}), words))


def _unit(text: str) -> tuple[str, Decimal]:
    """A claim's unit and its number as written, without its scale ("$14.8 million": 14.8,
    as the evidence's values are kept)."""
    found = scan_numbers(text)
    written = _decimal(found[0][2]) if found else None
    return (found[0][4], written) if found and written is not None else ("", Decimal(-1))


_MONEY = {"USD": "$", "US$": "$", "EUR": "€", "GBP": "£"}
_SIGNS = frozenset(_MONEY.values())


def _money(unit: str) -> str:
    """A currency as one sign ("USD" and "$" alike)."""
    return _MONEY.get(unit, unit)


def check_holders(
    body: str,
    evidence: Sequence[EvidenceItem],
    matches: Sequence[NumberMatch],
    flagged: frozenset[int],
    memo: dict[Any, Any] | None = None,
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings (and fixes) for numbers whose own words name a record's holder of another
    value; ``flagged`` are the starts of numbers another check has flagged already."""
    exact = [
        match
        for match in matches
        if match.status == "exact" and match.evidence_value is not None
        if match.start not in flagged
    ]
    if not exact:
        return [], []
    every = remembered_values(evidence, memo)
    values = [
        value
        for value in every
        if value.parent >= 0 and not value.converted and (value.key or value.names)
    ]
    if not values:
        return [], []
    by_value: dict[Decimal, list[_Value]] = {}
    for value in every:
        by_value.setdefault(value.value, []).append(value)
    # The values by the first letters of their keys' and names' words: a word covers
    # another only when they begin alike (``_covers``), so a claim looks at few values.
    by_start: dict[str, list[int]] = {}
    for place, value in enumerate(values):
        for word in value.key.union(*value.names):
            by_start.setdefault(word[:_STEM], []).append(place)
    holders: dict[frozenset[str], list[_Value]] = {}  # per bound words: walls repeat
    starts = sorted(match.start for match in matches)
    ends = sorted(match.end for match in matches)
    findings: list[Finding] = []
    fixes: list[FixProposal] = []
    for match in exact:
        before = body[max(0, match.start - _PAIR) : match.start]
        digits = [index for index, character in enumerate(before) if character.isdigit()]
        gap = before[digits[-1] + 1 :] if digits else ""
        if digits and _paired(gap) and not _NEW_PHRASE.intersection(gap.lower().split()):
            continue  # the second of a pair ("$45 to $85"): the first's words
        if body.startswith(" of ", match.end):
            continue  # a part of another number ("10 of them")
        previous = bisect_left(ends, match.start)
        after = bisect_right(starts, match.start)
        low = ends[previous - 1] if previous else 0
        high = starts[after] if after < len(starts) else len(body)
        bound = bound_words(body, match.start, match.end, low, high)
        unit, written = _unit(match.text)
        if not bound and _money(unit) in _SIGNS:
            bound = _subject(body, match.start, low)  # an amount's holder said before it
        if not bound:
            continue
        if bound not in holders:
            near = sorted({place for word in bound for place in by_start.get(word[:_STEM], [])})
            holders[bound] = [values[place] for place in near if _named(values[place], bound)]
        named = holders[bound]
        claimed = {abs(match.evidence_value or Decimal(0)), written}
        others = {value.value: value for value in named if _money(value.unit) == _money(unit)}
        if (
            not others
            or any(value.value in claimed for value in named)
            or any(_rounds_to(number, other) for number in claimed for other in others)
        ):
            continue  # no holder named, or a named holder gives the number
        named_by = max(_said(bound, _about(value)) for value in named)
        places = [value for number in claimed for value in by_value.get(number, [])]
        if any(_said(bound, _about(value)) >= named_by for value in places):
            continue  # a place that gives the number shares as many of its own words
        found = _finding(match, others)
        findings.append(found)
        if len(others) == 1 and len(fixes) < _MAX_FIXES:
            ((right, proof),) = others.items()
            fix = holder_fix(body, match, right, proof)
            if fix is not None:
                fixes.append(fix.model_copy(update={"finding_index": len(findings) - 1}))
    return findings, fixes


def _finding(match: NumberMatch, others: dict[Decimal, _Value]) -> Finding:
    listed = ", ".join(f'"{value.excerpt}"' for value in list(others.values())[:4])
    return elsewhere_finding(
        match,
        f'"{match.text}": its own words name what the evidence gives as {listed}, not {match.text}',
        next(iter(others.values())),
        sure=len(others) == 1,
    )


def _unique_span(body: str, start: int, end: int) -> tuple[int, int]:
    """The number's span, widened by a word at a time on each side (up to ``_BEFORE``
    characters) until its text occurs once in the body: a fix must say where it goes."""
    low, high = start, end
    while not occurs_once(body, body[low:high]):
        if high - low > _BEFORE + (end - start):
            break
        wider_low = 1 + max(
            body.rfind(space, max(0, low - _BEFORE), max(0, low - 1)) for space in " \n"
        )
        found = [body.find(space, min(len(body), high + 1)) for space in " \n"]
        wider_high = min((place for place in found if place >= 0), default=-1)
        low = min(low, wider_low) if wider_low < low else max(0, low - 1)
        high = wider_high if wider_high > high else min(len(body), high + 1)
        if low == 0 and high == len(body):
            break
    return low, high


def holder_fix(body: str, match: NumberMatch, right: Decimal, proof: _Value) -> FixProposal | None:
    """The claim's digits replaced by the holder's value, in the claim's form (its
    thousands separator and its number of decimals)."""
    text = body[match.start : match.end]
    digits = "".join(character for character in text if character.isdigit() or character in ",.")
    digits = digits.strip(",.")
    at = text.find(digits)
    if not digits or at < 0:
        return None
    places = len(digits) - digits.index(".") - 1 if "." in digits else 0
    shown = right.quantize(Decimal(1).scaleb(-places)) if places else right
    if shown != right or (not places and right != right.to_integral_value()):
        return None  # the claim's form cannot say the holder's value
    written = f"{shown:,.{places}f}" if "," in digits else f"{shown:.{places}f}"
    start, end = _unique_span(body, match.start, match.end)
    find = body[start:end]
    at += match.start - start
    return FixProposal(
        finding_index=0,
        kind="close_but_wrong",
        find=find,
        replace=find[:at] + written + find[at + len(digits) :],
        offset=start,
        confidence=0.6,
        verified_with=f'evidence ({proof.source_ref}): "{proof.excerpt}"',
    )
