"""What the words around a number say it is: the result of which operation.

"a decrease of $652 million", "averaged 27.9 percent", "represents 23.5% of",
"up 2.4 percentage points", "1.6 times", "a CAGR of 0.6%", "in total",
"Subtracting A from B gives C": a number is a *result* only when its words make
it one. The words are read by meaning, one word (or fixed phrase) at a time,
from the clause the number stands in: what comes before it in its clause, and
what follows it up to the next number. Each word names a kind of result:

- CHANGE   increase, decline, fell, rose, up, down, lower, difference, gap, ...
- SUM      total, combined, together, sum, aggregate, in all, ...
- MEAN     average, averaged, mean, ...
- SHARE    share, proportion, represents, accounts for, makes up, "X% of", ...
- MULTIPLE times, multiple, ratio, "x", -fold, ...
- POINTS   percentage points, basis points, "points"
- GAP      margin of safety, upside, downside, discount, premium (price against value)
- CAGR     CAGR, compound, annualized, annual growth, ...
- PRODUCT  multiplied, "X% of Y is Z" (Z is the product)
- DIVIDE   divided, dividing: a share, a ratio, or a total divided by a count

A bound is read too: "less than 1%" and "under 1%" are met from below, "more
than 40%", "over", "at least" from above; "about", "roughly", "nearly" widen.

Linear: each number reads a bounded window of its own clause (at most
`_BEFORE` characters before it and `_AFTER` after), so a wall of one cue costs
the same per number as a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from validation.engine.checks.numeric._counts_said import _COUNT_WORDS, said_count
from validation.engine.checks.numeric._labels import wordset

CHANGE = "change"
SUM = "sum"
MEAN = "mean"
SHARE = "share"
MULTIPLE = "multiple"
POINTS = "points"
CAGR = "cagr"
PRODUCT = "product"
DIVIDE = "divide"
GAP = "gap"

_BEFORE = 140  # characters of the clause before a number that may name its operation
_AFTER = 60  # characters after it, up to the next number or a comma
_OBJECT_LIST = frozenset(("and", "plus", "from", "by", "to", "with", "then", "the"))
_OBJECT_WORDS = 2  # "Subtracting $519", "Adding the $47": the verb's object
_AFTER_WORDS = 4  # "$94 million lower in 2019", "1.5 times", "15.90% of the base"

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")

_KINDS: dict[str, str] = {}


def _learn(kind: str, words: str) -> None:
    for word in words.split():
        _KINDS[word] = kind


_learn(
    CHANGE,
    """change changes changed changing difference differences differ differs differed gap
    gaps delta variance swing swings increase increases increased increasing decrease
    decreases decreased decreasing rise rises rose risen rising grew grow grows growing
    growth gain gains gained decline declines declined declining fell fall falls fallen
    falling drop drops dropped dropping dip dipped dips reduction reductions reduced reduce
    reduces lower higher up down less fewer more above below exceed exceeds exceeded
    exceeding shortfall climb climbed
    climbs jump jumped jumps improve improved improvement improvements deteriorated
    deterioration widened widening narrowed narrowing expanded expansion contracted
    contraction shrank shrink shrunk surged surge soared soar plunged plunge slipped slid
    sank advanced retreated moved movement net yoy year-over-year year-on-year
    outperformed underperformed trailed exceeded lagged""",
)
# A margin of safety, discount, premium, upside or downside is a percent gap between a
# price and a value or target: a change, whose operands are prices, values and targets.
_learn(GAP, "safety upside downside discount premium")
_learn(
    SUM,
    """total totals totaled totalled totaling totalling combined combine combining together
    add adds
    sum sums summed aggregate aggregated altogether cumulative
    cumulatively collectively jointly""",
)
_learn(MEAN, "average averages averaged averaging avg mean means midpoint mid-point")
_learn(
    SHARE,
    """share proportion proportions portion represent represents represented representing
    account accounts accounted accounting constitute constitutes constituted constituting
    comprise comprises comprised comprising percentage fraction weight weighting""",
)
_learn(MULTIPLE, "times multiple multiples ratio fold twice")
_learn(DIVIDE, "division")
_learn(CAGR, "cagr compound compounded compounding annualized annualised")
_learn(PRODUCT, "product")

# Verbs of calculation: they name the operation of the clause's result even when the
# operands stand between them and it ("Adding 47, 51 and 64 gives 162").
_VERBS: dict[str, str] = {}
for _kind, _words in (
    (CHANGE, "subtract subtracts subtracted subtracting deduct deducted deducting"),
    (SUM, "add adds adding summing sum combining totaling totalling"),
    (MEAN, "averaging average"),
    (DIVIDE, "divide divided dividing"),
    (PRODUCT, "multiply multiplied multiplying"),
):
    for _word in _words.split():
        _VERBS[_word] = _kind

# Fixed phrases, read on the words joined by single spaces.
_PHRASES = (
    ("percentage point", POINTS),
    ("percentage points", POINTS),
    ("basis point", POINTS),
    ("basis points", POINTS),
    ("made up", SHARE),
    ("makes up", SHARE),
    ("make up", SHARE),
    ("in all", SUM),
    ("on average", MEAN),
    ("annual growth", CAGR),
    ("annual rate", CAGR),
    ("a year", CAGR),
    ("per year", CAGR),
    ("per annum", CAGR),
)
_PHRASE_FIRST = frozenset(phrase.split()[0] for phrase, _ in _PHRASES)

# Words right before a number that make it a bound, not a point.
_BELOW = frozenset(
    ("less than", "fewer than", "under", "below", "up to", "at most", "not more than")
)
_ABOVE = frozenset(
    ("more than", "over", "above", "at least", "upwards of", "in excess of", "exceeding")
)
_ADDING = wordset("add adds added adding sum sums summed summing total totals totaled come comes")
_NEAR = wordset("about approximately approx around roughly nearly almost some circa estimated")
# "just under", "slightly over": a number close to the one written, on one side of it.
_JUST = wordset("just slightly barely")
_JUST_WHAT = wordset("under below over above")


@dataclass(frozen=True, slots=True)
class Cue:
    """What a number's words say: the kinds of result it may be, whether "of"
    follows it ("23.5% of total assets"), and a bound or hedge before it."""

    kinds: frozenset[str] = frozenset()
    of_after: bool = False
    bound: str = ""  # "below", "above" or ""
    hedged: bool = False
    points_after: bool = False  # "0.6 points lower": a difference of rates
    alternate: bool = False  # "an increase of 190, or 22.57%": the same result again
    years: int = 0  # the span a compound rate is over ("from 2017 to 2019", "five years")
    count: int = 0  # how many numbers a sum or an average is of ("the two figures")
    year: int = 0  # the year the number is of ("$148 million in 2018", "2019: $5,798K")
    direction: int = 0  # a rise (1) or a fall (-1) its words say it is

    @property
    def named(self) -> bool:
        return bool(self.kinds) or self.of_after


NO_CUE = Cue()


def cue_of(
    body: str,
    start: int,
    end: int,
    clause: tuple[int, int],
    previous_end: int,
    next_start: int,
) -> Cue:
    """The cue of the number at [start, end) of `body`: the words of its `clause`
    since the previous number (`previous_end`) and after it up to the next one
    (`next_start`). Before the previous number, only a verb of calculation
    ("Subtracting A from B gives C", "Dividing A by B ... gives C") still speaks
    for it: other words there are the labels of the operands."""
    clause_start, clause_end = clause
    low = max(clause_start, start - _BEFORE)
    high = min(clause_end, next_start, end + _AFTER)
    comma = body.find(",", end, high)  # what follows a comma speaks of the next number
    if comma >= 0:
        high = comma
    near_start = max(low, min(previous_end, start))
    kinds, of_after, bound, hedged, points_after, alternate, direction = _read_words(
        _words_of(body[low:near_start]) if near_start > low else (),
        _words_of(body[near_start:start]),
        _words_of(body[end:high])[:_AFTER_WORDS] if high > end else (),
    )
    years = count = 0
    if CAGR in kinds or SUM in kinds or MEAN in kinds:
        clause_text = body[clause_start : min(clause_end, clause_start + _CLAUSE_READ)]
        years = _span(clause_text) if CAGR in kinds else 0
        count = _count(clause_text) if SUM in kinds or MEAN in kinds else 0
    year = year_of(body, start, end, max(previous_end, clause_start), next_start)
    return Cue(
        kinds,
        of_after,
        bound,
        hedged,
        points_after,
        alternate,
        years,
        count,
        year,
        direction,
    )


# What the words say is read once per distinct words (a report's numbers stand among the
# same few words again and again: "up", "to $", "of the total").
@lru_cache(maxsize=4096)
def _read_words(
    far_words: tuple[str, ...], before_words: tuple[str, ...], after_words: tuple[str, ...]
) -> tuple[frozenset[str], bool, str, bool, bool, bool, int]:
    """(kinds, of_after, bound, hedged, points_after, alternate, direction) from the words
    of the number's clause before the previous number (`far_words`), since it
    (`before_words`) and after the number (`after_words`)."""
    before, after = list(before_words), list(after_words)
    if _operator_after(after):
        after = []  # "$15.5B less capex": an operand; the words after are the other's
    bound, hedged, taken = _bound(before)
    kinds: set[str] = set()
    _read(before[: len(before) - taken], kinds)  # "more than 40%" is a bound, not a change
    if _level(before):
        kinds.discard(CHANGE)  # "rose from $148 million to $302 million": two levels
    _read(after, kinds)
    # A verb of calculation names the operation of a result it stands before, with
    # other words between ("and dividing by two gives $411.5"), but not of the
    # number it takes as its object ("Subtracting $519 from $592").
    far = list(far_words)
    if before and all(word in _OBJECT_LIST for word in before):
        far = []  # "Adding 2 and €3M": the verb's objects go on, its result is still to come
    for word in far + before[: max(0, len(before) - _OBJECT_WORDS)]:
        kind = _VERBS.get(word)
        if kind is not None:
            kinds.add(kind)
    of_after = bool(after) and after[0] == "of"
    points_after = bool(after) and after[0] in _POINT_WORDS
    if points_after:
        kinds.add(POINTS)
    alternate = " ".join(before) in _ALTERNATION
    direction = _direction(before[: len(before) - taken]) or _direction(after)
    return frozenset(kinds), of_after, bound, hedged, points_after, alternate, direction


def _words_in(text: str) -> list[str]:
    """The words of `text`, lower-cased: each distinct text read once (the words between
    the numbers of a long report repeat)."""
    return list(_words_of(text))


@lru_cache(maxsize=4096)
def _words_of(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.lower()))


def _operator_after(after: list[str]) -> bool:
    """ "less" or "minus" right after a number is subtraction, the number its first
    operand ("operating cash flow of $15.5B less capex"), unless a comparison follows
    ("$5 million less than", "$2 million less in 2019": the number is the difference)."""
    return len(after) > 1 and after[0] in ("less", "minus") and after[1] not in _COMPARED_WORDS


_COMPARED_WORDS = wordset(
    """than in on for at during over compared versus vs year yoy last this per from
    respectively"""
)


def _direction(words: list[str]) -> int:
    """1 when the nearest word of direction says a rise, -1 a fall, 0 when none does.
    Words that judge a change ("improved", "deteriorated") say no direction: losses that
    improve fall, a margin that improves rises; the words before them may still say one."""
    for word in reversed(words):
        if word in _RISE:
            return 1
        if word in _FALL:
            return -1
    return 0


_RISE = wordset(
    """increase increases increased increasing rise rises rose risen rising grew grow grows
    growing growth gain gains gained up higher more above exceed exceeds exceeded climb
    climbed climbs jump jumped jumps widened expanded expansion surged surge soared soar
    advanced larger bigger greater wider rebounded rallied add adds added adding"""
)
_FALL = wordset(
    """decrease decreases decreased decreasing decline declines declined declining fell fall
    falls fallen falling drop drops dropped dropping dip dipped reduction reduced reduce
    lower down less fewer below shortfall shrank shrink shrunk contracted contraction
    plunged plunge slipped slid sank retreated narrowed smaller narrower eased eases easing
    softened slumped tumbled"""
)


def mark_of(body: str, start: int, previous_end: int) -> str:
    """The word right before a number that says its part in a calculation: "from"
    and "to" (where a change starts and ends), "of", "by", "over", "versus",
    "against" (the base of a share, ratio or change); "" when none."""
    low = max(previous_end, start - _MARK_REACH)
    words = _words_in(body[low:start])
    if not words:
        return ""
    last = words[-1]
    if last in ("the", "a", "an") and len(words) > 1:
        last = words[-2]
    return last if last in _MARKS else ""


_MARK_REACH = 24  # characters before a number read for its mark
_MARKS = frozenset(("from", "to", "of", "by", "over", "versus", "vs", "against"))


def year_of(body: str, start: int, end: int, previous_end: int, next_start: int) -> int:
    """The year the number at [start, end) is of: written right after it ("in 2018",
    "(2019)"), else the last one before it since the previous number ("2019:
    $5,798K"). Bounded: a year that far from the number speaks of another."""
    after = _YEAR_AFTER.match(body, end, min(next_start, end + 36))
    if after is not None:
        return int(after.group(1))
    before = _YEAR.findall(body, max(previous_end, start - _BEFORE), start)
    return int(before[-1]) if before else 0


_MONTH_NAME = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
)
_YEAR_AFTER = re.compile(
    r"[ \t]*(?:\(|,?[ \t]*(?:in|for|as of|as at|at|on|during|of|ended)[ \t]+)?"
    rf"(?:fiscal[ \t]+|FY[ \t]?|{_MONTH_NAME}[ \t]+[0-9]{{1,2}},?[ \t]+)?"
    r"((?:19|20)[0-9]{2})(?![0-9])"
)


# A clause's count and span are read once per clause, not once per number in it (a
# sentence listing thousands of amounts read its 400 characters for each).
@lru_cache(maxsize=512)
def _count(clause: str) -> int:
    """How many numbers a sum or an average is of, when its clause says: "the two
    figures", "three years", "both"; else the years it spans ("2017 to 2019": 3)."""
    said = said_count(clause)
    if said:
        return said
    years = {int(year) for year in _YEAR.findall(clause)}
    span = max(years) - min(years) + 1 if len(years) >= 2 else 0
    return span if span <= 10 else 0


# What may stand between a result and the same result again ("an increase of 190, or
# 22.57%", "0.54, i.e. 54%").
_ALTERNATION = frozenset(
    (
        "or",
        "i e",
        "ie",
        "that is",
        "which is",
        "or about",
        "or roughly",
        "or approximately",
        "or around",
        "or nearly",
        "equivalently",
        "or equivalently",
        "which is about",
        "which is roughly",
    )
)
_YEAR = re.compile(r"(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])")
_YEARS_SPAN = re.compile(
    r"(?i)\b(two|three|four|five|six|seven|eight|nine|ten|[2-9]|10)[ -]years?\b"
)


@lru_cache(maxsize=512)
def _span(clause: str) -> int:
    """The number of years a compound rate is over: the years its clause names
    ("from 2017 to 2019": 2) or says ("over five years", "a 3-year CAGR")."""
    count = _YEARS_SPAN.search(clause)
    if count is not None:
        word = count.group(1).lower()
        return _COUNT_WORDS.get(word) or int(word)
    years = [int(year) for year in _YEAR.findall(clause)]
    return max(years) - min(years) if len(years) >= 2 else 0


_CLAUSE_READ = 400  # characters of a clause read for its years and counts


_POINT_WORDS = frozenset(("point", "points", "pts", "pp", "ppt", "ppts", "bps"))


def _read(words: list[str], kinds: set[str]) -> None:
    count = len(words)
    for position, word in enumerate(words):
        kind = _KINDS.get(word)
        if kind == CHANGE and word == "up" and position and words[position - 1] in _ADDING:
            kind = SUM  # "add up to", "sums up to": a total
        if kind is not None:
            kinds.add(kind)
        if word in _PHRASE_FIRST and position + 1 < count:
            pair = f"{word} {words[position + 1]}"
            for phrase, phrase_kind in _PHRASES:
                if phrase == pair:
                    kinds.add(phrase_kind)


def _level(before: list[str]) -> bool:
    """The number is where a change starts or ends ("to $4.0 million", "from 959
    million", "at 1,377 million"), not the change: unless "to" follows a verb that
    states a result ("comes to", "works out to", "adds up to")."""
    if not before or before[-1] not in _LEVEL:
        return False
    return not (before[-1] == "to" and len(before) > 1 and before[-2] in _RESULT_TO)


_LEVEL = wordset("to from at reach reached reaching versus vs against")
_RESULT_TO = wordset(
    """comes come came coming amounts amount amounted amounting out up equal equals
    equivalent close rounds rounded translates translating corresponds add adds"""
)


def _bound(before: list[str]) -> tuple[str, bool, int]:
    """("below" | "above" | "", hedged, how many of the last words say so) from the
    words right before a number."""
    if len(before) >= 2 and before[-2] in _JUST and before[-1] in _JUST_WHAT:
        return "", True, 2  # "just under 64%": close to 64 %, not anything below it
    for size in (3, 2, 1):
        if len(before) < size:
            continue
        if before[-size:] == ["up", "to"] and len(before) > 2 and before[-3] in _ADDING:
            continue  # "add up to $21 billion" states a total
        words = " ".join(before[-size:])
        if words in _BELOW:
            return "below", False, size
        if words in _ABOVE:
            return "above", False, size
    if before and before[-1] in _NEAR:
        return "", True, 1
    if before[-2:] == ["close", "to"]:
        return "", True, 2
    return "", False, 0


def header_kinds(label: str) -> frozenset[str]:
    """The kinds of result a table cell's label (its row's and column's words: "% change",
    "Share of total") names: a computed column's header speaks for each of its cells."""
    kinds: set[str] = set()
    _read(_WORD.findall(label.lower()), kinds)
    return frozenset(kinds)
