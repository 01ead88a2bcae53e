"""The period a claim's own clause names without a year: "now equals about 2.4% of billed
receivables" is of the latest period of the cells its words point to, "up from roughly 1.6%
a year earlier" of the period before it.

The clause is the words between the claim and its neighbouring numbers, within its
sentence: the words before it back to the previous number, and after it up to the next.
"now", "currently", "today", "at present" name the latest period; "a year earlier", "a year
ago", "the year before", "the prior (previous, preceding) year" the one before. A clause
naming both, or neither, names none ("last year" is either: none).

A fiscal year that ends in January, February or March is often named for the calendar
year before, so the evidence's dates of such years ("January 31, 2020") give no year on
their own. A sentence that dates its period the same way ("in the year ended January 31,
2020") speaks the evidence's naming: there, each such cell has the year it is written with.
`dated` gives an operand of the derived search its cell's year, read so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from validation.engine.checks.numeric._derive_carried import _PRIOR
from validation.engine.checks.numeric._derive_pool import Operand, _rows
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._misquotes import _period as period_of
from validation.engine.checks.numeric._named_years import year_after, year_before

_NOW = re.compile(r"(?i)\b(?:now|currently|today|at present)\b")
_BEFORE = re.compile(
    r"(?i)\ba year (?:earlier|ago|before)\b|\bthe year before\b|"
    r"\bthe (?:prior|previous|preceding)[- ]year\b"
)
_REACH = 80  # characters of the clause read on each side
# Where another clause with its own subject begins: "; ", ", and ", ", while ", ", but ".
_NEXT_CLAUSE = re.compile(r";[ \t]|,[ \t]+(?:and|but|while|whereas|yet)\b")
# A share's verb in the present tense: "covers about 1.1% of", "accounts for 45.6% of".
_PRESENT = re.compile(
    r"(?i)\b(?:is|are|covers?|accounts?[ \t]+for|makes?[ \t]+up|represents?|equals?|"
    r"stands?[ \t]+at|comprises?|constitutes?|amounts?[ \t]+to)\b"
)
# A date early in the calendar year, with its year: "January 31, 2020", "Feb. 1, 2019".
_EARLY_DATE = re.compile(
    r"(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?)\.?[ \t]+(?:\d{1,2},?[ \t]+)?(?:19|20)\d\d\b"
)


@lru_cache(maxsize=16)
def dates_early_year(words: str) -> bool:
    """The sentence names a period by a date early in the calendar year, as a fiscal year
    ending then is written ("the year ended January 31, 2020"). Each number of a sentence
    asks: a wall that is one sentence is read once."""
    return _EARLY_DATE.search(words) is not None


def relative_period(
    body: str, claims: Sequence[Claim], position: int, low: int, high: int, share: bool = False
) -> int:
    """+1 for the latest period, -1 for the one before it, 0 when the clause names none. A
    `share` its clause states in the present tense and dates no other way ("covers about
    1.1% of billed receivables") is of the latest period too."""
    mention = claims[position].mention
    start = max(low, mention.start - _REACH)
    if position > 0 and claims[position - 1].mention.end > start:
        start = claims[position - 1].mention.end
    end = min(high, mention.end + _REACH)
    if position + 1 < len(claims) and claims[position + 1].mention.start < end:
        end = claims[position + 1].mention.start
    # Its own words: from the start of its clause to the next ("..., and now makes up").
    after = body[mention.end : max(mention.end, end)]
    cut = _NEXT_CLAUSE.search(after)
    after = after[: cut.start()] if cut else after
    words = body[start : mention.start]
    words = words[max((found.end() for found in _NEXT_CLAUSE.finditer(words)), default=0) :]
    clause = words + " " + after
    now, before = _NOW.search(clause) is not None, _BEFORE.search(clause) is not None
    if share and not (now or before) and _PRESENT.search(body, start, mention.start):
        return 1
    return 0 if now == before else (1 if now else -1)


def years_of(operands: Sequence[Operand], relative: int) -> frozenset[int]:
    """The year a relative period names among the dated cells of `operands`."""
    dated = {operand.year for operand in operands if operand.row >= 0 and operand.year}
    if not dated or not relative:
        return frozenset()
    latest = max(dated)
    year = latest if relative > 0 else latest - 1
    return frozenset((year,)) if year in dated else frozenset()


def dated(operand: Operand, index: EvidenceIndex, early: bool = False) -> Operand:
    """The operand with its cell's year, where the evidence says it plainly; with `early`
    (the sentence dates its period as the evidence does, "the year ended January 31, 2020"),
    the year of a fiscal year ending early in the calendar year too, as written."""
    if operand.entry < 0:
        return operand
    key = ("derive-years", early)
    years: dict[int, int] | None = index.memo.get(key)
    if years is None:
        years = {}
        index.remember(key, years)
    year = years.get(operand.entry)
    if year is None:
        year = period_of(index, operand.entry) or (
            (early and period_of(index, operand.entry, True)) or 0
        )
        years[operand.entry] = year
    return operand if year == operand.year else replace(operand, year=year)


def dated_so(body: str, index: EvidenceIndex, claim: Claim) -> bool:
    """The words of a stated number name the year of the cell it matches."""
    year = period_of(index, claim.hit.number.entry) if claim.hit is not None else None
    named = (year_after(body, claim.mention.end), year_before(body, claim.mention.start))
    return year is not None and year in named


def mixed_period(
    row: int, index: EvidenceIndex, words: str, years: frozenset[int], relative: int = 0
) -> bool:
    """A derivation takes the cell of a prose row beside the one its sentence states
    (`displaced_row`), and the sentence names no other period ("a year earlier", two years).
    A prose row only: the evidence's own sentence ties each of its values to its period
    (in a table's row, writers take the other column's cell beside a stated one often
    enough, "gross margin compressed from roughly 50.9% to 40.0%")."""
    if row < 0 or row not in _rows(index).sentence_rows:
        return False
    if relative > 0:
        return True  # its own clause dates it to the latest period ("is about 47% of")
    return not _PRIOR.search(words) and len(years) < 2
