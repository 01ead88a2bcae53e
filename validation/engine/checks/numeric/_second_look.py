"""A second look at the results the closed search (``_derive.rescue``) left unexplained.

:mod:`._misses` judges a result in words before the closed search runs, over the numbers
supported then. A result whose operands the closed search derives afterwards ("sales grew
by $92.0 million (about 11.0%)", the 92.0 itself derived) is judged here again, over the
numbers supported now. A reading found so late is kept only when it is plainly the
writer's: an operation over two cells of one evidence line item (two periods), both
written in the result's own sentence, that does not give the number as written.
Only ``claim.miss`` is set: what follows from an unsupported number was judged before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from validation.engine.checks.numeric import _search as search
from validation.engine.checks.numeric._cues import Cue
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._misses import _FOCUS, _miss
from validation.engine.checks.numeric._misses_stated import same_line_item, stated_beside
from validation.engine.checks.numeric._operations import Miss, Operand
from validation.engine.checks.numeric._support import Grounding, Sentence, laid_out


def second_look(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: Sentence,
    supported: Callable[[Claim], bool],
    eligible: Callable[[Claim], bool],
    cues: dict[int, Cue] | None = None,
) -> None:
    """The results still unexplained after the closed search (``_derive.rescue``) are
    judged again, now that the numbers it derived are supported too: "sales grew by
    $92.0 million (about 11.0%)", where the 92.0 is itself a derived figure, is a slip
    of 92.0 over the base its sentence names. Only ``miss`` is set here: a number that
    follows from an unsupported one was judged so before. `cues`: the fixpoint's, reused."""
    pending = [
        position
        for position, claim in enumerate(claims)
        if eligible(claim) and not supported(claim) and claim.miss is None and not claim.depends
    ]
    if not pending:
        return
    grounding = laid_out(body, claims, index, sentence, cues)
    grounding.supported = [supported(claim) for claim in claims]
    for position in pending:
        claim = claims[position]
        operations, named = search.operations_for(claim.mention, grounding.cue(position))
        if not named:
            continue
        focus = [operand for operand in grounding.pool(position) if operand.in_report][:_FOCUS]
        if len(focus) < 2:
            continue
        miss = _miss(grounding, position, operations, focus)
        if miss is None or _meets(claim, miss):
            continue
        if _one_line_item(grounding, miss) and stated_beside(grounding, position, miss.operands):
            claim.miss = miss


def _one_line_item(grounding: Grounding, miss: Miss) -> bool:
    """The reading is over two cells of one evidence line item (a row in two periods):
    a reading over numbers about different things is a chance, not the writer's."""
    operands = miss.operands
    return (
        miss.stated
        and len(operands) == 2
        and same_line_item(grounding, operands)
        and _cells(grounding, operands[0]) != _cells(grounding, operands[1])
    )


def _meets(claim: Claim, miss: Miss) -> bool:
    """The reading gives the number as written (at its precision): no slip."""
    mention = claim.mention
    shown = abs(miss.expected).quantize(Decimal(1).scaleb(-mention.decimals))
    return miss.scale is None and shown == abs(mention.written)


def _cells(grounding: Grounding, operand: Operand) -> int:
    hit = grounding.claims[operand.key].hit
    return hit.number.entry if hit is not None else -1
