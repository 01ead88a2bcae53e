"""A result in words that nothing explains, whose digits are a derivation's with two
neighbours swapped ("up 78.9%" where the closed search gives 87.9%), a ratio shown as
a percentage without the x100 ("0.458%" for 45.8%), or a derivation's digits under the
next scale word up or down ("averaged $1.86 million" for two cells in millions averaging
1,861.5): a slip of the hand, fixed to the derived value with the calculator's
expression as proof.

The variants of the written number are searched together, as the number itself would be
(the closed search of :mod:`._derive`, over the operands its sentence and the evidence it
names offer, by the operations its words name): one search whose chance of a coincidence
counts the candidates near any variant (each variant is a try), accepted under `_CHANCE`.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from validation.engine.checks.numeric._context import _sentence
from validation.engine.checks.numeric._cues import cue_of, header_kinds
from validation.engine.checks.numeric._derive import _OPERATIONS
from validation.engine.checks.numeric._derive_accept import Explained, _readings, _search
from validation.engine.checks.numeric._derive_bound import may_hit
from validation.engine.checks.numeric._derive_candidates import WRITERS, candidates
from validation.engine.checks.numeric._derive_pool import (
    direction_of,
    pool,
    supported,
    units_of,
)
from validation.engine.checks.numeric._derive_years import periods_named
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._formatting import replace_digits, replace_scale
from validation.engine.checks.numeric._lexicon import written_as_multiple
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._misquotes import _swaps
from validation.engine.checks.numeric._outcome import _Output, _SentenceNumbers
from validation.engine.checks.numeric._worded_fix import worded_result_fix
from validation.engine.types import EvidenceExcerpt, ToolCallRecord

_CHANCE = 0.02  # each variant's derivation must be this unlikely a coincidence
_TIER = WRITERS  # its operands stated in the sentence, or one stated and the other in its row
_MAX_TRIED = 40  # numbers of one report looked at (a wall costs the same as a memo)
_MIN_DIGITS = 3


def swapped_results(
    body: str, index: EvidenceIndex, sentences: _SentenceNumbers
) -> dict[int, tuple[Decimal, int, Decimal, Explained]]:
    """For the unsupported results of the report (by position in `sentences.claims`):
    the one variant of the written number a derivation explains, and that derivation."""
    claims = sentences.claims
    # The same report judged again against the same evidence: the answer remembered.
    key = ("swapped", body, tuple(_state(claim) for claim in claims))
    remembered: dict[int, tuple[Decimal, int, Decimal, Explained]] | None = index.memo.get(key)
    if remembered is not None:
        return dict(remembered)
    units = units_of(claims)
    found: dict[int, tuple[Decimal, int, Decimal, Explained]] = {}
    tried = 0
    for position, claim in enumerate(claims):
        if not _candidate(claim):
            continue
        tried += 1
        if tried > _MAX_TRIED:
            break
        hit = _explained_variant(body, index, sentences, position, units)
        if hit is not None:
            found[position] = hit
    index.remember(key, found)
    return dict(found)


def _state(claim: Claim) -> tuple[object, ...]:
    """Everything of a claim besides its words (the body's) the search above reads: its
    match, near misses and rescaled reading, calculation, derivation and the rest."""
    hit, calculation, derivation = claim.hit, claim.calculation, claim.derivation
    return (
        claim.index,
        (hit.number.entry, hit.status, hit.factor) if hit is not None else None,
        tuple([near.number.entry for near in claim.close]) if claim.close else (),
        claim.rescaled.number.entry if claim.rescaled is not None else -1,
        (calculation.correct, calculation.calculation.strict) if calculation else None,
        (derivation.formula, derivation.value) if derivation is not None else None,
        claim.miss is not None,
        claim.depends,
        claim.operand,
        claim.in_expression,
        claim.computed,
        claim.other_period.entry if claim.other_period is not None else -1,
    )


def _candidate(claim: Claim) -> bool:
    mention = claim.mention
    if supported(claim) or claim.miss is not None or claim.depends or claim.operand:
        return False
    if claim.in_expression or claim.calculation is not None or claim.other_period is not None:
        return False
    if claim.close or claim.rescaled is not None or mention.in_range:
        return False
    return not small_integer(mention) and bool(mention.written)


def _variants(claim: Claim) -> list[tuple[Decimal, int, Decimal]]:
    """(value as written, decimals, scale) of each variant of the claim's number: its
    digits with two neighbours swapped, a ratio x100, or its digits under the next scale
    word up or down ("$8.5 billion" for 8.5 million)."""
    mention = claim.mention
    scale = mention.scale
    shown = f"{abs(mention.written):.{max(mention.decimals, 0)}f}"
    digits = shown.replace(".", "")
    point = len(shown) - shown.index(".") - 1 if "." in shown else 0
    variants: list[tuple[Decimal, int, Decimal]] = []
    if len(digits.lstrip("0")) >= _MIN_DIGITS:
        variants += [(value, point, scale) for value in _swaps(digits, point)]
    if mention.unit == "%" and abs(mention.written) < 1:
        variants.append((abs(mention.written) * 100, max(mention.decimals - 2, 0), scale))
    if mention.has_explicit_scale and not mention.is_percent:
        for other in (scale * 1000, scale / 1000):
            if other in _SCALE_WORDS:
                variants.append((abs(mention.written), mention.decimals, other))
    return variants


_SCALE_WORDS = frozenset(Decimal(10) ** power for power in (3, 6, 9, 12))


def _explained_variant(
    body: str,
    index: EvidenceIndex,
    sentences: _SentenceNumbers,
    position: int,
    units: dict[int, float],
) -> tuple[Decimal, int, Decimal, Explained] | None:
    claims = sentences.claims
    claim = claims[position]
    mention = claim.mention
    variants = _variants(claim)
    if not variants:
        return None
    low, high = _sentence(body, sentences.newlines, mention.start, mention.end)
    words = body[low:high]
    cue = cue_of(body, mention.start, mention.end, (low, high), low, high)
    kinds = cue.kinds
    if not kinds and _in_table_row(body, mention.start):
        kinds = header_kinds(mention.label)  # a computed column: its header names the operation
    named = frozenset(operation for kind in kinds for operation in _OPERATIONS.get(kind, ()))
    if not named:
        return None  # no words of a result: a figure, not a slip of a calculation
    operands = pool(position, claims, index, (low, high), words, units)
    direction = direction_of(body, claims, position, low, high)
    periods = periods_named(words)
    sign = -1 if mention.written < 0 else 1
    kind = ""
    readings: list[tuple[float, float]] = []
    owners: list[int] = []  # the variant each reading is of
    for at, (value, decimals, scale) in enumerate(variants):
        written = sign * value
        twin = replace(
            mention, written=written, value=written * scale, decimals=decimals, scale=scale
        )
        if twin.is_percent or written_as_multiple(body, twin):
            kind = "percent" if twin.is_percent else "multiple"
            found_readings = [(abs(float(twin.written)), 10.0**-twin.decimals)]
        else:
            kind = "amount"
            found_readings = _readings(twin, body, operands)
        for target, width in found_readings:
            if target:
                readings.append((target, width))
                owners.append(at)
    if not readings or not operands:
        return None
    if not may_hit(operands, kind, readings, periods):
        return None  # no candidate lands on any variant (`_derive_bound`): no hit
    # One search over every variant's readings: each variant is a try, and the chance
    # of a coincidence counts the candidates near any of them.
    found = _search(candidates(operands, kind, periods, direction, named), readings, operands)
    if found is None or found.operation not in named or found.conflict is not None:
        return None
    if found.chance >= _CHANCE or found.tier > _TIER:
        return None
    for (target, width), at in zip(readings, owners, strict=True):
        if abs(found.value - target) <= width / 2 * 1.000001:
            return variants[at][0], variants[at][1], variants[at][2], found
    return None


def _in_table_row(body: str, start: int) -> bool:
    """The number stands in a markdown table's row of the report."""
    line = body.rfind("\n", 0, start) + 1
    return body.startswith("|", line) or body.startswith(" |", line)


def swapped_finding(
    body: str, claim: Claim, found: tuple[Decimal, int, Decimal, Explained], result: _Output
) -> None:
    """The finding and fix of a result whose digits slipped (module docstring)."""
    mention = claim.mention
    value, decimals, scale, derivation = found
    if scale != mention.scale:
        replacement = replace_scale(mention, scale)
        slipped = "the scale word slipped"
    else:
        replacement = replace_digits(replace(mention, decimals=decimals), value)
        slipped = "the digits slipped"
    proof = EvidenceExcerpt(
        source_ref="calculator", excerpt=derivation.formula, label=derivation.operation
    )
    worded_result_fix(
        body,
        mention,
        result,
        message=(
            f'"{mention.text}" follows from no derivation; {replacement} does: '
            f"{derivation.formula} ({slipped})"
        ),
        replacement=replacement,
        proof=proof,
        call=ToolCallRecord(
            tool="derivation_search",
            input={"value": replacement, "operation": derivation.operation},
            output=derivation.formula,
        ),
        verified_with=f"derivation: {derivation.formula}",
        confidence=SWAP_CONFIDENCE,
    )


SWAP_CONFIDENCE = 0.85  # a derivation found for a variant: below a written calculation's
