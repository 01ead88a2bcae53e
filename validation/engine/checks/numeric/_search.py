"""The bounded search for the operation a stated result is.

A number becomes an :class:`Operand` (a report number at the scale the evidence
gives it, with the rounding it is written with and the evidence value it stands
for; or an evidence number, exact) and a result a :class:`Target` (its value at
its precision, a hedge widening it, a bound). The operations a result may be
come from its words (:mod:`validation.engine.checks.numeric._cues`) and what it is (a
percentage of two amounts is a share or a change; points are a difference of
rates); the search tries them in that order over pairs of operands and, for sums
and averages its words name, over runs of consecutive report numbers.

What bounds the chance of explaining a number by accident:

- a number no words make a result is tried only against numbers of its own
  paragraph, and only as a sum, difference, ratio, share or change;
- a number the report does not cite is only the other end of a change (the prior
  year of a line item the report cites); two numbers the report cites neither of
  must come from one evidence item;
- a number shown with fewer than three significant digits is explained by numbers
  the report cites only;
- a number never supports itself, nor a number against itself ("0.1% - 0.1%");
- an outcome its operands' rounding can move by more than a tenth of itself says
  nothing;
- the numbers of the result's own paragraph are tried first; a hit from farther away,
  or one that needs its operands' rounding, stands only when its chance of a
  coincidence (`chance`: the outcomes of its tier near the result, times the result's
  window over the neighbourhood's range) is under `ACCEPT`, as in :mod:`._derive`.

Engine-internal: :mod:`validation.engine.checks.numeric._support` runs it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from itertools import combinations, permutations

from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric._cues import (
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
)
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._matching import Claim, Derivation
from validation.engine.checks.numeric._operations import Operand, Outcome, Target
from validation.engine.checks.numeric._paired import (
    _PAIR_OPS,
    SPREAD,
    _beside,
    _cited_enough,
    _informative,
    _Paired,
)
from validation.engine.checks.numeric._stated_ends import against_end
from validation.engine.checks.numeric._types import NumberMention

MAX_RUN = 8  # the longest list a sum or an average is read from
_RUN_LENGTHS = range(3, MAX_RUN + 1)


def target_of(mention: NumberMention, cue: Cue) -> Target:
    written = float(abs(mention.written))
    step = 10.0**-mention.decimals
    if mention.approx and mention.decimals == 0 and written and not cue.bound:
        text = str(int(written))
        step = 10.0 ** (len(text) - len(text.rstrip("0")))  # "about 1,200"
    hedged = (mention.approx or cue.hedged) and not cue.bound
    if mention.unit == "bp":
        return Target(written / 100, step / 200, written / 100, step / 200, hedged, cue.bound)
    if percent_like(mention, cue):
        return Target(written, step / 2, written, step / 2, hedged, cue.bound)
    scale = float(mention.scale)
    value = float(abs(mention.value))
    return Target(value, step * scale / 2, written, step / 2, hedged, cue.bound)


def percent_like(mention: NumberMention, cue: Cue) -> bool:
    return mention.unit in ("%", "pp", "bp") or cue.points_after


def operand_of(
    claim: Claim,
    key: int,
    index: EvidenceIndex,
    full: float | None = None,
    *,
    paragraph: int = -1,
    year: int = 0,
    mark: str = "",
    sources: frozenset[int] = frozenset(),
) -> Operand:
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
        scale = evidence_scale(hit.number, hit.factor, index)
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
        entry=hit.number.entry if hit is not None else -1,
        source=hit.number.source_ref if hit is not None else _source_of(claim),
        paragraph=paragraph,
        year=year,
        mark=mark,
        sources=sources,
    )


def _source_of(claim: Claim) -> str:
    """The evidence a derived number rests on, when it is one item."""
    derivation = claim.derivation
    if derivation is None or " + " in derivation.source_ref or derivation.source_ref == "report":
        return ""
    return derivation.source_ref


def evidence_scale(number: EvidenceNumber, factor: Decimal, index: EvidenceIndex) -> float | None:
    """The scale the evidence gives a number's digits: its own ("15.5 million"), or
    the one its document declares ("(in millions)"); None when it gives none."""
    if number.has_scale and number.written:
        ratio = abs(number.full_value / number.written)
        return float(ratio) if ratio != 1 else None
    if factor == 1 and not number.is_percent:
        declared = index.declared_scale(number.item)
        return float(declared) if declared is not None and declared != 1 else None
    return None


def evidence_operand(index: EvidenceIndex, entry: int, cited: bool = False) -> Operand | None:
    magnitude, written, unit, item, mantissa = index.operand(entry)
    if mantissa:
        return None
    percent = unit in ("%", "pp")
    bare = magnitude == written and not percent  # digits whose scale their document may say
    return Operand(
        *(magnitude, written, percent, 0.0, -1 - entry),
        item=item,
        entry=entry,
        source=index.items[item].source_ref,
        cited=cited,
        explicit_scale=magnitude != written,  # its document says its scale
        declared=float(index.declared_scale(item) or 0) if bare else 0.0,
    )


# ------------------------------------------------------------------ the search


def operations_for(mention: NumberMention, cue: Cue) -> tuple[list[str], bool]:
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


def fits_units(op: str, operands: Sequence[Operand], percent_target: bool) -> bool:
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


def outcomes(
    op: str, operands: Sequence[Operand], target_scale: float, years: int
) -> list[Outcome]:
    """`op` over `operands`, in every reading `readings` allows."""
    found: list[Outcome] = []
    for written, precise in readings(operands, target_scale):
        if op == ops.CAGR:
            outcome = ops.evaluate_cagr(operands[0], operands[1], years) if years else None
        else:
            outcome = ops.evaluate(op, operands, written=written, precise=precise)
        if outcome is not None:
            found.append(outcome)
        if op == ops.CAGR:
            break
    return found


def readings(operands: Sequence[Operand], target_scale: float) -> list[tuple[bool, bool]]:
    """(as written, at the evidence's values) pairs an operation is computed in: in full
    units, and as written too when scales do not say otherwise (a bare 1,918 in a table
    "in millions" and "$652 million"); at the evidence values the report rounds, too."""
    spaces = [False]
    if not ops.misread(operands, target_scale):
        spaces.append(True)  # a bare number leaves its scale to the reader
    exact = any(operand.precise is not None for operand in operands)
    return [(written, precise) for written in spaces for precise in (False, True)[: 1 + exact]]


def candidates(
    op: str,
    pool: Sequence[Operand],
    named: bool,
    coarse: bool,
    zero: bool = False,
    at: int = -1,
) -> list[tuple[Operand, ...]]:
    """The operand tuples one operation is tried on: pairs (both orders where order
    matters; the base of a change is the earlier year when both years are known),
    and, when words name a sum or an average, runs of consecutive report numbers on
    one side of the result (at `at`). A number the report does not cite is only the
    other end of a change (the prior year of a line item the report cites), and a
    pair the report cites neither of must come from one evidence item; neither
    explains a number shown with fewer than three significant digits."""
    tuples: list[tuple[Operand, ...]] = []
    pairs = (
        permutations(pool, 2) if op in ops.ORDERED or op == ops.PRODUCT else combinations(pool, 2)
    )
    beside = op in (ops.DIFF, ops.CHANGE)
    dated = op in (ops.CHANGE, ops.CAGR)
    for first, second in pairs:
        if first.value == second.value and not zero and op not in (ops.SUM, ops.MEAN):
            continue  # a number against itself: 0, or 1, or 100%
        if dated and first.year and second.year and first.year <= second.year:
            continue  # the base is the earlier year
        if not _cited_enough(
            first.cited,
            second.cited,
            _beside(first.entry, second.entry),
            first.item == second.item,
            beside,
            coarse,
            named,
        ):
            continue
        tuples.append((first, second))
    if op in (ops.SUM, ops.MEAN) and named:
        report = sorted(
            (operand for operand in pool if operand.in_report), key=lambda o: o.position
        )
        sides = [[o for o in report if o.position < at], [o for o in report if o.position > at]]
        for side in sides if at >= 0 else [report]:
            for length in _RUN_LENGTHS:
                runs = (side[first : first + length] for first in range(len(side) - length + 1))
                tuples += [tuple(run) for run in runs if not ops.mixed_periods(run)]
    return tuples


def search(
    mention: NumberMention,
    cue: Cue,
    pool: Sequence[Operand],
    paragraph: int = -1,
    with_any: Sequence[Operand] = (),
    sentence: tuple[int, int] | None = None,
) -> Outcome | None:
    """The first operation, over the pool, that gives the mention at its precision.
    A number no words make a result is only tried against its own paragraph's
    numbers: in a report dense with numbers, some pair explains anything by chance."""
    operations, named = operations_for(mention, cue)
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
    tiers = [_tier(operand, paragraph, sentence) for operand in pool]
    asked = (mention, cue, operations, named, target_of(mention, cue))
    if sentence is not None:
        # The writer's own numbers first: those of the result's paragraph, and the
        # evidence cells beside their matches (a line item's other period).
        entries = [o.entry for o, tier in zip(pool, tiers, strict=True) if tier <= 1]
        near = [
            at
            for at, (operand, tier) in enumerate(zip(pool, tiers, strict=True))
            if tier <= 1 or any(_beside(operand.entry, entry) for entry in entries)
        ]
        if 2 <= len(near) < len(pool):
            chosen = [pool[at] for at in near], [tiers[at] for at in near]
            found = _look(asked, *chosen, paragraph, with_any, sentence)
            if found is not None:
                return found
    return _look(asked, pool, tiers, paragraph, with_any, sentence)


def _look(
    asked: tuple[NumberMention, Cue, list[str], bool, Target],
    pool: Sequence[Operand],
    tiers: Sequence[int],
    paragraph: int,
    with_any: Sequence[Operand],
    sentence: tuple[int, int] | None,
) -> Outcome | None:
    """`search` over one pool, its operands' `tiers` given: the first hit, if its chance of
    a coincidence allows."""
    mention, cue, operations, named, target = asked
    percent_target = percent_like(mention, cue)
    coarse = mention.significant_digits < 3
    scaled = float(mention.scale) if mention.has_explicit_scale else 0.0
    paired = _Paired(pool, scaled, with_any, named)
    zero = not mention.written
    tried: list[str] = []
    crowd = 0  # outcomes of runs and compound rates near the target
    for op in operations:
        if op in _PAIR_OPS:
            tried.append(op)
            crowds: dict[int, int] = {}  # by tier
            for looked, found in enumerate(
                paired.hits(op, target, percent_target, coarse, zero=zero)
            ):
                if sentence is None:
                    return found
                if looked >= _MAX_HITS:
                    break
                if op == ops.DIFF and against_end(mention, cue, found.operands):
                    continue  # "fell 8.3 points to 23.1%" from below it: a rise
                first, second = (_at(pool, operand) for operand in found.operands)
                tier = paired.tier(first, second, tiers)
                if tier not in crowds:
                    crowds[tier] = crowd + sum(
                        paired.crowd(each, target, percent_target, coarse, zero, tiers, tier)
                        for each in tried
                    )
                if _accepted(target, found, crowds[tier], tier, named):
                    return found
        if op not in (ops.SUM, ops.MEAN, ops.CAGR) or (op != ops.CAGR and not named):
            continue
        # runs of a sum or an average, and compound rates: few, computed in full
        hit: Outcome | None = None
        for operands in candidates(op, pool, named, coarse, zero=zero, at=mention.start):
            if (op != ops.CAGR and len(operands) < 3) or not fits_units(
                op, operands, percent_target
            ):
                continue
            for outcome in outcomes(op, operands, scaled, cue.years):
                stated = target.written if outcome.written or op in ops.SCALE_FREE else target.value
                if stated / SPREAD <= abs(outcome.value) <= stated * SPREAD:
                    crowd += 1
                if (
                    hit is None
                    and _informative(outcome.value, outcome.slack)
                    and target.meets(outcome)
                ):
                    hit = outcome
        if hit is not None:
            near = crowd + sum(
                paired.crowd(each, target, percent_target, coarse, zero, tiers, 3) for each in tried
            )
            # A run its words name (a sum, an average) is the writer's list; a compound
            # rate stands on its own paragraph's numbers, or on its chance.
            tier = max(_tier(operand, paragraph, sentence) for operand in hit.operands)
            if sentence is None or _accepted(target, hit, near, tier, op != ops.CAGR):
                return hit
            return None
    return None


def _at(pool: Sequence[Operand], operand: Operand) -> int:
    return next(at for at, each in enumerate(pool) if each is operand)


def _tier(operand: Operand, paragraph: int, sentence: tuple[int, int] | None) -> int:
    """How close an operand is to the result: a number of its own sentence (0), of its
    paragraph (1) or an evidence number its words name (a valuation gap's price and
    value), of the report (2), of the evidence (3)."""
    if not operand.in_report:
        return 1 if operand.cited else 3
    if sentence is None or sentence[0] <= operand.position < sentence[1]:
        return 0
    return 1 if paragraph < 0 or operand.paragraph == paragraph else 2


def _accepted(target: Target, outcome: Outcome, crowd: int, tier: int, named: bool = False) -> bool:
    """Whether a hit stands: numbers of the result's own paragraph that give it at its
    precision do, and so do numbers the report states when its words name the
    operation ("the difference works out to 2.1 points"); any other hit, or one that
    needs its operands' rounding to reach the target, must carry a chance of a
    coincidence under `ACCEPT`."""
    exact = target.meets_value(outcome.op, outcome.written, outcome.value, 0.0)
    if exact and (tier <= 1 or (named and tier <= 2)):
        return True
    return chance(target, outcome, crowd) < ACCEPT


_MAX_HITS = 8  # hits of one operation weighed before the search moves on
ACCEPT = 0.05  # the largest chance of a coincidence a result may carry (as `_derive`'s)


def chance(target: Target, outcome: Outcome, crowd: int) -> float:
    """The chance that one of `crowd` outcomes near the target lands in its window by
    coincidence: the window's width relative to the range of the neighbourhood (values
    within a factor `SPREAD` of the target), as the closed search estimates it. A
    hedge doubles the window; a bound ("less than 1%") takes half the target's value."""
    if outcome.written or outcome.op in ops.SCALE_FREE:
        stated, half = target.written, target.written_half
    else:
        stated, half = target.value, target.half
    if not stated:
        return 0.0
    width = half * (4.0 if target.hedged else 2.0)
    if not target.meets_value(outcome.op, outcome.written, outcome.value, 0.0):
        width += 2 * outcome.slack  # the operands' rounding widens what it accepts
    if target.bound:
        width = max(width, stated / 2)
    return min(1.0, max(1, crowd) * width / (stated * 2 * math.log(SPREAD)))


def derivation(outcome: Outcome, index: EvidenceIndex) -> Derivation:
    """How the claim follows: the operation over its operands, evidence numbers named
    by their labels ("call_volume 10,899 + put_volume 9,976"), and the one evidence
    item behind it all when there is one."""
    described = ops.describe(outcome, [_described(operand, index) for operand in outcome.operands])
    refs = sorted({operand.source or "report" for operand in outcome.operands})
    return Derivation(
        value=Decimal(repr(outcome.value)),
        formula=described,
        source_ref=" + ".join(refs),
        label=described,
        entries=tuple(operand.entry for operand in outcome.operands if operand.entry >= 0),
    )


def _described(operand: Operand, index: EvidenceIndex) -> str:
    """An evidence number's label ("price"); "" for a number of the report, or one
    whose label is too long to name it by."""
    if operand.in_report:
        return ""
    number = index.number(-1 - operand.key)
    name = number.label.rsplit(".", 1)[-1] if number.label else ""
    return name if len(name) <= 40 else ""
