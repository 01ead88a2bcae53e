"""What did the writer compute this from? The closed search over the report's operands.

A number the matching and the fixpoint left unsupported gets one more look, as a
careful reader with the evidence open would give it. Its *operands* (from
:mod:`._derive_pool`) are the supported numbers of its sentence, the evidence rows its
words name, the cells beside those (other periods of the same row, the same column's
total) and every other supported number the report states.

The *operations* are a closed family, whatever the words: difference, sum (of two, or
of a whole row, column or list), ratio or multiple, share of a total, percentage
change, change in points, average (of two, or of a row's first periods), CAGR over n
periods, a ratio per unit; conversions of scale are free (operands in full units, the
claim read at its own scale or at the scale of the operands' digits, or in cents).

*Acceptance is by evidence, not by closeness.* The candidates are generated in tiers
of how strongly a pair is the writer's (see ``_tier``). A hit in tier t is
weighed against every candidate of tiers 0..t: the chance that one of them lands in
the claim's rounding window by coincidence is estimated from the number of candidate
values within a factor ``_SPREAD`` of the claim, times the window's width relative to
that range. A derivation is accepted only when that chance is below ``ACCEPT``; its
formula carries the chance, so the proof shows how strong it is. docs/derivations.md
tells the whole of it.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import chain

from validation.engine.checks.numeric._cues import (
    CAGR,
    CHANGE,
    MEAN,
    MULTIPLE,
    POINTS,
    SHARE,
    SUM,
    cue_of,
)
from validation.engine.checks.numeric._derive_bound import may_hit
from validation.engine.checks.numeric._derive_pool import (
    BESIDE,
    MAX_GROUP,
    NAMED,
    NEAR,
    STATED,
    Operand,
    around,
    direction_of,
    periods_named,
    pool,
    supported,
    units_of,
    wrong_base_change,
)
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._matching import (
    Claim,
    Derivation,
    small_integer,
    wrong_calculation,
)
from validation.engine.checks.numeric._types import NumberMention

ACCEPT = 0.05  # the largest chance of a coincidence a derivation may carry
_MAX_CANDIDATES = 600  # candidate values looked at for one number
_NEAR_MISS = 0.15  # a slip of the writer's own operation lands this close, relatively
_SPREAD = 3.0  # candidates within this factor of the claim make its neighbourhood
_LOG_SPREAD = 2 * math.log(_SPREAD)
_MAXNAMED = 3  # rows named by one text
_TIERS = 5
_GROUP_TIER = {STATED: 0, NEAR: 1, NAMED: 2, BESIDE: 4}


@dataclass(frozen=True, slots=True)
class Explained:
    value: float
    formula: str
    operation: str
    chance: float
    tier: int
    # (the stated number, the cell of its row the derivation takes instead)
    conflict: tuple[Operand, Operand] | None = None


def _percent_target(mention: NumberMention) -> bool:
    return mention.is_percent


def _multiple(mention: NumberMention, body: str) -> bool:
    if mention.unit == "x":
        return True
    after = body[mention.end : mention.end + 8].lower()
    return after.startswith((" times", "x ", "-fold", " fold"))


# (tier, value, a format of its formula, operation, the operands' texts)
_Candidate = tuple[int, float, str, str, tuple["Operand | str", ...]]


def _candidates(
    operands: Sequence[Operand],
    kind: str,
    periods: Sequence[int],
    direction: int,
    only: frozenset[str] = frozenset(),
) -> Iterator[_Candidate]:
    """(tier, value, formula, operation, its operands) for every candidate, tier by tier. A change
    whose words say a rise (`direction` 1) or a fall (-1) is taken on that base only."""
    amounts = [operand for operand in operands if not operand.percent]
    percents = [operand for operand in operands if operand.percent]
    chosen = _by_tier(amounts if kind != "points" else percents)
    points = _by_tier(percents) if kind == "percent" else None
    for tier in range(_TIERS):
        found = _pairs(chosen[tier], amounts, kind, tier, periods, direction)
        if points is not None:
            found = chain(found, _pairs(points[tier], percents, "points", tier, periods, 0))
        if kind == "amount":
            found = chain(found, _groups(amounts, tier))
        if only:
            yield from (candidate for candidate in found if candidate[3] in only)
        else:
            yield from found


def _by_tier(operands: Sequence[Operand]) -> list[list[tuple[Operand, Operand]]]:
    """Every pair of operands, by its tier (each pair's tier worked out once)."""
    tiers: list[list[tuple[Operand, Operand]]] = [[] for _ in range(_TIERS)]
    for i, first in enumerate(operands):
        for second in operands[i + 1 :]:
            tiers[_tier(first, second)].append((first, second))
    return tiers


def _tier(first: Operand, second: Operand) -> int:
    """How strongly a pair of operands is the writer's: 0 both stated in the claim's
    sentence; 1 both near it (stated in it, or in the rows of those numbers or of its own
    label), or one stated in it and the other in the same row or column; 2 one near and
    the other in its row or column or stated elsewhere in the report; 3 one of them
    named by the sentence; 4 neither."""
    weaker, stronger = sorted((first.strength, second.strength))
    if weaker == STATED:
        return 0
    linked = (first.row >= 0 and first.row == second.row) or (
        first.column >= 0 and first.item == second.item and first.column == second.column
    )
    if weaker >= NEAR or (stronger == STATED and linked):
        return 1
    if stronger >= NEAR and (linked or first.reported or second.reported):
        return 2
    return 3 if stronger >= NAMED else 4


def _pairs(
    pairs: Sequence[tuple[Operand, Operand]],
    operands: Sequence[Operand],
    kind: str,
    tier: int,
    periods: Sequence[int],
    direction: int,
) -> Iterator[_Candidate]:
    if not pairs:
        return
    values = sorted(abs(operand.value) for operand in operands) if kind == "percent" else []
    for first, second in pairs:
        a, b = first.value, second.value
        ta, tb = first, second
        if kind == "amount":
            yield tier, abs(a - b), "{} - {}", "difference", (ta, tb)
            yield tier, abs(a + b), "{} + {}", "sum", (ta, tb)
            yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
            if b:
                yield tier, abs(a / b), "{} / {}", "per unit", (ta, tb)
            if a:
                yield tier, abs(b / a), "{} / {}", "per unit", (tb, ta)
        elif kind == "multiple":
            if b:
                yield tier, abs(a / b), "{} / {}", "multiple", (ta, tb)
            if a:
                yield tier, abs(b / a), "{} / {}", "multiple", (tb, ta)
        elif kind == "points":
            yield tier, abs(a - b), "{} - {}", "points", (ta, tb)
            yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
        elif kind == "percent":
            for top, bottom, tt, tb_, part in (
                (a, b, ta, tb, first),
                (b, a, tb, ta, second),
            ):
                if not bottom:
                    continue
                if not (part.change and _wrong_base(top, bottom, direction, values)):
                    yield tier, abs(top / bottom * 100), "{} / {} * 100", "share", (tt, tb_)
                change = (top - bottom) / bottom * 100
                if direction * change < 0:
                    continue  # "up 15.3%" is never a change taken from the later value
                yield tier, abs(change), "({0} - {1}) / {1} * 100", "percent change", (tt, tb_)
                if top / bottom > 0:
                    for n in _periods(first, second, periods):
                        rate = ((top / bottom) ** (1 / n) - 1) * 100
                        formula = "(({} / {}) ^ (1 / {}) - 1) * 100"
                        yield tier, abs(rate), formula, "CAGR", (tt, tb_, str(n))


def _wrong_base(change: float, base: float, direction: int, values: Sequence[float]) -> bool:
    """A rise of `change` taken over the level it rose *to* (or a fall over the level it
    fell to): the other end of the change is among the operands, on the wrong side."""
    if not direction:
        return False
    wrong = abs(base) - direction * abs(change)
    right = abs(base) + direction * abs(change)
    tolerance = abs(change) * 0.01
    position = bisect_left(values, wrong - tolerance)
    if position >= len(values) or values[position] > wrong + tolerance:
        return False
    position = bisect_left(values, right - tolerance)
    return position >= len(values) or values[position] > right + tolerance


def _periods(first: Operand, second: Operand, named: Sequence[int]) -> list[int]:
    """The periods a compound rate between two values is over: the span of the years
    its sentence names; two cells of one row span the columns between them, and
    with years named they must span one of those."""
    found = [n for n in named if n > 1]
    if first.row >= 0 and first.row == second.row:
        distance = abs(first.column - second.column)
        if found:
            return [distance] if distance in found else []
        return [distance] if distance > 1 else []
    return found


def _groups(operands: Sequence[Operand], tier: int) -> Iterator[_Candidate]:
    """Sums and averages of three or more: a row's first periods, a column, a list."""
    groups: dict[tuple[str, int], list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0:
            groups.setdefault(("row", operand.row), []).append(operand)
    if tier == 0:
        near = [operand for operand in operands if operand.strength == STATED]
        if len(near) >= 3:
            groups[("list", 0)] = near
    for (kind, row), members in groups.items():
        strongest = max(member.strength for member in members)
        if kind == "row" and tier != _GROUP_TIER[strongest]:
            continue
        if kind == "row":
            members = sorted(members, key=lambda operand: operand.column)
        for size in range(3, min(len(members), MAX_GROUP) + 1):
            chosen = members[:size]
            total = sum(member.value for member in chosen)
            written = " + ".join(member.text for member in chosen)
            yield tier, abs(total), written, "sum", ()
            yield tier, abs(total) / size, f"({written}) / {size}", "average", ()
        del row


def _readings(
    mention: NumberMention, body: str, operands: Sequence[Operand]
) -> list[tuple[float, float]]:
    """(value, width of its rounding window) for each reading of an amount."""
    written = abs(float(mention.written))
    step = 10.0**-mention.decimals
    if mention.has_explicit_scale:
        scale = float(mention.scale)
        readings = [(written * scale, step * scale)]
        if any(operand.unscaled for operand in operands):
            readings.append((written, step))  # "$92.0 million" of a table in millions
        return readings
    readings = [(written, step)]
    for scale in sorted({operand.digits for operand in operands} - {1.0}):
        readings.append((written * scale, step * scale))
    if body[mention.end : mention.end + 6].lower().startswith((" cent", "¢")):
        readings.append((written / 100, step / 100))
    return readings


def explain(
    claim: Claim,
    body: str,
    operands: Sequence[Operand],
    periods: Sequence[int],
    direction: int = 0,
    named: frozenset[str] = frozenset(),
    only_named: bool = False,
) -> Explained | None:
    """The derivation of the claim from `operands` whose chance of a coincidence is
    below `ACCEPT`, or None. The operations its words name are searched first, alone
    (their candidates alone make the neighbourhood); then every operation."""
    mention = claim.mention
    if small_integer(mention) or not operands:
        return None
    if _percent_target(mention):
        kind = "percent"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    elif _multiple(mention, body):
        kind = "multiple"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    else:
        kind = "amount"
        readings = _readings(mention, body, operands)
    readings = [(target, width) for target, width in readings if target]
    if not readings or not may_hit(operands, kind, readings, periods):
        return None  # no candidate lands in its window: no search needed (`_derive_bound`)
    if named:
        found = _search(_candidates(operands, kind, periods, direction, named), readings, operands)
        if found is not None or only_named:
            return found
    return _search(_candidates(operands, kind, periods, direction), readings, operands)


def _conflict(
    used: Sequence[Operand | str], operands: Sequence[Operand]
) -> tuple[Operand, Operand] | tuple[()] | None:
    """(stated, cell): the derivation takes a row's cell whose part the sentence gives another
    ("from $59 million", the row's 67); (): the row's cells stated only in other parts."""
    cells = [operand for operand in used if isinstance(operand, Operand)]
    found: list[tuple[Operand, Operand]] = []
    other_part = False
    for cell in cells:
        beside = [u for u in cells if u.strength == STATED and u.row == cell.row >= 0]
        if cell.strength == STATED or not beside:
            continue  # the result is of the row's periods only when its stated operand is too
        for stated in operands:
            if stated.strength != STATED:
                break
            if stated.row == cell.row and stated not in cells:
                side = (stated.column - beside[0].column) * (cell.column - beside[0].column)
                found += [(stated, cell)] if side > 0 else []
                other_part = other_part or side < 0
    return (found[0] if len(found) == 1 else None) if found else (() if other_part else None)


def _search(
    candidates: Iterator[_Candidate],
    readings: list[tuple[float, float]],
    operands: Sequence[Operand],
) -> Explained | None:
    neighbourhood = 0
    missed: set[str] = set()  # operations over the sentence's own numbers that nearly fit
    hit: tuple[int, float, str, str, tuple[Operand | str, ...], float, float] | None = None
    current = 0
    # Past this many neighbours no hit can be accepted any more: the search may stop.
    enough = ACCEPT / min(width / (target * _LOG_SPREAD) for target, width in readings if target)
    for looked, (tier, value, formula, operation, texts) in enumerate(candidates):
        if looked >= _MAX_CANDIDATES:
            break  # the search is bounded: a hit further on would be a weak one anyway
        if tier != current:
            if hit is not None or neighbourhood >= enough:
                break
            current = tier
        for target, width in readings:
            if target / _SPREAD <= value <= target * _SPREAD:
                neighbourhood += 1
                off = abs(value - target)
                if hit is None and off <= width / 2 * 1.000001:
                    hit = (tier, value, formula, operation, texts, target, width)
                elif tier == 0 and off <= target * _NEAR_MISS:
                    missed.add(operation)
    if hit is None:
        return None
    tier, value, formula, operation, texts, target, width = hit
    if tier and operation in missed:
        # The numbers stated beside it, in the same operation, miss it: the writer
        # computed from those and slipped; another pair landing on it is chance.
        return None
    chance = min(1.0, max(1, neighbourhood) * width / (target * _LOG_SPREAD))
    conflict = _conflict(texts, operands) if tier else None
    if chance >= ACCEPT or conflict == ():
        return None
    shown = [text.text if isinstance(text, Operand) else text for text in texts]
    written = formula.format(*shown) if texts else formula
    pair = conflict or None
    return Explained(value, f"{written} (chance {chance:.1%})", operation, chance, tier, pair)


def rescue(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
) -> None:
    """Give each number still unsupported (an orphan, or a miss of the operation its
    words name) the derivation the closed search accepts, if any; its finding goes."""
    units = units_of(claims)
    budget = [_MAX_RESCUES]
    for position, claim in enumerate(claims):
        if budget[0] <= 0:
            break
        derivation = claim.derivation
        if derivation is not None and claim.hit is None:
            low, high = sentence_of(claim.mention.start, claim.mention.end)
            if wrong_base_change(
                derivation.formula, direction_of(body, claims, position, low, high)
            ):
                claim.derivation = None  # the search below may still find the writer's
            elif _stated_cells(claims, position, low, high) >= 2:
                # The fixpoint's result where its sentence states operands: does the
                # writer's row take another cell in place of one of them (a wrong period)?
                claim.derivation = None
                budget[0] -= 1
                if not _rescue(body, claims, position, index, sentence_of, units):
                    claim.derivation = derivation
    for _ in range(_ROUNDS):
        changed = False
        for position, claim in enumerate(claims):
            if _eligible(claim) and budget[0] > 0:
                budget[0] -= 1
                changed = _rescue(body, claims, position, index, sentence_of, units) or changed
        if not changed:
            break


# What the words name (`_cues`), as the operations of this search.
_OPERATIONS = {
    CHANGE: ("difference", "percent change", "points"),
    SUM: ("sum",),
    MEAN: ("average",),
    SHARE: ("share",),
    MULTIPLE: ("multiple",),
    POINTS: ("points",),
    CAGR: ("CAGR",),
}
_MAX_RESCUES = 300  # numbers of one report given the search (a wall stops there)
_ROUNDS = 2  # a result stated from another derived one in a later sentence


def _eligible(claim: Claim) -> bool:
    mention = claim.mention
    return not (
        supported(claim)
        or wrong_calculation(claim)
        or claim.operand
        or mention.in_range
        or small_integer(mention)
    )


def _stated_cells(claims: Sequence[Claim], position: int, low: int, high: int) -> int:
    """How many other numbers of the sentence match an evidence cell."""
    return sum(
        1
        for at in around(position, len(claims))
        if claims[at].hit is not None and low <= claims[at].mention.start < high
    )


def _rescue(
    body: str,
    claims: Sequence[Claim],
    position: int,
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
    units: dict[int, float],
) -> bool:
    claim = claims[position]
    mention = claim.mention
    low, high = sentence_of(mention.start, mention.end)
    words = body[low:high]
    operands = pool(position, claims, index, (low, high), words, units)
    direction = direction_of(body, claims, position, low, high)
    cue = cue_of(body, mention.start, mention.end, (low, high), low, high)
    named = frozenset(operation for kind in cue.kinds for operation in _OPERATIONS.get(kind, ()))
    if claim.close and not named:
        return False  # close to a cell its words name, and no words of a result: a slip
    found = explain(
        claim, body, operands, periods_named(words), direction, named, claim.close != []
    )
    if found is None:
        return False
    if found.conflict is not None:
        stated, cell = found.conflict
        other = next(
            (
                claims[at]
                for at in around(position, len(claims))
                if claims[at].index == stated.position
            ),
            None,
        )
        if other is not None and other.hit is not None and cell.entry >= 0:
            # The stated number is another period's cell of the row the result needs.
            other.other_period = index.number(cell.entry)
            other.other_period_proof = f"{mention.text} = {found.formula}"
            other.other_period_chance = found.chance
        else:
            return False
    claim.derivation = Derivation(
        value=Decimal(repr(found.value)),
        formula=found.formula,
        source_ref="calculator",
        label=found.operation,
    )
    claim.miss = None
    claim.rescaled = None
    claim.close = []
    claim.depends = ()
    return True
