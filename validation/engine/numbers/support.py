"""Support that flows from the evidence only: results stated in words, as a fixpoint.

A number of the report is *supported* when it matches the evidence, or when an
operation over supported numbers gives it at its precision. Support is computed
as a fixpoint from the evidence: the numbers the evidence vouches for first, then
every number an operation over them gives, round after round, until nothing
changes. An unsupported number never vouches for another ("up 418 million, at
1,377 million compared with 959 million": if 1,377 is in no evidence, neither it
nor the 418 is supported by the other).

The operation a number is the result of comes from its words
(:mod:`validation.engine.numbers.cues`: "a decrease of", "averaged", "represents
... of", "percentage points", "times", "CAGR") and from what it is (a percentage
of two amounts is a share or a change; points are a difference of rates). Its
operands come from anywhere in the report - the nearest supported numbers,
before or after it, in other paragraphs and bullets - and from the evidence
numbers beside them (the prior year in the same table row: "decreased by $214
million to $2,486 million" computes 2,700 - 2,486). The search is bounded: at
most `REPORT_POOL` report numbers and `EVIDENCE_POOL` evidence numbers, pairs
and short runs of them, and a number without words naming an operation is only
tried against the few operations a bare number can be (a sum, difference,
ratio, share or change) of numbers the report itself cites, or of two evidence
numbers of one item when it shows three significant digits or more.

A result its words name that no operation over supported numbers meets is
close-but-wrong when the same operation over the numbers it is written beside
gives one clear value near it (a slip of a few percent, two digits swapped, a
ratio shown as a percentage, the wrong scale word): that value, in the report's
own words and precision, is the fix, VERIFIED_WITH the calculator's expression.
When it is met only by counting a number the evidence does not support, it
*follows from* that number: the finding says so, and the fix belongs to the
unsupported number, not to it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from itertools import combinations, permutations

from validation.engine.numbers import operations as ops
from validation.engine.numbers.cues import (
    CAGR,
    CHANGE,
    DIVIDE,
    GAP,
    MEAN,
    MULTIPLE,
    POINTS,
    PRODUCT,
    SHARE,
    SUM,
    Cue,
    cue_of,
)
from validation.engine.numbers.evidence import EvidenceIndex, EvidenceNumber
from validation.engine.numbers.extract import NumberMention
from validation.engine.numbers.matching import Claim, Derivation, small_integer
from validation.engine.numbers.operations import Miss, Operand, Outcome, Target

_GAP_OPERANDS = frozenset(("price", "intrinsicvalue", "target"))
_SCAN = 64  # report numbers looked at to fill a pool (a wall of unsupported ones ends it)
REPORT_POOL = 8  # supported report numbers offered to one result, nearest first
EVIDENCE_POOL = 6  # evidence numbers beside them, or sharing the result's label
MAX_ROUNDS = 6  # fixpoint rounds (a chain of results stated one from another)
_RUN_LENGTHS = range(3, REPORT_POOL + 1)  # sums and averages of more than two numbers
_MISS_REACH = 0.25  # a wrong result this close to the right one is a slip, not another number

Sentence = Callable[[int, int], tuple[int, int]]
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def ground(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: Sentence,
    eligible: Callable[[Claim], bool],
    supported_at_start: Callable[[Claim], bool],
) -> None:
    """Derive, as a fixpoint from the evidence, every `eligible` claim an operation
    over supported numbers gives; then judge the results their words name that
    nothing supported gives (``claim.miss``, ``claim.depends``)."""
    starts = [claim.mention.start for claim in claims]
    breaks = [match.start() for match in _BLANK_LINE.finditer(body)]
    paragraphs = [bisect_right(breaks, start) for start in starts]
    cues = [_cue(body, claims, position, sentence) for position in range(len(claims))]
    supported = [supported_at_start(claim) for claim in claims]
    full: dict[int, float] = {}  # derived amounts, in full units
    pending = [
        position
        for position, claim in enumerate(claims)
        if not supported[position] and eligible(claim)
    ]
    for _ in range(MAX_ROUNDS):
        found: list[int] = []
        for position in pending:
            claim = claims[position]
            cue = cues[position]
            pool = _pool(
                claims, starts, supported, position, index, full, paragraphs, GAP in cue.kinds
            )
            outcome = _search(claim.mention, cue, pool, paragraphs[position])
            if outcome is not None:
                claim.derivation = _derivation(outcome, index)
                if not outcome.written and outcome.op in ops.SAME_UNITS | {ops.PRODUCT}:
                    full[position] = outcome.value  # at the scale its operands carry
                found.append(position)
        if not found:
            break
        for position in found:
            supported[position] = True
        pending = [position for position in pending if not supported[position]]
    depends: dict[int, tuple[int, ...]] = {}
    for position in pending:
        gap = GAP in cues[position].kinds
        pool = _pool(claims, starts, supported, position, index, full, paragraphs, gap)
        roots = _judge_miss(claims, starts, supported, position, cues[position], pool, index)
        if roots:
            depends[position] = roots
    for position, roots in depends.items():
        # A number follows from another only if that one carries the finding: in a
        # group of unsupported numbers that explain each other, all but the roots do.
        if any(root not in depends and claims[root].miss is None for root in roots):
            claims[position].depends = tuple(claims[root].mention.text for root in roots)


# ------------------------------------------------------------------ reading a claim


def _cue(body: str, claims: Sequence[Claim], position: int, sentence: Sentence) -> Cue:
    mention = claims[position].mention
    low, high = sentence(mention.start, mention.end)
    following = claims[position + 1].mention.start if position + 1 < len(claims) else len(body)
    previous = claims[position - 1].mention.end if position else 0
    return cue_of(
        body, mention.start, mention.end, (low, max(high, mention.end)), previous, following
    )


def _target(mention: NumberMention, cue: Cue) -> Target:
    written = float(abs(mention.written))
    step = 10.0**-mention.decimals
    if mention.approx and mention.decimals == 0 and written and not cue.bound:
        text = str(int(written))
        step = 10.0 ** (len(text) - len(text.rstrip("0")))  # "about 1,200"
    hedged = (mention.approx or cue.hedged) and not cue.bound
    if mention.unit == "bp":
        return Target(written / 100, step / 200, written / 100, step / 200, hedged, cue.bound)
    if _percent_like(mention, cue):
        return Target(written, step / 2, written, step / 2, hedged, cue.bound)
    scale = float(mention.scale)
    value = float(abs(mention.value))
    return Target(value, step * scale / 2, written, step / 2, hedged, cue.bound)


def _percent_like(mention: NumberMention, cue: Cue) -> bool:
    return mention.unit in ("%", "pp", "bp") or cue.points_after


def _operand(claim: Claim, key: int, index: EvidenceIndex, full: float | None = None) -> Operand:
    """A supported report number as an operand: exact when the evidence writes it so;
    a rounded restatement keeps its rounding, and the evidence value it stands for.
    A bare number takes the scale the evidence gives it (a 0.4 from a table "in
    millions" is 400,000), so a result at another scale is seen to be one."""
    mention = claim.mention
    written = float(mention.written)
    value = float(mention.value)
    explicit = mention.has_explicit_scale
    hit = claim.hit
    if full is not None and written:
        value, explicit = full if written > 0 else -full, True  # derived from scaled numbers
    elif hit is not None and mention.scale == 1 and not mention.is_percent:
        scale = _evidence_scale(hit.number, hit.factor, index)
        if scale is not None:
            value, explicit = written * scale, True
    percent = mention.unit in ("%", "pp")
    scale_of = value / written if written else 1.0
    half = 10.0**-mention.decimals / 2 * scale_of
    precise: float | None = None
    if hit is not None:
        if hit.status == "exact":
            half = 0.0
        elif hit.factor:
            exact_written = float(abs(hit.number.value) / hit.factor)
            if abs(exact_written - abs(written)) <= 10.0**-mention.decimals:
                precise = exact_written * scale_of if written >= 0 else -exact_written * scale_of
    return Operand(
        value,
        written,
        percent,
        half,
        key,
        precise,
        position=mention.start,
        explicit_scale=explicit,
        item=hit.number.item if hit is not None else -1,
        source=hit.number.source_ref if hit is not None else _source_of(claim),
    )


def _source_of(claim: Claim) -> str:
    """The evidence a derived number rests on, when it is one item."""
    derivation = claim.derivation
    if derivation is None or " + " in derivation.source_ref or derivation.source_ref == "report":
        return ""
    return derivation.source_ref


def _evidence_scale(number: EvidenceNumber, factor: Decimal, index: EvidenceIndex) -> float | None:
    """The scale the evidence gives a number's digits: its own ("15.5 million"), or
    the one its document declares ("(in millions)"); None when it gives none."""
    if number.has_scale and number.written:
        ratio = abs(number.full_value / number.written)
        return float(ratio) if ratio != 1 else None
    if factor == 1 and not number.is_percent:
        declared = index.declared_scale(number.item)
        return float(declared) if declared is not None and declared != 1 else None
    return None


def _evidence_operand(index: EvidenceIndex, entry: int, cited: bool = False) -> Operand | None:
    magnitude, written, unit, item, mantissa = index.operand(entry)
    if mantissa:
        return None
    source = index.items[item].source_ref
    return Operand(
        magnitude,
        written,
        unit in ("%", "pp"),
        0.0,
        -1 - entry,
        item=item,
        source=source,
        cited=cited,
    )


# ------------------------------------------------------------------ the pool


def _pool(
    claims: Sequence[Claim],
    starts: Sequence[int],
    supported: Sequence[bool],
    position: int,
    index: EvidenceIndex,
    full: dict[int, float],
    paragraphs: Sequence[int],
    gap: bool = False,
) -> list[Operand]:
    """The supported report numbers nearest the claim (either side, any paragraph),
    then evidence numbers beside their matches or sharing the claim's label."""
    claim = claims[position]
    value = abs(claim.mention.written)
    pool: list[Operand] = []
    left, right = position - 1, position + 1
    start = starts[position]
    entries: list[int] = []
    steps = 0
    while len(pool) < REPORT_POOL and (left >= 0 or right < len(claims)) and steps < _SCAN:
        steps += 1
        take_left = left >= 0 and (
            right >= len(claims) or start - starts[left] <= starts[right] - start
        )
        other_position = left if take_left else right
        if take_left:
            left -= 1
        else:
            right += 1
        if not supported[other_position]:
            continue
        other = claims[other_position]
        if other.mention.in_range or (abs(other.mention.written) == value and other.hit is None):
            continue  # a bound is not a quantity; a number never supports itself
        operand = _operand(other, other_position, index, full.get(other_position))
        pool.append(replace(operand, paragraph=paragraphs[other_position]))
        if other.hit is not None:
            entries.append(other.hit.number.entry)
    seen = {-1 - entry for entry in entries}
    own = claim.hit.number.entry if claim.hit is not None else -1
    seen.add(-1 - own)
    extra: list[Operand] = []

    def add(entry: int, cited: bool = False) -> None:
        if len(extra) < EVIDENCE_POOL and -1 - entry not in seen:
            seen.add(-1 - entry)
            operand = _evidence_operand(index, entry, cited)
            if operand is not None:
                extra.append(operand)

    if gap:
        # A gap's operands are the prices, values and targets, wherever they are cited.
        for entry in index.related(_GAP_OPERANDS, 4):
            add(entry, cited=True)
    for entry in entries[:3]:
        for neighbour in index.neighbours(entry, 2):
            add(neighbour)
    if claim.mention.tokens and len(extra) < EVIDENCE_POOL:
        for entry in index.related(claim.mention.tokens, EVIDENCE_POOL):
            add(entry)
    return pool + extra


# ------------------------------------------------------------------ the search


def _operations(mention: NumberMention, cue: Cue) -> tuple[list[str], bool]:
    """The operations `mention` may be the result of, and whether its words name them."""
    kinds = cue.kinds
    if mention.unit == "x" or (MULTIPLE in kinds and not mention.is_percent and not mention.unit):
        return [ops.RATIO], True
    if mention.unit in ("pp", "bp") or POINTS in kinds:
        return [ops.DIFF], True
    named: list[str] = []
    if mention.is_percent:
        if CAGR in kinds:
            named.append(ops.CAGR)
        if CHANGE in kinds or GAP in kinds:
            named += [ops.CHANGE, ops.DIFF]
        if SHARE in kinds or DIVIDE in kinds or cue.of_after:
            named.append(ops.SHARE)
        if MEAN in kinds:
            named.append(ops.MEAN)
        if SUM in kinds:
            named.append(ops.SUM)
        if named:
            return named, True
        return [ops.SHARE, ops.CHANGE, ops.DIFF, ops.SUM], False
    if CHANGE in kinds:
        named.append(ops.DIFF)
    if SUM in kinds:
        named.append(ops.SUM)
    if MEAN in kinds or DIVIDE in kinds:
        named.append(ops.MEAN)
    if PRODUCT in kinds or SHARE in kinds:
        named.append(ops.PRODUCT)
    if MULTIPLE in kinds or DIVIDE in kinds:
        named.append(ops.RATIO)
    if named:
        return named, True
    return [ops.SUM, ops.DIFF, ops.RATIO, ops.PRODUCT], False


def _fits_units(op: str, operands: Sequence[Operand], percent_target: bool) -> bool:
    if op in (ops.DIFF, ops.SUM, ops.MEAN):
        first = operands[0].percent
        return all(o.percent == first for o in operands) and first == percent_target
    if op in (ops.SHARE, ops.CHANGE, ops.CAGR):
        return percent_target and operands[0].percent == operands[1].percent
    if op == ops.RATIO:
        return not percent_target and operands[0].percent == operands[1].percent
    if op == ops.PRODUCT:
        return not percent_target and operands[0].percent and not operands[1].percent
    return False


def _outcomes(
    op: str, operands: Sequence[Operand], target_scaled: bool, years: int
) -> list[Outcome]:
    """`op` over `operands`, as written and (when the report rounds them) at the
    evidence values they stand for; taken as written, too, when scales do not say
    otherwise (a bare 1,918 in a table "in millions" and "$652 million")."""
    found: list[Outcome] = []
    spaces = [False]
    if not (target_scaled and all(operand.explicit_scale for operand in operands)):
        spaces.append(True)  # a bare number leaves its scale to the reader
    exact = any(operand.precise is not None for operand in operands)
    for written in spaces:
        for precise in (False, True) if exact else (False,):
            if op == ops.CAGR:
                outcome = ops.evaluate_cagr(operands[0], operands[1], years) if years else None
            else:
                outcome = ops.evaluate(op, operands, written=written, precise=precise)
            if outcome is not None:
                found.append(outcome)
            if op == ops.CAGR:
                break
    return found


def _candidates(
    op: str, pool: Sequence[Operand], named: bool, coarse: bool, zero: bool = False
) -> list[tuple[Operand, ...]]:
    """The operand tuples one operation is tried on: pairs (both orders where order
    matters), and, when words name a sum or an average, runs of consecutive report
    numbers. A number the report does not cite is only the other end of a change
    (the prior year of a line item the report cites), and a pair the report cites
    neither of must come from one evidence item; neither explains a number shown
    with fewer than three significant digits."""
    tuples: list[tuple[Operand, ...]] = []
    pairs = (
        permutations(pool, 2) if op in ops.ORDERED or op == ops.PRODUCT else combinations(pool, 2)
    )
    beside = op in (ops.DIFF, ops.CHANGE)
    for first, second in pairs:
        if first.value == second.value and not zero:
            continue  # a number against itself: 0, or 1, or 100%
        cited = first.cited + second.cited
        if cited == 1 and not (beside and not coarse):
            continue  # a figure the report never cites: only the other end of a change
        if not cited and (coarse or first.item != second.item):
            continue
        tuples.append((first, second))
    if op in (ops.SUM, ops.MEAN) and named:
        report = sorted(
            (operand for operand in pool if operand.in_report), key=lambda o: o.position
        )
        for length in _RUN_LENGTHS:
            for first_at in range(len(report) - length + 1):
                tuples.append(tuple(report[first_at : first_at + length]))
    return tuples


def _search(
    mention: NumberMention, cue: Cue, pool: Sequence[Operand], paragraph: int = -1
) -> Outcome | None:
    """The first operation, over the pool, that gives the mention at its precision.
    A number no words make a result is only tried against its own paragraph's
    numbers: in a report dense with numbers, some pair explains anything by chance."""
    operations, named = _operations(mention, cue)
    itself = float(abs(mention.written))
    zero = any(not operand.value for operand in pool)  # "0 less -$42,271" restates it
    pool = [
        operand
        for operand in pool
        if (abs(operand.written) != itself or (zero and operand.in_report))
        and (named or paragraph < 0 or not operand.in_report or operand.paragraph == paragraph)
    ]  # a number never supports itself
    if len(pool) < 2:
        return None
    target = _target(mention, cue)
    percent_target = _percent_like(mention, cue)
    coarse = mention.significant_digits < 3
    years = _years(cue)
    for op in operations:
        for operands in _candidates(op, pool, named, coarse, zero=not mention.written):
            if not _fits_units(op, operands, percent_target):
                continue
            for outcome in _outcomes(op, operands, mention.has_explicit_scale, years):
                if outcome.slack <= _SLACK_SHARE * abs(outcome.value) and target.meets(outcome):
                    return outcome
    return None


# An outcome its operands' rounding can move by more than this share of itself says
# nothing at the target's precision ("0.1% - 0.1%" is anything from -0.1 to 0.1).
_SLACK_SHARE = 0.1


def _years(cue: Cue) -> int:
    return 0


def _derivation(outcome: Outcome, index: EvidenceIndex) -> Derivation:
    """How the claim follows: the operation over its operands, evidence numbers named
    by their labels ("call_volume 10899 + put_volume 9976"), and the one evidence
    item behind it all when there is one."""
    described = outcome.expression
    names = [_described(operand, index) for operand in outcome.operands]
    if any(name for name in names):
        described = ops.describe(outcome, names)
    refs = sorted({operand.source or "report" for operand in outcome.operands})
    return Derivation(
        value=Decimal(repr(outcome.value)),
        formula=described,
        source_ref=" + ".join(refs),
        label=described,
    )


def _described(operand: Operand, index: EvidenceIndex) -> str:
    """An evidence number by its label ("price 103.45"); "" for a number of the report."""
    if operand.in_report:
        return ""
    number = index.number(-1 - operand.key)
    name = number.label.rsplit(".", 1)[-1] if number.label else ""
    if len(name) > 40 or not name:
        return number.raw
    return f"{name} {number.raw}"


# ------------------------------------------------------------------ results that miss


def _judge_miss(
    claims: Sequence[Claim],
    starts: Sequence[int],
    supported: Sequence[bool],
    position: int,
    cue: Cue,
    pool: Sequence[Operand],
    index: EvidenceIndex,
) -> tuple[int, ...]:
    """An unsupported number that its words make a result: the positions of the
    unsupported numbers it follows from, if it does; else, when its operation over
    the numbers beside it gives one clear value near it, ``claim.miss``."""
    claim = claims[position]
    mention = claim.mention
    operations, named = _operations(mention, cue)
    if not named:
        return ()  # a number no words make a result is a citation: an orphan, not a dependent
    unsupported = _unsupported_near(claims, starts, supported, position, index)
    if unsupported:
        found = _search(mention, cue, [*pool, *unsupported])
        keys = _keys(unsupported)
        if found is not None and any(operand.key in keys for operand in found.operands):
            return tuple(operand.key for operand in found.operands if operand.key in keys)
    focus = [operand for operand in pool if operand.in_report][:_FOCUS]
    if len(focus) < 2:
        return ()
    target = _target(mention, cue)
    percent_target = _percent_like(mention, cue)
    nearest: dict[float, tuple[float, Outcome]] = {}
    for op in operations:
        for operands in _candidates(op, focus, True, False):
            if not _fits_units(op, operands, percent_target):
                continue
            outcomes = _outcomes(op, operands, mention.has_explicit_scale, _years(cue))
            if not outcomes:
                continue
            outcome = _most_precise(outcomes)
            expected = _in_units(mention, outcome)
            key = round(expected, max(mention.decimals, 0))
            distance = target.distance(outcome)
            known = nearest.get(key)
            if known is None or distance < known[0]:
                nearest[key] = (distance, outcome)
    if not nearest:
        return ()
    ranked = sorted(nearest.values(), key=lambda entry: entry[0])
    distance, outcome = ranked[0]
    expected = _in_units(mention, outcome)
    scale = _wrong_scale(mention, outcome)
    if scale is None and not (distance <= _MISS_REACH or _transposed(mention, expected)):
        return ()
    rival = ranked[1][0] if len(ranked) > 1 else float("inf")
    clear = rival > max(2 * distance, distance + 0.05)
    claim.miss = Miss(
        expected=Decimal(repr(expected)) if scale is None else abs(mention.written),
        expression=outcome.expression,
        operands=outcome.operands,
        scale=scale,
        clear=clear,
    )
    return ()


_FOCUS = 6  # report numbers a wrong result is recomputed from, nearest first


def _keys(operands: Sequence[Operand]) -> frozenset[int]:
    return frozenset(operand.key for operand in operands)


def _unsupported_near(
    claims: Sequence[Claim],
    starts: Sequence[int],
    supported: Sequence[bool],
    position: int,
    index: EvidenceIndex,
) -> list[Operand]:
    """Up to 3 unsupported report numbers nearest the claim, in its paragraph reach."""
    found: list[Operand] = []
    start = starts[position]
    for step in range(1, 8):
        for other in (position - step, position + step):
            if not 0 <= other < len(claims) or supported[other] or len(found) >= 3:
                continue
            claim = claims[other]
            if abs(starts[other] - start) > _UNSUPPORTED_REACH or claim.mention.in_range:
                continue
            if small_integer(claim.mention):
                continue
            found.append(_operand(claim, other, index))
    return found


_UNSUPPORTED_REACH = 600


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
    if mention.unit == "bp":
        return value * 100
    return value


def _wrong_scale(mention: NumberMention, outcome: Outcome) -> Decimal | None:
    """The scale the mention should carry when only its scale word is wrong
    ("-$12.6 thousand" for a difference of two amounts in millions)."""
    if outcome.written or outcome.op in ops.SCALE_FREE:
        return None
    if not mention.has_explicit_scale or not mention.written:
        return None
    written_value = outcome.value / float(mention.scale)
    for power in (3, 6, 9, -3, -6, -9):
        shifted = written_value / 10.0**power
        step = 10.0**-mention.decimals
        if abs(shifted - float(abs(mention.written))) <= step / 2 * 1.000001:
            scale = Decimal(10) ** power * mention.scale
            if scale in _SCALES:
                return scale
    return None


_SCALES = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))


def _transposed(mention: NumberMention, expected: float) -> bool:
    """Two digits of the right value swapped (12.41 for 12.14)."""
    shown = f"{abs(mention.written):.{mention.decimals}f}".replace(".", "")
    right = f"{abs(expected):.{mention.decimals}f}".replace(".", "")
    if len(shown) != len(right) or shown == right:
        return False
    differ = [position for position in range(len(shown)) if shown[position] != right[position]]
    return (
        len(differ) == 2
        and shown[differ[0]] == right[differ[1]]
        and shown[differ[1]] == right[differ[0]]
    )
