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
from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import STATED
from validation.engine.checks.numeric._derive_pool import Operand as DerivedOperand
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
    end: DerivedOperand,
) -> tuple[list[Candidate], DerivedOperand | None]:
    """Of the candidates `found`, the percentage changes ending at `end` that start where
    the change stated just before the claim puts them ("rose by $20 thousand, or about
    0.5%, to $3,777 thousand": from 3,757), and that change. The words give the percentage
    one value, so the claim is weighed against those alone, and the start the change
    implies is no cell taken in place of the change. None when no amount stands right
    before the claim with ", or" between. `place`: the claim's place among the report's
    numbers."""
    if _OR_ABOUT.search(body, max(0, mention.start - _REACH), mention.start) is None:
        return [], None
    step = stated_before(operands, place)
    if step is None or step.percent or step is end:
        return [], None
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


# ", or about 0.5%": an alternate form of the number just before it.
_OR_ABOUT = re.compile(
    r",[ \t]*or(?:[ \t]+(?:about|roughly|around|approximately|nearly|some|just))?[ \t]*\Z"
)
