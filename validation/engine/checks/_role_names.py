"""Whom a number is said of (issue 26, point 2, with ``roles``): "Okafor led with 20
points" is not supported by "Ellis finished with 20 points" when the evidence gives
Okafor's points as another number.

A report number that equals an evidence value is said of someone else when its clause
names someone (its capitalised words: "Okafor", "Reyes") that no place of the value
names, every place of the value names someone of its own, and each of those places is
the same kind of number as the claim (a noun in common, or, for a number with no noun
such as an age after a name, "Tolliver, 58," none either). It is flagged when the
claim's names stand beside another value of that kind in the evidence (same unit, the
same noun or none): the finding quotes where the value does appear; major with a fix
when the names point to exactly one other value, minor without one when to several.

Only prose is read: a record's keys say whose each value is (``holders``).

Linear: the values are grouped by name once; a claim looks only at the values its own
names stand beside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from validation.engine.checks._role_values import _Value, names_in
from validation.engine.checks.numeric import scan_numbers

_MAX_NAMED = 64  # values beside one name that a claim compares, at most


def names_index(values: Sequence[_Value]) -> dict[str, list[_Value]]:
    """The prose values by each name their clause says."""
    found: dict[str, list[_Value]] = {}
    for value in values:
        if value.parent < 0 and not value.converted and not value.key:
            for name in value.named:
                found.setdefault(name, []).append(value)
    return found


Shares = Callable[[frozenset[str], frozenset[str]], bool]


def _kind(nouns: frozenset[str], value: _Value, shares: Shares) -> bool:
    """``value`` is the same kind of number as a claim with ``nouns``."""
    if not nouns:
        return not value.nouns
    return shares(nouns, value.nouns)


_MARKS = ",;:()"


def subject(left: str) -> str:
    """Whom the words before a number say it is of: its clause back to a comma ("Okafor
    led with"), or, when the number stands right after a comma, what is before that comma
    ("Reyes, 58,": an age after a name)."""
    cut = max(left.rfind(mark) for mark in _MARKS)
    if cut < 0 or left[cut + 1 :].strip():
        return left[cut + 1 :]
    head = left[:cut]
    return head[max(head.rfind(mark) for mark in _MARKS) + 1 :]


def said_of_another(
    text: str,
    said: str,
    nouns: frozenset[str],
    same: Sequence[_Value],
    by_name: dict[str, list[_Value]],
    shares: Shares,
) -> dict[Decimal, _Value]:
    """The other values of the claim's kind that its names (said in ``said``, its
    ``subject``) stand beside,
    when every place of its value (``same``) is said of someone else; else empty.
    ``text`` is the claim's number as written; ``shares`` is ``roles._shares``."""
    if not same or len(same) > _MAX_NAMED:
        return {}  # a value given in that many places is said of many
    names = names_in(said)
    if not names:
        return {}
    for value in same:
        if (
            value.parent >= 0
            or value.key
            or not value.named
            or names & (value.words | value.told)
            or not _kind(nouns, value, shares)
        ):
            return {}
    found = scan_numbers(text)
    unit = found[0][4] if found else ""
    number = same[0].value
    pointed: dict[Decimal, _Value] = {}
    for name in names:
        for other in by_name.get(name, [])[:_MAX_NAMED]:
            if other.value != number and other.unit == unit and _kind(nouns, other, shares):
                pointed.setdefault(other.value, other)
    return pointed
