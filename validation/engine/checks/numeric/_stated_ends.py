"""A change to a level the sentence states keeps the direction its words give (for the
fixpoint's search, :mod:`._search`, and the closed derived search, :mod:`._derive`).

"EMEA's share fell 8.3 points to 23.1%" ends at 23.1% from a higher level: a difference
of 23.1 and a lower value is a rise to it, not the change the sentence states, however
well its value lands (a wrong "to 31.4%" passed as 31.4 - 23.1 = 8.3). Only a difference
that takes the level written right after the change, marked by "to", is judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from validation.engine.checks.numeric._cues import Cue
from validation.engine.checks.numeric._derive_accept import stated_before
from validation.engine.checks.numeric._derive_candidates import Candidate, written_half
from validation.engine.checks.numeric._derive_pool import STATED
from validation.engine.checks.numeric._derive_pool import Operand as DerivedOperand
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._operations import Operand
from validation.engine.checks.numeric._types import NumberMention

_REACH = 48  # characters between the change and the level it goes to


def against_end(mention: NumberMention, cue: Cue, operands: Sequence[Operand]) -> bool:
    """The difference reaches the level the change goes "to" from the side its words
    rule out: a fall (`cue.direction` -1) from below, a rise (1) from above."""
    if not cue.direction or len(operands) != 2:
        return False
    for end, start in (operands, operands[::-1]):
        if end.mark == "to" and mention.end <= end.position <= mention.end + _REACH:
            return (abs(start.value) - abs(end.value)) * cue.direction > 0
    return False


def keeping_direction(
    look: Callable[..., Iterator[Candidate]],
    body: str,
    mention: NumberMention,
    operands: Sequence[DerivedOperand],
    direction: int,
) -> Callable[..., Iterator[Candidate]]:
    """The closed search's `look` (:mod:`._derive`) without the differences that reach
    the level the sentence states right after the change, after "to", from the side the
    words rule out (`look` itself when the words give no direction or no such level)."""
    end = _level_to(body, mention, operands) if direction else None
    if end is None:
        return look

    def kept(*arguments: object, **options: object) -> Iterator[Candidate]:
        for candidate in look(*arguments, **options):
            operation, used = candidate[3], candidate[4]
            if operation in ("difference", "points") and end in used:
                others = [o for o in used if isinstance(o, DerivedOperand) and o is not end]
                if len(others) == 1 and (abs(others[0].value) - abs(end.value)) * direction > 0:
                    continue
            yield candidate

    return kept


_TO = re.compile(
    r"(?:[ \t]+(?:percentage[ \t]+)?(?:points?|pts|pp))?"  # "8.3 points to"
    r"[ \t]+to[ \t]+(?:(?:about|roughly|around|approximately|nearly|some) )?"
)


def _level_to(
    body: str, mention: NumberMention, operands: Sequence[DerivedOperand]
) -> DerivedOperand | None:
    """The number of the claim's sentence written right after it and "to" ("fell 8.3
    points to 23.1%"), among its operands."""
    found = _TO.match(body, mention.end, mention.end + _REACH)
    if found is None:
        return None
    return next(
        (
            operand
            for operand in operands
            if operand.strength == STATED
            and operand.reported
            and body.startswith(operand.text, found.end())
        ),
        None,
    )


def from_its_step(
    found: Iterator[Candidate],
    body: str,
    mention: NumberMention,
    place: int,
    operands: Sequence[DerivedOperand],
    end: DerivedOperand | None,
    direction: int = 0,
) -> tuple[list[Candidate], DerivedOperand | None]:
    """Of the candidates `found`, the percentage changes ending at `end` that start where
    the change stated just before the claim puts them ("rose by $20 thousand, or about
    0.5%, to $3,777 thousand": from 3,757), and that change. The words give the percentage
    one value, so the claim is weighed against those alone, and the start the change
    implies is no cell taken in place of the change. With no `end`, a change the report
    derived from two cells ("fell by 0.90 points, or about 32.1%", "adding $653.7 million,
    or about 81%"): that change over the cell it started from (the higher for a fall, the
    lower for a rise; either where the words say neither). None when no amount stands
    right before the claim with ", or" between. `place`: the claim's place among the
    report's numbers."""
    if _OR_ABOUT.search(body, max(0, mention.start - _REACH), mention.start) is None:
        return [], None
    step = stated_before(operands, place)
    if step is None or step.percent or step is end:
        return [], None
    if end is None:
        return _over_its_start(step, operands, direction), step
    slack = max(abs(step.value) * 0.01, step.digits / 2)
    kept = [
        candidate
        for candidate in found
        if candidate[3] == "percent change"
        and candidate[4][:1] == (end,)
        and isinstance(start := candidate[4][1], DerivedOperand)
        and abs(abs(end.value - start.value) - abs(step.value)) <= slack
    ]
    return kept, step


def _over_its_start(
    step: DerivedOperand, operands: Sequence[DerivedOperand], direction: int
) -> list[Candidate]:
    """A derived change over each of the two cells it was taken from that it may have
    started at (`from_its_step`), unless the sentence states another level of their row
    before the change's own end ("rose by $1,149 thousand, or 1.2%, ... peaking at $96,037
    thousand, and then fell ... to $84,380 thousand": the first level it states is the
    change's end, and the next is another change's)."""
    if len(step.sources) != 2:
        return []
    cells = {o.entry: o for o in operands if o.entry in step.sources and o.value}
    rows = {cell.row for cell in cells.values()}
    if len(cells) != 2:
        return []
    levels = sorted((o for o in operands if o.strength == STATED and o.row in rows), key=_place)
    for level in levels:  # in the sentence's order, up to the change's own end, if stated
        if level.entry in step.sources:
            break
        return []  # the sentence states another level of the row ("from 350.4"): its own
    ends = sorted(cells.values(), key=lambda cell: abs(cell.value))
    if direction:
        ends = [ends[0] if direction > 0 else ends[1]]
    return [
        (0, abs(step.value / start.value) * 100, "{} / {} * 100", "percent change", (step, start))
        for start in ends
    ]


def of_its_rate(
    body: str, mention: NumberMention, operands: Sequence[DerivedOperand]
) -> list[Candidate]:
    """The change a rate written right after the claim was derived over ("fell by $133
    million, or about 24.5%": 24.5% is (543 - 410) / 543, so the change is 543 - 410):
    the difference of the rate's two cells, when the report derived the rate from two
    cells of the pool. The words give the change one value, weighed alone."""
    after = _OR_AFTER.match(body, mention.end, mention.end + _REACH)
    if after is None or mention.is_percent:
        return []
    rate = next(
        (
            o
            for o in operands
            if o.strength == STATED and o.percent and body.startswith(o.text, after.end())
        ),
        None,
    )
    if rate is None or len(rate.sources) != 2:
        return []
    cells = {o.entry: o for o in operands if o.entry in rate.sources and not o.percent}
    if len(cells) != 2:
        return []
    first, second = sorted(cells.values(), key=lambda cell: -abs(cell.value))
    change = abs(first.value - second.value)
    if not any(
        base.value
        and abs(change / abs(base.value) * 100 - abs(rate.value)) <= 0.01 * abs(rate.value)
        for base in (first, second)
    ):
        return []  # the rate is no change of its two cells (a share of one in the other)
    return [(0, change, "{} - {}", "difference", (first, second))]


# ", or about 0.5%": an alternate form of the number just before it.
_OR_ABOUT = re.compile(
    r",[ \t]*or(?:[ \t]+(?:about|roughly|around|approximately|nearly|some|just))?[ \t]*\Z"
)


_OR_AFTER = re.compile(
    r",[ \t]*or(?:[ \t]+(?:about|roughly|around|approximately|nearly|some|just))?[ \t]*"
)

# "by about 11.9% to 3,732 million", "up $9.0 million to $157.6 million": the claim's end.
# (", or about 0.5%, to $3,777 thousand": the comma closes the aside, the level is still its)
_TO_END = re.compile(r",?[ \t]+to[ \t]+(?:(?:about|roughly|around|approximately|nearly|some) )?")


def stated_end(
    body: str, claims: Sequence[Claim], position: int, operands: Sequence[DerivedOperand]
) -> DerivedOperand | None:
    """The level a change ends at, when the change is followed by "to" and a stated number
    ("fell approximately 2.7% to 21,829 thousand"): the one operand the change is of. The
    words fix its operation and one operand before any value is looked at, so its other
    operand is sought among those candidates alone. The change's other form may stand
    between them: "rose by $3.8 million, or roughly 18.6%, to $24.2 million"."""
    if position + 1 >= len(claims):
        return None
    mention, following = claims[position].mention, claims[position + 1].mention
    if (
        following.is_percent
        and not mention.is_percent
        and position + 2 < len(claims)
        and _OR_ABOUT.fullmatch(body, mention.end, following.start)
    ):
        mention, following = following, claims[position + 2].mention
    if not _TO_END.fullmatch(body, mention.end, following.start) or following.is_percent:
        return None
    return next(
        (
            operand
            for operand in operands
            if operand.strength == STATED and operand.reported and operand.text == following.text
        ),
        None,
    )


def ending_at(
    found: Iterator[Candidate], end: DerivedOperand, twin: bool = False, direction: int = 0
) -> Iterator[Candidate]:
    """The candidates that are a change ending at `end`: a difference (of amounts, or of
    rates in points) with it, or a percentage change from another level to it. With
    `twin`, those that take the level as its table writes it instead, at a scale the table
    does not state ("to $24.2 million": 24,193 - 20,402 of a table in thousands is a change
    of 3,791 thousand), reached from the side the words give (`direction`: "rose" 1)
    only."""
    for candidate in found:
        operation, used = candidate[3], candidate[4]
        if operation in ("difference", "points"):
            scale = max((_scale_of(operand, end) for operand in used), default=0.0)
        elif operation == "percent change" and used:
            scale = _scale_of(used[0], end)
        else:
            continue
        if scale == 1.0 and not twin:
            yield candidate
        elif twin and scale > 1.0 and all(isinstance(o, str) or o.unscaled for o in used):
            level = next(o for o in used if not isinstance(o, str) and _scale_of(o, end) > 1)
            start = [o for o in used if not isinstance(o, str) and o is not level]
            if len(start) == 1 and (abs(start[0].value) - abs(level.value)) * direction > 0:
                continue  # "rose ... to" the smaller of the two: no rise to it
            rate = operation == "percent change"  # a rate keeps no scale
            yield candidate if rate else (candidate[0], candidate[1] * scale, *candidate[2:])


def has_twin(operands: Sequence[DerivedOperand], end: DerivedOperand) -> bool:
    """Some operand is the stated level as a table that states no scale writes it."""
    return any(_scale_of(operand, end) > 1.0 for operand in operands)


def _scale_of(operand: DerivedOperand | str, end: DerivedOperand) -> float:
    """1 for the stated level itself; the scale at which a cell of a table that states no
    scale writes the level's rounded figure (24,193 for "$24.2 million": 1,000); else 0."""
    if operand is end:
        return 1.0
    if isinstance(operand, str) or not operand.unscaled or operand.percent or end.percent:
        return 0.0
    half = written_half(end)
    return next((s for s in (1e3, 1e6, 1e9) if abs(operand.value * s - end.value) <= half), 0.0)


def _place(operand: DerivedOperand) -> int:
    return operand.position
