"""The look at what a rate's own words specify (:mod:`._derive`, issue 25).

A change in points, an average of rates or a small percentage is written to one decimal on
a small number: its rounding window is wide, and among every candidate of the report a hit
there is rarely below the chance the search accepts. Yet a careful reader does not weigh it
against every candidate: the words name the line items ("the discount rate"), the periods
("over fiscal 2017-2019", "in 2017") and the operation ("averaged", "fell by ... points",
"the gap"), and only the candidates that agree with all three are the writer's. Their chance
is counted among themselves.

The *specified* operands are the evidence cells (never a result the report derives) of the
rows the claim's own clause or label names (when they name none, those its sentence names
and those of the cells it states), of the periods they name:

- a span of three periods or more ("over fiscal 2017-2019"): the cells of those years, a
  change over it from its first year to its last;
- one year in the claim's own clause ("1.1 points in 2017"): the cells of that year, and
  the candidates are the gaps between two line items of it (a difference or points); a
  last look takes the rows of every cell the report states too (the gap between two line
  items the report discusses);
- a change to a level the sentence states ("rose 1.1 points to 50.8%"): the other periods
  of that level's own row, and every candidate ends at the level.

Otherwise a pair lies in one row (one line item's periods), and where the sentence names
years, one of its cells is of them. The words must name an operation: with none, there is
no specified look (a number written as points names its own). An amount's words specify
an average of one line item's periods ("the three-year average is $83 million"), or a gap
of two lines in the one year its clause names ("$0.09 below basic in fiscal 2019"); a
percentage's, a change of one line item's amounts too ("from $81,912 thousand to $81,731
thousand, a decline of about 0.2%"). A sentence naming no row and stating no cell takes
the rows of the sentence before it (its subject: "It then eased ..."). When every
candidate of a look lands on the claim, the words left one value: `_derive_accept._search`
accepts it whatever its chance (docs/derivations.md, "Specified whole").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from validation.engine.checks.numeric._counts_said import says_total
from validation.engine.checks.numeric._cues import _WORD, _direction
from validation.engine.checks.numeric._derive_candidates import Candidate, candidates
from validation.engine.checks.numeric._derive_naming import named_rows
from validation.engine.checks.numeric._derive_pool import (
    NAMED,
    STATED,
    Operand,
    _own_words,
    _rows,
    direction_of,
)
from validation.engine.checks.numeric._derive_rows import _Rows
from validation.engine.checks.numeric._derive_years import YEAR_SPAN, periods_named, years_named
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim

# A gap between two line items of one period is a difference of them, in points or not.
_GAP_OPERATIONS = frozenset(("points", "difference"))
# A percentage of a line item's amounts its words specify: their change over time.
_CHANGES = frozenset(("percent change", "CAGR"))
_MEAN = frozenset(("average",))
_DIFFERENCE = frozenset(("difference",))
_LEVEL_WORDS = frozenset(("to", "from"))
_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")
# "rose 1.1 points to 50.8%", "up 2.4% to 31.0%": a change, then the level it ends at.
_TO_END = re.compile(
    r"(?:[ \t]+(?:percentage[ \t]+)?(?:points?|pts|pp|ppts?))?,?[ \t]+to[ \t]+"
    r"(?:(?:about|roughly|around|approximately|nearly|some)[ \t]+)?"
)


@dataclass(frozen=True, slots=True)
class Spec:
    cells: tuple[Operand, ...]  # the specified operands
    gap: bool = False  # two line items of the one year the claim's clause names
    span: tuple[int, int] | None = None  # the first and last year of a span it names
    end: Operand | None = None  # the level a change ends at (its row's other periods)
    # What the sentence says of its periods and direction (`_derive_candidates.candidates`).
    periods: tuple[int, ...] = ()
    years: frozenset[int] = frozenset()
    direction: int = 0
    count: int = 0  # how many values an average is of, when its words say ("three-year")
    # Its words give the claim one year ("2019: $0.5 million") or make it a level a change
    # runs to or from ("to $1.12 thousand").
    dated: bool = False
    # The direction the claim's own clause says ("eased by 0.3 points"), not its sentence's.
    own_direction: int = 0
    # The cells are of the rows the claim's own clause or label names ("Total charges
    # increased by $130 million"): an amount's words may specify their change too.
    owned: bool = False


def specify(
    claims: Sequence[Claim],
    position: int,
    index: EvidenceIndex,
    sentence: tuple[int, int],
    words: str,
    operands: Sequence[Operand],
    body: str,
    count: int = 0,
    dated: bool = False,
) -> tuple[Spec, ...]:
    """The operands a number's words specify (a percentage, points, or an average of
    amounts), narrowest first: those of the rows its own clause or label names, then those
    of the rows of the cells its sentence states, then of the rows it names or states (of
    the sentence before, when it names and states none). `count`: how many values an
    average is of, when the words say; `dated`: the words give an amount one year (or
    make it a level: "to $1.12 thousand"), and it is no average of years."""
    mention = claims[position].mention
    if mention.in_table:
        return _row_spec(operands)
    before = body[max(sentence[0], mention.start - 12) : mention.start].split()
    dated = dated or (bool(before) and before[-1].lower() in _LEVEL_WORDS)
    rows = _rows(index)
    clause = _own_words(claims, position, sentence, words)
    own, named = named_rows(rows, mention.label, words, clause)
    if not own and says_total(clause[0]):
        # "Total charges increased by ...": the one total row the sentence's words reach
        # (a total's label names no line by its words).
        totals = {o.row for o in operands if o.strength >= NAMED and _is_total(rows, o.row)}
        own = list(totals) if len(totals) == 1 else own
    end = _end(body, claims, position, operands)
    span = _span(words)
    # The year of the claim's own clause: the words after it first ("1.1 points in 2017").
    years = {int(year) for year in _YEAR.findall(clause[1])} or {
        int(year) for year in _YEAR.findall(clause[0])
    }
    gap = end is None and span is None and len(years) == 1
    said = (tuple(periods_named(words)), years_named(words))
    direction = direction_of(body, claims, position, *sentence)
    own_direction = _direction(_WORD.findall(clause[0].lower()))
    looks = [{end.row}] if end is not None else [set(own)]
    if end is None:
        stated = {o.row for o in operands if o.strength == STATED}
        looks.append({*own, *stated})  # the line items its sentence states, then names
        looks.append({*own, *named, *stated})
        if not looks[-1]:  # "It then eased ...": the rows of the sentence before
            looks[-1] = _antecedent(body, claims, sentence, rows, operands)
    if gap:  # a gap between two line items the report states, in the year its clause names
        looks.append({*looks[-1], *(o.row for o in operands if o.reported)})
    found: list[Spec] = []
    for wanted in looks:
        cells = tuple(
            operand
            for operand in operands
            if operand.row >= 0
            and operand.row in wanted
            and operand.entry >= 0
            and (span is None or span[0] <= operand.year <= span[1])
            and (not gap or operand.year in years)
        )
        if len(cells) >= 2 and all(cells != spec.cells for spec in found):
            owned = end is None and wanted is looks[0] and bool(own)
            found.append(
                Spec(cells, gap, span, end, *said, direction, count, dated, own_direction, owned)
            )
    return tuple(found)


def _against(direction: int, operation: str, first: Operand, second: Operand) -> bool:
    """A change of one line item between two dated periods that runs against the direction
    its words say (a rise where they say "eased", a fall where they say "rose")."""
    if not direction or operation not in _GAP_OPERATIONS or not first.year or not second.year:
        return False
    earlier, later = sorted((first, second), key=lambda cell: cell.year)
    return earlier.year != later.year and (later.value - earlier.value) * direction < 0


def _is_total(rows: _Rows, row: int) -> bool:
    return row >= 0 and any(row in found for found in rows.totals.values())


def _size(candidate: Candidate) -> int:
    """How many values an average candidate is of (a group's, from its formula)."""
    used = candidate[4]
    if used:
        return len(used)
    size = candidate[2].rsplit(") / ", 1)[-1]
    return int(size) if size.isdigit() else 0


_LOOK_BACK = 600  # characters searched back for the sentence before a claim's


def _antecedent(
    body: str,
    claims: Sequence[Claim],
    sentence: tuple[int, int],
    rows: _Rows,
    operands: Sequence[Operand],
) -> set[int]:
    """The rows the sentence before names or states, in the same paragraph or bullet: the
    subject of a sentence that names none ("It then eased by 0.3 points", "The three-year
    average is ...")."""
    low = sentence[0]
    start = max(body.rfind("\n", max(0, low - _LOOK_BACK), low) + 1, low - _LOOK_BACK)
    before = body[start:low].rstrip()
    if not before.endswith((".", "!", "?", ";")):
        return set()
    cut = max(before.rfind(end, 0, len(before) - 1) for end in (". ", "! ", "? ", "; "))
    first = start + cut + 2 if cut >= 0 else start
    _, named = named_rows(rows, "", body[first:low])
    stated = {c.index for c in claims if first <= c.mention.start < low and c.hit is not None}
    return {*named, *(o.row for o in operands if o.position in stated and o.row >= 0)}


def _span(words: str) -> tuple[int, int] | None:
    """The first and last year of a span of three periods or more the sentence names."""
    for first, last in YEAR_SPAN.findall(words):
        if int(last) - int(first) >= 2:
            return int(first), int(last)
    return None


def _end(
    body: str, claims: Sequence[Claim], position: int, operands: Sequence[Operand]
) -> Operand | None:
    """The cell a change ends at: the change followed by "to" and a number of its
    sentence that is an evidence cell ("rose 1.1 points to 50.8%")."""
    if position + 1 >= len(claims):
        return None
    mention, following = claims[position].mention, claims[position + 1].mention
    if not _TO_END.fullmatch(body, mention.end, following.start):
        return None
    return next(
        (
            operand
            for operand in operands
            if operand.strength == STATED
            and operand.row >= 0
            and operand.position == claims[position + 1].index
        ),
        None,
    )


def _row_spec(operands: Sequence[Operand]) -> tuple[Spec, ...]:
    """A cell of the report's own table under a header that names a change ("| 6,083.2 |
    6,040.0 | +0.7% |" under "Change"): the amounts its row states are its operands."""
    cells = tuple(o for o in operands if o.strength == STATED and not o.percent)
    return (Spec(cells),) if len(cells) >= 2 else ()


def specified(spec: Spec, kind: str, only: frozenset[str]) -> Iterator[Candidate]:
    """The candidates of the specified operands, in the operations the words name: a pair of
    one row (or, for a gap, of one period), or a row's group; ending at the level, if any."""
    if kind == "amount" and spec.gap:  # "$0.09 below basic in fiscal 2019": two lines' gap
        only = only & _DIFFERENCE
    elif kind == "amount":  # an amount's words specify an average of one line item's periods
        # (or, of the line its own clause names, its change: "Total charges increased by")
        only = only & (_MEAN | _DIFFERENCE if spec.owned else _MEAN)
        if spec.end is not None or spec.dated:
            return  # one year's amount ("2019: $0.5 million"), a level: no average of years
    if kind not in ("points", "percent", "amount") or not only:
        return
    # A percentage is of rates, or a change of one line item's amounts ("from $81.9 million
    # to $81.7 million, a decline of about 0.2%"): an amount is no rate's operand otherwise.
    cells = spec.cells if kind != "percent" else [cell for cell in spec.cells if cell.percent]
    if kind == "percent" and not spec.gap and only & _CHANGES:
        cells = list(spec.cells)
    span = spec.span is not None
    for candidate in candidates(
        cells, kind, spec.periods, spec.direction, only, years=spec.years, span=span
    ):
        used = [cell for cell in candidate[4] if isinstance(cell, Operand)]
        if candidate[0] != int(candidate[0]):
            continue  # two cells whose places do not fit the operation
        amounts = not all(cell.percent for cell in used)
        if kind == "percent" and amounts and candidate[3] not in _CHANGES:
            continue  # a share or a multiple of amounts: `_derive_shares` says which
        if spec.end is not None and spec.end not in used:
            continue
        if spec.count and candidate[3] == "average" and _size(candidate) != spec.count:
            continue  # "the three-year average": of three values, not of two
        if len(used) == 2:
            first, second = used
            if spec.gap and not (candidate[3] in _GAP_OPERATIONS and first.row != second.row):
                continue
            if not spec.gap and first.row != second.row:
                continue
            over = spec.span is not None and candidate[3] != "average"
            if over and {first.year, second.year} != set(spec.span or ()):
                continue  # a change over a span is from its first year to its last
            if not spec.gap and _against(spec.own_direction, candidate[3], first, second):
                continue  # "eased by 0.3 points": never the rise between two of its years
        elif spec.gap or spec.end is not None:
            continue
        yield candidate
