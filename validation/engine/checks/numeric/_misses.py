"""Results stated in words that nothing supported gives: slips to fix, or numbers
that follow from an unsupported one.

After the fixpoint (:mod:`validation.engine.checks.numeric._support`), a number still
unsupported is judged here, when its words make it a result:

- it *follows from* an unsupported number when its operation over the report's numbers,
  that one included, meets it (``claim.depends``): "the downside is only as good as the
  estimate". The number stated without words of a result carries the finding; in a group
  of results that explain only each other, each does;
- otherwise it is *close-but-wrong* (``claim.miss``) when its operation over the numbers
  it is stated from gives a value near it: a slip of up to a quarter, two digits swapped,
  or the wrong scale word. Which numbers it is stated from is read from where they stand
  and what they are - in its own sentence first, then its paragraph; those whose evidence
  label its sentence names; the same line item in two periods for a change or an average
  - never from which value comes closest. The fix only when one value fits (``Miss.clear``).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from itertools import pairwise

from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric import _search as search
from validation.engine.checks.numeric._cues import MEAN, POINTS
from validation.engine.checks.numeric._derive_pool import supported
from validation.engine.checks.numeric._derive_rows import negative_cell
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._lexicon import names_a_margin
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._misses_stated import label_of, same_line_item, stated_from
from validation.engine.checks.numeric._operations import Miss, Operand, Outcome, Target
from validation.engine.checks.numeric._support import Grounding
from validation.engine.checks.numeric._types import NumberMention

MISS_REACH = 0.25  # a wrong result this close to the right one is a slip, not another number
# A fix's confidence: the operands are read from where they stand and what they are,
# not written out in a calculation, so below the 0.99 of a written calculation's fix.
SLIP_CONFIDENCE = 0.9
PLAIN_CONFIDENCE = 0.8  # far off, or from another paragraph: shown, never bulk-accepted
_OWN_SENTENCE = 2.0  # the placement score of an operand in the result's sentence
_PLACED = 0.5  # the least score of the reading a slip is judged by
_FOCUS = 6  # report numbers a wrong result may be stated from, nearest first
_SCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))


def judge(grounding: Grounding) -> None:
    """Set ``miss`` or ``depends`` on each still-unsupported claim its words make a result."""
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


def settle(claims: Sequence[Claim]) -> None:
    """A number follows from an unsupported one only while that one carries a finding: once
    the closed search supports all it follows from, it is unexplained itself ("19.2%" of a
    "2.7%" now derived), an orphan, but still no slip of a cell to be fixed to it."""
    unsupported = {claim.mention.text for claim in claims if not supported(claim)}
    for claim in claims:
        near = claim.close or claim.rescaled is not None
        if claim.depends and not near and unsupported.isdisjoint(claim.depends):
            claim.settled = True


def _judge(grounding: Grounding, position: int) -> tuple[int, ...]:
    """The unsupported numbers the claim follows from; or () after setting
    ``claim.miss`` when it is a slip of its operation."""
    claim = grounding.claims[position]
    mention = claim.mention
    cue = grounding.cue(position)
    operations, named = search.operations_for(mention, cue)
    if not named:
        return ()  # a number no words make a result is a citation: an orphan
    low = grounding.sentence(mention.start, mention.end)[0]
    if (
        mention.is_percent
        and mention.unit != "pp"
        and not cue.kinds & {MEAN, POINTS}
        and names_a_margin(grounding.body, low, mention.start)
    ):
        operations = [ops.SHARE]  # "a blended gross margin of about 24.4%": of revenue
    pool = grounding.pool(position)
    unsupported = grounding.unsupported_near(position)
    if unsupported:
        # The supported numbers alone gave nothing: only a pair with one of these can.
        found = search.search(mention, cue, [*pool, *unsupported], with_any=unsupported)
        if found is not None:
            keys = frozenset(operand.key for operand in unsupported)
            return tuple(operand.key for operand in found.operands if operand.key in keys)
    focus = [operand for operand in pool if operand.in_report][:_FOCUS]
    if len(focus) >= 2:
        claim.miss = _miss(grounding, position, operations, focus)
    return ()


# ------------------------------------------------------------------ which numbers


def _miss(
    grounding: Grounding, position: int, operations: Sequence[str], focus: Sequence[Operand]
) -> Miss | None:
    """The result's operation over the numbers it is stated from, when it gives a
    value near the result: the best-placed reading decides, not the nearest value."""
    mention = grounding.claims[position].mention
    target = search.target_of(mention, grounding.cue(position))
    best, top = _readings(grounding, position, operations, focus)
    if best < _PLACED:
        return None  # numbers from elsewhere in the report: no telling what it is of
    values = {round(_in_units(mention, outcome), mention.decimals) for outcome in top}
    near = sorted(
        (
            (target.distance(outcome), outcome)
            for outcome in top
            if _slip(mention, outcome, target.distance(outcome))
        ),
        key=lambda entry: entry[0],
    )
    if near:
        outcome = near[0][1]
        slip = True
    elif _plain(mention, top, values, best, position) and not _other_sign(
        grounding, mention, top[0]
    ):
        # One reading, a change or total of two numbers of the result's own sentence
        # ("from $3.3 million to $3.4 million, an increase of $0.2 million"): far off,
        # but plain.
        outcome, slip = top[0], False
    else:
        return None
    near_values = {round(_in_units(mention, found), mention.decimals) for _, found in near}
    at_hand = all(
        grounding.paragraphs[position] == operand.paragraph for operand in outcome.operands
    )
    later = any(o.paragraph > grounding.paragraphs[position] for o in outcome.operands)  # after it
    expected = _in_units(mention, outcome)
    scale = _wrong_scale(mention, outcome)
    clear = len(near_values) <= 1 and (slip or len(values) == 1)
    return Miss(
        expected=Decimal(repr(expected)) if scale is None else abs(mention.written),
        expression=outcome.expression,
        operands=outcome.operands,
        scale=scale,
        clear=clear,
        confidence=SLIP_CONFIDENCE if slip and at_hand else PLAIN_CONFIDENCE,
        stated=stated_from(
            grounding, position, outcome, len(values) == 1, len(focus), (later, at_hand)
        ),
    )


def _readings(
    grounding: Grounding, position: int, operations: Sequence[str], focus: Sequence[Operand]
) -> tuple[float, list[Outcome]]:
    """The best placement score of the result's readings (its operation over the
    numbers it may be stated from), and the readings that have it. A reading scores
    the placement of each of its operands, and more when they are one line item in
    two periods, written as one list, or as many as the words say."""
    mention = grounding.claims[position].mention
    cue = grounding.cue(position)
    target = search.target_of(mention, cue)
    percent_target = search.percent_like(mention, cue)
    scores = _placement(grounding, position, focus)
    direction = -1 if mention.negative else cue.direction
    ranked: list[tuple[float, str, tuple[Operand, ...]]] = []
    for op in operations:
        additive = op in (ops.DIFF, ops.SUM)
        for operands in search.candidates(op, focus, True, False, at=mention.start):
            if not search.fits_units(op, operands, percent_target):
                continue
            if additive and any(0 < abs(operand.value) < target.half for operand in operands):
                continue  # "$9,542 million + 0.798" is $9,542 million: no operation
            if not _direction_fits(op, operands, direction) or not _marks_fit(op, operands):
                continue
            if op == ops.DIFF and _rise_taken_away(grounding, operands[1:]):
                continue  # a level less its "+59.4" is the level before, not after
            score = sum(scores[operand.key] for operand in operands) / len(operands)
            if op in _PERIODS and same_line_item(grounding, operands):
                score += 1.0
            if len(operands) > 2 and _listed(grounding.body, operands):
                score += 1.0  # "based on $64 million, $204 million and $389 million"
            if cue.count and len(operands) == cue.count:
                score += 1.0
            ranked.append((score, op, operands))
    best = 0.0
    top: list[Outcome] = []
    # The outcomes (the calculator's expressions) are made for the best-placed only.
    for score, op, operands in sorted(ranked, key=lambda entry: -entry[0]):
        if top and score < best - 1e-9:
            break
        scale = float(mention.scale) if mention.has_explicit_scale else 0.0
        found = search.outcomes(op, operands, scale, cue.years)
        if found:
            best = best if top else score
            top.append(_reading(found, target))
    return best, top


_PERIODS = frozenset((ops.DIFF, ops.CHANGE, ops.MEAN, ops.CAGR))
_BASE_MARKS = frozenset(("of", "by", "over", "versus", "vs", "against"))


def _marks_fit(op: str, operands: Sequence[Operand]) -> bool:
    """The words before the operands say which is the base: "X is 94.73% of Y" (Y),
    "dividing X by Y" (Y), "the ratio of X to Y" (Y), "from X to Y" (X is where a
    change starts)."""
    if op not in (ops.CHANGE, ops.SHARE, ops.RATIO) or len(operands) != 2:
        return True
    first, base = operands
    if op == ops.CHANGE:
        if first.mark == "from" or base.mark == "to":
            return False
        return first.mark not in _BASE_MARKS or base.mark in _BASE_MARKS
    ends = _BASE_MARKS | {"to"}
    return first.mark not in ends or base.mark in ends


_PLAIN_OPS = frozenset((ops.DIFF, ops.SUM, ops.CHANGE))
_PLAIN_FACTOR = 3.0  # a plain reading is at most this far off, either way


def _plain(
    mention: NumberMention,
    top: Sequence[Outcome],
    values: set[float],
    best: float,
    position: int,
) -> bool:
    """The one top reading is a difference, sum or change of a pair of numbers both
    in the result's own sentence, written with it as three numbers in a row ("from $3.3
    million to $3.4 million, an increase of $0.2 million"), off by less than a factor of
    three. A number between them is another result of theirs ("464,888 units, 15.0%
    smaller than the 547,000 granted before, while the later grants came to 721,453"):
    the pair is that one's, and a far-off reading of this one is no slip."""
    if len(values) != 1 or best < _OWN_SENTENCE:
        return False
    outcome = top[0]
    if outcome.op not in _PLAIN_OPS or len(outcome.operands) != 2:
        return False
    places = sorted([position, *(operand.key for operand in outcome.operands)])
    if places[-1] - places[0] != 2:
        return False
    stated = float(abs(mention.written))
    expected = abs(_in_units(mention, outcome))
    return bool(stated and expected) and (1 / _PLAIN_FACTOR <= expected / stated <= _PLAIN_FACTOR)


def _other_sign(grounding: Grounding, mention: NumberMention, outcome: Outcome) -> bool:
    """The stated result is the pair's sum where the reading takes their difference, or
    the other way round, and one of the two is a cell the evidence writes negative: the
    writer kept its sign ("added 7.6% ... after taking off 2.3%, a swing of 9.9 points"
    over a cell "(2.3)"), which magnitudes do not. No reading of one sign is plain then."""
    if outcome.op not in (ops.DIFF, ops.SUM) or not any(
        operand.entry >= 0 and negative_cell(grounding.index, operand.entry)
        for operand in outcome.operands
    ):
        return False
    first, second = (abs(operand.value) for operand in outcome.operands)
    difference, total = abs(first - second), first + second
    if not difference or not total:
        return False
    other = total / difference if outcome.op == ops.DIFF else difference / total
    expected = abs(_in_units(mention, outcome)) * other
    return abs(expected - float(abs(mention.written))) <= 10.0**-mention.decimals / 2 * 1.000001


def _listed(body: str, operands: Sequence[Operand]) -> bool:
    """The operands are written as one list: only separators between them ("A, B and
    C", bullets one under the other), no sentence ending."""
    ordered = sorted(operands, key=lambda operand: operand.position)
    for first, second in pairwise(ordered):
        gap = body[first.position : second.position]
        if len(gap) > _LIST_GAP or ". " in gap:
            return False
    return True


_LIST_GAP = 80  # characters from one listed number to the next


def _direction_fits(op: str, operands: Sequence[Operand], direction: int) -> bool:
    """A change its words or sign say is a rise (1) or a fall (-1) goes that way:
    from the base (the second operand) to the other, or from the earlier year."""
    if not direction or op not in (ops.CHANGE, ops.DIFF, ops.CAGR):
        return True
    later, earlier = operands[0], operands[1]
    if op == ops.DIFF:
        if not (later.year and earlier.year) or later.year == earlier.year:
            return True
        if later.year < earlier.year:
            later, earlier = earlier, later
    rise = later.value > earlier.value
    return rise == (direction > 0)


def _rise_taken_away(grounding: Grounding, subtracted: Sequence[Operand]) -> bool:
    """An amount the report writes with a plus sign ("| +59.4 |", a change up) subtracted."""
    return any(
        operand.in_report
        and not operand.percent
        and grounding.claims[operand.key].mention.text.startswith("+")
        for operand in subtracted
    )


def _placement(grounding: Grounding, position: int, focus: Sequence[Operand]) -> dict[int, float]:
    """How plainly each candidate operand is one the result is stated from: in the
    result's own sentence (2), paragraph (1) or the one before it (0.5: a result
    follows its inputs; a later paragraph goes on to other things), and named by it
    (its evidence label's words in the result's sentence: 1, for an operand placed
    so at all: a label alone does not bring a number from far away)."""
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
        elif operand.paragraph == paragraph - 1:
            score += 0.5  # "The inputs are A and B." then "Therefore, the total is C."
        if score and label_of(grounding.claims[operand.key]) & words:
            score += 1.0
        scores[operand.key] = score
    return scores


# ------------------------------------------------------------------ how it misses


def _slip(mention: NumberMention, outcome: Outcome, distance: float) -> bool:
    """The stated number is the outcome with a slip: near it, two digits swapped,
    or at the wrong scale."""
    if distance <= MISS_REACH:
        return True
    return _transposed(mention, _in_units(mention, outcome)) or (
        _wrong_scale(mention, outcome) is not None
    )


def _reading(outcomes: Sequence[Outcome], target: Target) -> Outcome:
    """The outcome in the units that read the result best (amounts as written or
    in full), computed from the evidence's own values where the report rounds them
    (the most precise there is)."""
    nearest = min(outcomes, key=target.distance)
    for outcome in outcomes:
        if outcome.precise and outcome.written == nearest.written:
            return outcome
    return nearest


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
