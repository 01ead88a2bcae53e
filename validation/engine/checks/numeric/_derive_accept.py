"""Acceptance by evidence, not by closeness: of the candidates a look of the closed derived
search (`_derive`) yields, the first hit whose chance of a coincidence is small.

Candidates come in tiers of how strongly they are the writer's. A hit in tier t is weighed
against every candidate of tiers 0..t within a factor ``_SPREAD`` of the claim: its chance
is the share of that range their rounding windows cover. A look the words specify whole
(`_derive_spec`, `_derive_shares`) whose every candidate lands in the claim's window is the
writer's own arithmetic verified, whatever its chance. docs/derivations.md tells the whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import STATED, Operand, supported
from validation.engine.checks.numeric._derive_taken import computed_step, conflict_of, displaced_row
from validation.engine.checks.numeric._matching import Claim, small_integer, wrong_calculation
from validation.engine.checks.numeric._types import NumberMention

ACCEPT = 0.05  # the largest chance of a coincidence a derivation may carry
_MAX_CANDIDATES = 600  # candidate values looked at for one number
_NEAR_MISS = 0.15  # a slip of the writer's own operation lands this close, relatively
_SPREAD = 3.0  # candidates within this factor of the claim make its neighbourhood
_LOG_SPREAD = 2 * math.log(_SPREAD)


@dataclass(frozen=True, slots=True)
class Explained:
    value: float
    formula: str
    operation: str
    chance: float
    tier: int
    # (the stated number, the cell of its row the derivation takes instead)
    conflict: tuple[Operand, Operand] | None = None
    used: frozenset[int] = frozenset()  # the claims (their index) the derivation takes
    step: bool = False  # the conflict's stated number is the sum or difference of two cells
    # The row whose cell it takes in place of the row's other cell its sentence states
    # (see `_derive_taken.displaced_row`), or -1.
    displaced: int = -1
    entries: tuple[int, ...] = ()  # the evidence cells it takes


def _search(
    found: Iterator[Candidate],
    readings: list[tuple[float, float]],
    operands: Sequence[Operand],
    whole: bool = False,
    own: bool = False,
    guesses: list[str] | None = None,
) -> Explained | None:
    """The first hit among `found` whose chance of a coincidence is below `ACCEPT`. With
    `whole`, `found` are the candidates a specification its words give whole (`Spec.whole`):
    when every one of them lands in the hit's window, the hit is the writer's own
    arithmetic verified, accepted whatever its chance (`_whole`). With `own`, `found` are
    of the operation its words name: when those over the numbers its sentence states
    (tier 0) all land, so is a hit among them ("from 0.81 to 0.78, a decline of 0.03")."""
    values: list[float] = []
    stated: list[float] = []  # the tier-0 candidates' values
    if whole:
        listed = list(islice(found, _MAX_CANDIDATES))
        values = [candidate[1] for candidate in listed]
        found = iter(listed)
    neighbourhood = 0
    near: list[list[float]] = [[] for _ in readings]  # the neighbours' values, per reading
    missed: set[str] = set()  # operations over the sentence's own numbers that nearly fit
    hit: tuple[float, float, str, str, tuple[Operand | str, ...], float, float] | None = None
    current = 0.0
    # Past this many neighbours no hit can be accepted any more: the search may stop.
    enough = ACCEPT / min(width / (target * _LOG_SPREAD) for target, width in readings if target)
    for looked, (tier, value, formula, operation, texts) in enumerate(found):
        if looked >= _MAX_CANDIDATES:
            break  # the search is bounded: a hit further on would be a weak one anyway
        if tier == 0:
            stated.append(value)
        if tier != current:
            if hit is not None or (neighbourhood >= enough and _covered(near, readings) >= enough):
                break
            current = tier
        for reading, (target, width) in enumerate(readings):
            if target / _SPREAD <= value <= target * _SPREAD:
                neighbourhood += 1
                near[reading].append(value)
                off = abs(value - target)
                if hit is None and off <= width / 2 * 1.000001:
                    hit = (tier, value, formula, operation, texts, target, width)
                elif tier < 1 and off <= target * _NEAR_MISS:
                    missed.add(operation)
    if hit is None:
        return None
    tier, value, formula, operation, texts, target, width = hit
    if tier >= 1 and operation in missed:
        # The numbers stated beside it, in the same operation, miss it: the writer
        # computed from those and slipped; another pair landing on it is chance.
        return None
    chance = min(1.0, max(1.0, _covered(near, readings)) * width / (target * _LOG_SPREAD))
    conflict = conflict_of(texts, operands) if tier >= 1 else None
    specified = whole and conflict is None and _whole(values, target, width)
    sentence = own and tier == 0 and conflict is None and _whole(stated, target, width)
    verified = specified or sentence
    if conflict == ():
        return None
    shown = [text.text if isinstance(text, Operand) else text for text in texts]
    written = formula.format(*shown) if texts else formula
    if chance >= ACCEPT and not verified:
        if guesses is not None:  # a hit all the same: the reviewer may weigh it
            guesses.append(f"{written} (chance {chance:.1%})")
        return None
    formula = f"{written} (chance {chance:.1%})"
    if chance >= ACCEPT:  # verified: the words' one derivation, not a search's find
        whole_of = "specified whole" if specified else "its sentence's numbers"
        formula = f"{written} (chance {chance:.1%} as a search; {whole_of}: its one value)"
    pair = conflict or None
    cells = [text for text in texts if isinstance(text, Operand)]
    used = frozenset(cell.position for cell in cells)
    step = pair is not None and computed_step(pair[0], cells)
    displaced = displaced_row(cells, operands) if tier >= 1 else -1
    return Explained(
        value,
        formula,
        operation,
        chance,
        int(tier),
        pair,
        used,
        step,
        displaced,
        tuple(cell.entry for cell in cells if cell.entry >= 0),
    )


def _whole(values: Sequence[float], target: float, width: float) -> bool:
    """Every candidate of a specification lands in the claim's window: the words leave one
    value, so the hit is no pick among several (docs/derivations.md, "Specified whole")."""
    return bool(values) and all(abs(value - target) <= width / 2 * 1.000001 for value in values)


def _covered(near: Sequence[list[float]], readings: Sequence[tuple[float, float]]) -> float:
    """How many windows the neighbours cover, each reading's windows counted once where
    they overlap: candidates that are one value reached several ways ("181 / 81,731" and
    "(81,912 - 81,731) / 81,731") cover no more of the range than one does."""
    covered = 0.0
    for values, (_, width) in zip(near, readings, strict=True):
        end = -math.inf
        for value in sorted(values):
            low, high = value - width / 2, value + width / 2
            covered += (high - max(low, end)) / width if high > end else 0.0
            end = max(end, high)
    return covered


def restated_results(
    operands: Sequence[Operand], kind: str, readings: Sequence[tuple[float, float]]
) -> Iterator[Candidate]:
    """The results the report derives or calculates elsewhere, each as it stands: a number
    may restate one at its own scale or rounding ("$3.57 million" in a headline for the
    "$3,571 thousand" a bullet sums). Weighed among themselves alone, tier 0. A result on
    the very edge of the number's rounding window ("52 percent" of a 52.5) is no
    restatement: half-way, the writer's rounding cannot tell."""
    percent = kind in ("percent", "points")
    for operand in operands:
        if not operand.derived or operand.percent != percent:
            continue
        if any(
            abs(abs(operand.value - target) - width / 2) <= 1e-9 * target
            for target, width in readings
        ):
            continue
        yield 0, operand.value, "{0}", "restated result", (operand,)


def restated_aside(
    body: str, mention: NumberMention, place: int, operands: Sequence[Operand]
) -> list[Candidate]:
    """The number written right before the claim, when the claim restates it in an aside
    ("fell by $1,508 thousand (about $1.5 million)", "$9,538.4 million, or roughly $9.5
    billion"): the one candidate the words give, weighed alone. `place`: the claim's place
    among the report's numbers."""
    if _ASIDE.search(body, max(0, mention.start - _ASIDE_REACH), mention.start) is None:
        return []
    before = stated_before(operands, place)
    if before is None or before.percent != mention.is_percent:
        return []
    return [(0.0, before.value, "{0}", "restated result", (before,))]


_ASIDE_REACH = 24
# "(about", ", or roughly": the words between a number and its restatement.
_ASIDE = re.compile(
    r"\d[^\s\d(,]*(?:[ \t]+(?:thousand|million|billion|trillion))?"
    r"(?:[ \t]*\([ \t]*|,?[ \t]+or[ \t]+)"
    r"(?:(?:about|roughly|around|approximately|nearly|some|just[ \t]+(?:under|over))[ \t]+)?"
    r"[^\s\d]{0,3}\Z"
)


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


def stated_before(operands: Sequence[Operand], place: int) -> Operand | None:
    """The operand of the number the report writes right before the one at `place` (its
    place among the report's numbers), when the claim's sentence states it."""
    return next((o for o in operands if o.position == place - 1 and o.strength == STATED), None)


def eligible(claim: Claim) -> bool:
    """A number the closed search is asked about: unsupported, no operand of a written
    calculation, no bound of a range, no small count."""
    mention = claim.mention
    return not (
        supported(claim)
        or wrong_calculation(claim)
        or claim.operand
        or mention.in_range
        or small_integer(mention)
    )
