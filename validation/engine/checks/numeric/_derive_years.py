"""The periods a figure's own words fix, for the derived search (:mod:`._derive`).

A figure its own words date to one year ("$11.3 billion in 2017", "$4.2 million for fiscal
2019") is that year's value: an average over several years' cells is not what it states,
however close the two land. Its words must say so plainly: the year right after it, after
"in", "for", "during" or "at", and not the start of a list or a span of years ("in 2019,
2018 and 2017", "in 2017-2019"); and no word of an average in its own clause ("averaged
$11.3 billion in 2017" may be the mean of that year's quarters, and is judged as before).
Reads a few dozen characters around the figure: linear. And whether a sentence names a span
of three periods or more (`spans_years`, `YEAR_SPAN`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from validation.engine.checks.numeric._matching import Claim

# "$11.3 billion in 2017", "... for fiscal 2019", "... during FY2018"; not "in 2017-2019",
# "in 2019, 2018 and 2017" or "in 2018 and 2019" (a span or a list of years): a year followed
# by "and" and another figure ("in 2018 and $1,389 thousand in 2019") dates its own.
_ONE_YEAR = re.compile(
    r"[ \t]+(?:in|for|during|at)[ \t]+(?:(?:fiscal|calendar)[ \t]+(?:year[ \t]+)?|FY[ \t]?)?"
    r"(?:19|20)\d\d\b"
    r"(?![ \t]*(?:[-\u2013/][ \t]*(?:FY)?\d|(?:,|and|to|through)[ \t]+(?:FY[ \t]?)?(?:19|20)\d\d))",
    re.IGNORECASE,
)
_AVERAGE_WORDS = re.compile(r"(?i)\b(?:averag\w*|mean|per[ \t]+year|a[ \t]+year|annual\w*)\b")


def dated_alone(body: str, claims: Sequence[Claim], position: int, low: int) -> bool:
    """The claim's own words date it to one year, and name no average: it is that year's
    value (`_ONE_YEAR`), not a mean over the years of a row."""
    mention = claims[position].mention
    if _ONE_YEAR.match(body, mention.end) is None:
        return False
    start = low
    if position and low <= claims[position - 1].mention.end <= mention.start:
        start = claims[position - 1].mention.end
    return _AVERAGE_WORDS.search(body, start, mention.start) is None


def over_years(operation: str) -> bool:
    """An operation whose result is no one period's value: an average over periods."""
    return operation == "average"


_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")


def periods_named(words: str) -> list[int]:
    """The counts of periods between the years a sentence names ("since 2015" in a
    sentence about 2019: four)."""
    return list(_periods_named(words))


@lru_cache(maxsize=16)
def years_named(words: str) -> frozenset[int]:
    """The years a sentence names ("3.7 times the 2019 figure": 2019); read once per
    sentence, whichever of its numbers asks."""
    return frozenset(int(year) for year in _YEAR.findall(words))


@lru_cache(maxsize=16)
def _periods_named(words: str) -> tuple[int, ...]:
    # Each number of a sentence asks for its sentence's periods: a wall that is one sentence
    # is read once, not once per number searched.
    years = sorted({int(year) for year in _YEAR.findall(words)})
    return tuple(
        sorted({later - earlier for i, earlier in enumerate(years) for later in years[i + 1 :]})
    )


# "2017-2019", "from 2017 to 2019", "fiscal 2017 through fiscal 2019": a span of years.
YEAR_SPAN = re.compile(
    r"\b((?:19|20)\d\d)[ \t]*(?:-|\u2013|\u2014|to|through|thru)[ \t]*(?:fiscal[ \t]+|FY[ \t]*)?"
    r"((?:19|20)\d\d)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=16)
def spans_years(words: str) -> bool:
    """The sentence names a span of three periods or more ("averaged 2.7% over fiscal
    2017-2019"): an average it states is of all of them."""
    return any(int(b) - int(a) >= 2 for a, b in YEAR_SPAN.findall(words))
