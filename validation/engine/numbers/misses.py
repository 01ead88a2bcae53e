"""Results stated in words that nothing supported gives: slips to fix, or numbers
that follow from an unsupported one.

After the fixpoint (:mod:`validation.engine.numbers.support`), a number still
unsupported is judged here, when its words make it a result:

- it *follows from* an unsupported number when its operation over the report's
  numbers, that one included, meets it (``claim.depends``): "the downside is only
  as good as the estimate". The number stated without words of a result carries
  the finding; in a group of results that explain only each other, each does;
- otherwise it is *close-but-wrong* (``claim.miss``) when its operation over the
  numbers it is stated from gives a value near it: a slip of up to a quarter, two
  digits swapped, or the wrong scale word. Which numbers it is stated from is
  read from where they stand and what they are - in its own sentence first, then
  its paragraph; those whose evidence label its sentence names; the same line
  item in two periods for a change or an average - never from which value comes
  closest. The fix is proposed only when one value fits (``Miss.clear``).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from validation.engine.numbers import operations as ops
from validation.engine.numbers import search
from validation.engine.numbers.extract import NumberMention
from validation.engine.numbers.labels import label_tokens
from validation.engine.numbers.matching import Claim, small_integer
from validation.engine.numbers.operations import Miss, Operand, Outcome
from validation.engine.numbers.support import Grounding

MISS_REACH = 0.25  # a wrong result this close to the right one is a slip, not another number
_FOCUS = 6  # report numbers a wrong result may be stated from, nearest first
_UNSUPPORTED = 3  # unsupported numbers nearby a result may follow from
_UNSUPPORTED_REACH = 600  # characters
_SCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))


def judge(grounding: Grounding) -> None:
    """Set ``miss`` or ``depends`` on each still-unsupported claim its words make a
    result."""
    claims = grounding.claims
    depends: dict[int, tuple[int, ...]] = {}
    for position in grounding.pending:
        roots = _judge(grounding, position)
        if roots:
            depends[position] = roots
    for position, roots in depends.items():
        # A number follows from another only if that one carries the finding.
        if any(root not in depends and claims[root].miss is None for root in roots):
            claims[position].depends = tuple(claims[root].mention.text for root in roots)


def _judge(grounding: Grounding, position: int) -> tuple[int, ...]:
    """The unsupported numbers the claim follows from; or () after setting
    ``claim.miss`` when it is a slip of its operation."""
    claim = grounding.claims[position]
    mention = claim.mention
    cue = grounding.cues[position]
    operations, named = search.operations_for(mention, cue)
    if not named:
        return ()  # a number no words make a result is a citation: an orphan
    pool = grounding.pool(position)
    unsupported = _unsupported_near(grounding, position)
    if unsupported:
        found = search.search(mention, cue, [*pool, *unsupported])
        keys = frozenset(operand.key for operand in unsupported)
        if found is not None and any(operand.key in keys for operand in found.operands):
            return tuple(operand.key for operand in found.operands if operand.key in keys)
    focus = [operand for operand in pool if operand.in_report][:_FOCUS]
    if len(focus) >= 2:
        claim.miss = _miss(grounding, position, operations, focus)
    return ()


def _unsupported_near(grounding: Grounding, position: int) -> list[Operand]:
    """Up to `_UNSUPPORTED` unsupported report numbers nearest the claim."""
    claims, starts, supported = grounding.claims, grounding.starts, grounding.supported
    found: list[Operand] = []
    start = starts[position]
    for step in range(1, 8):
        for other in (position - step, position + step):
            if not 0 <= other < len(claims) or supported[other] or len(found) >= _UNSUPPORTED:
                continue
            mention = claims[other].mention
            if abs(starts[other] - start) > _UNSUPPORTED_REACH or mention.in_range:
                continue
            if not small_integer(mention):
                found.append(search.operand_of(claims[other], other, grounding.index))
    return found


# ------------------------------------------------------------------ which numbers


def _miss(
    grounding: Grounding, position: int, operations: Sequence[str], focus: Sequence[Operand]
) -> Miss | None:
    """The result's operation over the numbers it is stated from, when it gives a
    value near the result: the best-placed hypothesis decides, not the nearest value
    (a hypothesis scores the placement of each of its operands, and more when they
    are one line item in two periods, or as many as the words say)."""
    mention = grounding.claims[position].mention
    cue = grounding.cues[position]
    target = search.target_of(mention, cue)
    percent_target = search.percent_like(mention, cue)
    scores = _placement(grounding, position, focus)
    ranked: list[tuple[float, Outcome]] = []
    for op in operations:
        for operands in search.candidates(op, focus, True, False, at=mention.start):
            if not search.fits_units(op, operands, percent_target):
                continue
            found = search.outcomes(op, operands, mention.has_explicit_scale, cue.years)
            if not found:
                continue
            score = sum(scores[operand.key] for operand in operands)
            if op in _PERIODS and _same_line_item(grounding, operands):
                score += 1.0
            if cue.count and len(operands) == cue.count:
                score += 1.0
            ranked.append((score, _most_precise(found)))
    if not ranked:
        return None
    best = max(score for score, _ in ranked)
    near = [
        (target.distance(outcome), outcome)
        for score, outcome in ranked
        if score >= best - 1e-9 and _slip(mention, outcome, target.distance(outcome))
    ]
    if not near:
        return None
    near.sort(key=lambda entry: entry[0])
    outcome = near[0][1]
    values = {round(_in_units(mention, found), mention.decimals) for _, found in near}
    expected = _in_units(mention, outcome)
    scale = _wrong_scale(mention, outcome)
    return Miss(
        expected=Decimal(repr(expected)) if scale is None else abs(mention.written),
        expression=outcome.expression,
        operands=outcome.operands,
        scale=scale,
        clear=len(values) == 1,
    )


_PERIODS = frozenset((ops.DIFF, ops.CHANGE, ops.MEAN, ops.CAGR))


def _placement(grounding: Grounding, position: int, focus: Sequence[Operand]) -> dict[int, float]:
    """How plainly each candidate operand is one the result is stated from: in the
    result's own sentence (2) or paragraph (1), and named by it (its evidence
    label's words in the result's sentence: 1)."""
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    words = label_tokens(grounding.body[low:high])
    paragraph = grounding.paragraphs[position]
    scores: dict[int, float] = {}
    for operand in focus:
        score = 0.0
        if low <= operand.position < high:
            score += 2.0
        elif operand.paragraph == paragraph:
            score += 1.0
        if _label(grounding.claims[operand.key]) & words:
            score += 1.0
        scores[operand.key] = score
    return scores


def _label(claim: Claim) -> frozenset[str]:
    """What the evidence says a report number is (its row or key), else its own words."""
    if claim.hit is not None:
        return claim.hit.number.tokens
    return claim.mention.tokens


def _same_line_item(grounding: Grounding, operands: Sequence[Operand]) -> bool:
    """Every operand is the same evidence line item (a row in two periods)."""
    labels = [_label(grounding.claims[operand.key]) for operand in operands]
    return bool(labels[0]) and all(label == labels[0] for label in labels[1:])


# ------------------------------------------------------------------ how it misses


def _slip(mention: NumberMention, outcome: Outcome, distance: float) -> bool:
    """The stated number is the outcome with a slip: near it, two digits swapped,
    or at the wrong scale."""
    if distance <= MISS_REACH:
        return True
    return _transposed(mention, _in_units(mention, outcome)) or (
        _wrong_scale(mention, outcome) is not None
    )


def _most_precise(outcomes: Sequence[Outcome]) -> Outcome:
    """The outcome computed from the evidence's own values where the report rounds
    them (the most precise there is), in full units where scales are known."""
    for outcome in outcomes:
        if not outcome.written and any(o.precise is not None for o in outcome.operands):
            return outcome
    return outcomes[0]


def _in_units(mention: NumberMention, outcome: Outcome) -> float:
    """The outcome in the mention's own written units (14.8 for $14.8B)."""
    if outcome.op in ops.SCALE_FREE or outcome.written:
        value = outcome.value
    else:
        value = outcome.value / float(mention.scale)
    return value * 100 if mention.unit == "bp" else value


def _wrong_scale(mention: NumberMention, outcome: Outcome) -> Decimal | None:
    """The scale the mention should carry when only its scale word is wrong
    ("-$12.6 thousand" for a difference of two amounts in millions)."""
    if outcome.written or outcome.op in ops.SCALE_FREE:
        return None
    if not mention.has_explicit_scale or not mention.written:
        return None
    written_value = outcome.value / float(mention.scale)
    step = 10.0**-mention.decimals
    for power in (3, 6, 9, -3, -6, -9):
        shifted = written_value / 10.0**power
        if abs(shifted - float(abs(mention.written))) <= step / 2 * 1.000001:
            scale = Decimal(10) ** power * mention.scale
            if scale in _SCALES:
                return scale
    return None


def _transposed(mention: NumberMention, expected: float) -> bool:
    """Two digits of the right value swapped (12.41 for 12.14)."""
    shown = f"{abs(mention.written):.{mention.decimals}f}".replace(".", "")
    right = f"{abs(expected):.{mention.decimals}f}".replace(".", "")
    if len(shown) != len(right) or shown == right:
        return False
    differ = [at for at in range(len(shown)) if shown[at] != right[at]]
    return (
        len(differ) == 2
        and shown[differ[0]] == right[differ[1]]
        and shown[differ[1]] == right[differ[0]]
    )
