"""A number "derived" only by coincidence while its own words restate one evidence value
(issue 26, point 2, with ``roles``).

The numeric check calls a number derived when some operation over nearby numbers gives
it; with no word of an operation around it ("total", "difference", "up", "of"...), that
is a guess. When the number's own words name exactly one evidence value -- in a record,
every word of its key ("a full service is GBP 150" against ``"full_service": "GBP
120"``); in prose, two words of what the value counts or of its clause before it ("the
178 km fifth stage" against "the 187-kilometre fifth stage") -- the number restates that
value, and a number other than it is wrong: ``number_elsewhere`` (major), fixed to that
value with its excerpt as proof (``roles._flag_elsewhere``).

The value must be in the claim's unit, name no other period than the claim's, not be
stated by the report itself (then the claim is something else beside it), and not be
the claim rounded or the claim it rounded, nor one its derivation takes with another
place of the same thing (a row's other years: the claim is their sum or average).
Several values named as well: no finding;
nor when the evidence holds a table in text (markdown rows, or figures laid out in
columns), whose cells this reading cannot see: then no value is known to be the one.
A hedge ("approximately", "about") names nothing; a claim whose words say a count ("the
price for two nights") or name another operand of its derivation ("the price per night
is $280, cleaning included") is computed from them.

Linear: each such claim reads the values sharing one of its words, at most ``_LOOK``
each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache
from itertools import islice

from validation.engine.checks._query_words import terms
from validation.engine.checks._role_values import _around, _first, _Value, _words, _years
from validation.engine.checks.numeric import CHANGE, WORD_VALUES, cue_of, scan_numbers
from validation.engine.types import EvidenceItem, NumberMatch

_LOOK = 64  # values sharing one word that a claim looks through, at most
_NUMBER_TERMS = frozenset(terms(" ".join([*WORD_VALUES, "hundred", "thousand", "dozen"])))
# How much of a value's own words a claim must say: one word of what it counts (it
# weighs twice), or two words of its clause before it; a record's key whole.
_PROSE_SCORE = 2
_NOUN_WORDS = 3  # words after the claim that say what it counts ("km fifth stage")
# "£195 (up from £160)": the change is the other number's; this one is a level.
_LEVEL = re.compile(r"[\s,(\u2013\u2014-]{0,3}(?:up|down) from\b")

# A unit written short is the unit written out: "178 km" counts what "187-kilometre" does.
_SHORT_UNITS = {
    "km": "kilometr",
    "kms": "kilometr",
    "mi": "mile",
    "kg": "kilogram",
    "kgs": "kilogram",
    "lb": "pound",
    "lbs": "pound",
    "ft": "foot",
    "feet": "foot",
    "hr": "hour",
    "hrs": "hour",
    "min": "minut",
    "mins": "minut",
    "sec": "second",
    "secs": "second",
    "yd": "yard",
    "yds": "yard",
    "sq": "squar",
}


# Words that say how exact a number is, never what it is of.
_HEDGES = frozenset(
    terms("approximately about around roughly nearly almost some estimated circa just over under")
)


def _plain(words: frozenset[str]) -> frozenset[str]:
    return frozenset(_SHORT_UNITS.get(word, word) for word in words) - _HEDGES


# A table in text: a markdown row, or figures laid out in columns with spaces.
_TABLE = re.compile(r"(?:^|\n)\||\d[ ]{3,}[$(\d]")


def tabled(evidence: Sequence[EvidenceItem]) -> bool:
    """The evidence holds a table in text, whose cells ``roles`` does not read: no value
    is then the one a claim's words name."""
    return any(
        isinstance(item.content, str) and _TABLE.search(item.content) is not None
        for item in evidence
    )


def own_words(value: _Value) -> frozenset[str]:
    """What names a value: its key in a record, else its nouns and the words of its clause
    before it."""
    return _plain(value.key if value.key else value.nouns | value.before)


def words_index(values: Sequence[_Value]) -> dict[str, list[_Value]]:
    """The values by each word of their own (``own_words``); durations read in another
    unit are no place of their own."""
    found: dict[str, list[_Value]] = {}
    for value in values:
        if not value.converted:
            for word in own_words(value):
                found.setdefault(word, []).append(value)
    return found


def restated(
    body: str,
    match: NumberMatch,
    span: tuple[int, int],
    by_word: dict[str, list[_Value]],
    stated: set[Decimal],
    by_value: dict[Decimal, list[_Value]],
) -> dict[Decimal, _Value]:
    """The one evidence value a derived claim with no word of an operation restates, when
    it is another number; else empty. ``span`` is where its neighbouring numbers end and
    start; ``stated`` the values the report states."""
    low, high = span
    left, right = _around(body, match.start, match.end, low, high)
    lead = _plain(_clause(left))
    counts = _plain(frozenset(_first(body[match.end : high], _NOUN_WORDS)))
    said = lead | counts
    if not said or said & _NUMBER_TERMS:
        return {}  # "the price for two nights": computed from a count it says
    claimed = abs(match.value)
    unit: str | None = None  # its unit and years, read once a value of its words asks
    years: frozenset[str] = frozenset()
    best: dict[Decimal, _Value] = {}
    top = 0
    seen: set[int] = set()
    for word in said:
        for value in islice(by_word.get(word, ()), _LOOK):
            if unit is None:
                unit, years = _unit_of(match.text), _years(left + " " + right)
            if id(value) in seen or value.unit != unit or value.value == claimed:
                continue
            seen.add(id(value))
            if value.key:  # a record's key: every word of it said
                key = _plain(value.key)
                score = 2 * len(key) if key <= said else 0
            else:  # what it counts weighs twice the words said before it
                nouns = _plain(value.nouns)
                score = 2 * len(counts & nouns) + len(lead & _plain(value.before))
            if score < _PROSE_SCORE:
                continue
            if value.period and years and not value.period & years:
                continue
            if score > top:
                best, top = {value.value: value}, score
            elif score == top:
                best.setdefault(value.value, value)
    if len(best) != 1:
        return {}
    # (read after the values: most claims restate none, and their cue is then not needed)
    cue = cue_of(body, match.start, match.end, span, low, high)
    level = cue.kinds == {CHANGE} and _LEVEL.match(body, match.end, high) is not None
    if cue.named and not level:
        return {}  # its words make it a result
    ((other, value),) = best.items()
    if other in stated or _near(claimed, other):
        return {}
    # "The price per night is $280, cleaning included": the claim's words name another
    # operand of its derivation too; the writer computed it.
    operands = _plain(_words(match.formula.replace("_", " "))) - own_words(value)
    if operands & _plain(_words(left + " " + right)) or _aggregate(match, value, by_value):
        return {}
    return best


@lru_cache(maxsize=1024)
def _unit_of(text: str) -> str:
    """The unit of a claim's text ("%", "km"), read once per text (a wall repeats them)."""
    found = scan_numbers(text)
    return found[0][4] if found else ""


def _aggregate(match: NumberMatch, value: _Value, by_value: dict[Decimal, list[_Value]]) -> bool:
    """The claim's derivation takes ``value`` with another place of the same thing: a
    cell of its row (its sentence's other years, "$41.2 million in 2020, $37.5 million in
    2019 ...", said with no words of its own) or a value said in the same words. Its sum
    or average is what the claim's words name, not the one value."""
    numbers = {Decimal(found[2]) for found in scan_numbers(match.formula)}
    if value.value not in numbers:
        return False
    own = own_words(value)
    sentences = [part for part in _SENTENCE_END.split(value.excerpt) if _has(part, value.value)]
    for number in numbers - {value.value}:
        for other in islice(by_value.get(number, ()), _LOOK):
            if own_words(other) == own:
                return True  # under the same key, or said in the same words
            beside = value.parent < 0 and any(_has(part, number) for part in sentences)
            if beside and own_words(other) <= own:
                return True  # a cell of its sentence's row: no words of its own
    return False


_SENTENCE_END = re.compile(r"[.!?][ ]+(?=[A-Z])|\n")


def _has(text: str, number: Decimal) -> bool:
    return any(Decimal(found[2]) == number for found in scan_numbers(text))


_MARKS = ",;:()"


def _clause(left: str) -> frozenset[str]:
    """The words of a claim's own clause before it: back to a comma ("of revenue in
    2019, down from" says only "down from"), or, when no word stands there, the words
    before that mark ("**Rating:** 4.0" says "rating")."""
    cut = max(left.rfind(mark) for mark in _MARKS)
    if cut < 0 or any(character.isalpha() for character in left[cut + 1 :]):
        return _words(left[cut + 1 :])
    head = left[:cut]
    return _words(head[max(head.rfind(mark) for mark in _MARKS) + 1 :])


def _near(claimed: Decimal, other: Decimal) -> bool:
    """One of the two is the other rounded (a writer's "about 4,000" for 3,960)."""
    if other <= 0 or claimed <= 0:
        return False
    return abs(claimed - other) / max(claimed, other) < Decimal("0.02")
