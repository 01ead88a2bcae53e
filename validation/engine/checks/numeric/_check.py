"""The numeric check: every number the report claims, judged against the evidence.

Each claim gets one status (docs/spec.md §14.1):

- exact   - an evidence number has this value ("$14.8B" and "14.8 billion");
- rounded - an evidence number equals it at the precision shown, scale-aware
  ("$14.8B" and 14,812,000,000; "22.5%" and 0.225; "15,500" in a "(in millions)"
  table and 15.5e9);
- derived - the result of a calculation the report writes out and gets right,
  or a sum / difference / product / ratio / share / percent change of two
  evidence numbers ("20,875" = call volume 10,899 + put volume 9,976);
- close_but_wrong - within `relative_tolerance` of an evidence number but not
  equal at the precision shown; judged against the *nearest* evidence value,
  ties broken by label agreement;
- orphan - none of the above.

Not claims: what `_extract` skips (years, dates, list numbers...),
numbers quoted from the query, the constant 100 of a percentage formula, and
small integers (<= 10, no unit, no decimals) that the evidence does not contain
("top 3 reasons", "2 risks").

Findings: orphan -> no_hallucinations/orphan/major; close -> claims_supported/
close_but_wrong/major; a wrong written calculation -> claims_supported/
arithmetic/major (and nothing else for that number: one problem, one finding).
Fixes: the recomputed result of a wrong calculation (confidence 0.99), and the
evidence value for a close number when exactly one evidence number clearly fits
(confidence 0.85-0.95 by label agreement); never a fix when it is ambiguous.

Where things live (see the package docstring): `_extract` reads numbers, `_evidence`
indexes the evidence, `_matching` matches one claim (exact / rounded / close),
`_search` runs the bounded derived search, `_arithmetic` checks written calculations;
this module puts them together, and `_assemble` and `_findings` write the findings and
fixes.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from validation.engine.calculator import clear_cache as calculator_cache_clear
from validation.engine.caps import MAX_NUMBERS_JUDGED, numbers_limit_finding
from validation.engine.checks.numeric._arithmetic import check, find_calculations
from validation.engine.checks.numeric._assemble import _assemble
from validation.engine.checks.numeric._calculations import clear_cache as calculations_cache_clear
from validation.engine.checks.numeric._calculations import exact
from validation.engine.checks.numeric._calculations import read as read_calculations
from validation.engine.checks.numeric._context import (
    _BY_BEFORE,
    _OPERATOR_AFTER,
    _OPERATOR_BEFORE,
    _citations,
    _cited_in,
    _line,
    _query_numbers,
    _quoted,
    newlines_of,
    sentence_reader,
)
from validation.engine.checks.numeric._derive import rescue
from validation.engine.checks.numeric._derive_pool import supported
from validation.engine.checks.numeric._doubt import doubt as doubt_matches
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._expressions import evaluate_all, render
from validation.engine.checks.numeric._extract import extract
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._lexicon import written_as_multiple
from validation.engine.checks.numeric._links import constant_roles
from validation.engine.checks.numeric._matching import (
    Claim,
    Derivation,
    Hit,
    calculated,
    match_claim,
    small_integer,
    wrong_calculation,
)
from validation.engine.checks.numeric._misses import judge as judge_misses
from validation.engine.checks.numeric._names import continues_names, model_name
from validation.engine.checks.numeric._operations import Miss
from validation.engine.checks.numeric._outcome import NumericResult, _SentenceNumbers
from validation.engine.checks.numeric._precision import OperandFacts
from validation.engine.checks.numeric._readings import clear_readings
from validation.engine.checks.numeric._references import unknown_references
from validation.engine.checks.numeric._search import evidence_scale
from validation.engine.checks.numeric._second_look import second_look
from validation.engine.checks.numeric._support import ground
from validation.engine.checks.numeric._types import (
    CheckedCalculation,
    Expression,
    NumberMention,
    WrittenCalculation,
)
from validation.engine.checks.numeric._writers_scale import read_at_writers_scale
from validation.engine.types import EngineSettings, ToolCallRecord


def analyze(
    body: str,
    index: EvidenceIndex,
    *,
    query: str = "",
    settings: EngineSettings,
    mentions: Sequence[NumberMention] | None = None,
    newlines: list[int] | None = None,
    counted: int | None = None,
) -> NumericResult:
    """Judge every numeric claim of `body` against `index` (see the module docstring); past
    `caps.MAX_NUMBERS_JUDGED` numbers, one finding counts the ones left unchecked.

    `mentions` and `newlines` are what `extract` and `newlines_of` read from `body`,
    when the caller has read them already (`validate()` passes its report reading's: the
    mentions up to one past the cap, and `counted`, how many the body states)."""
    tolerance = settings.relative_tolerance
    mentions = extract(body, labelled=MAX_NUMBERS_JUDGED) if mentions is None else list(mentions)
    unread = mentions[MAX_NUMBERS_JUDGED:]
    mentions = mentions[:MAX_NUMBERS_JUDGED]
    quoted = _query_numbers(query)

    citations = _citations(body, index)
    if newlines is None:
        newlines = newlines_of(body)
    claims: list[Claim] = []
    by_position: dict[int, Claim] = {}
    named_until = -1  # the end of the last number that is part of a name
    for position, mention in enumerate(mentions):
        if _quoted(mention, quoted) or _scaling_constant(body, mention):
            continue
        if model_name(body, mention) or (
            named_until >= 0 and continues_names(body, named_until, mention)
        ):
            named_until = mention.end
            continue
        claim = Claim(
            position,
            mention,
            cited=_cited_in(citations, _line(newlines, len(body), mention.start)),
        )
        began = time.perf_counter()
        match_claim(claim, index, tolerance, multiple=written_as_multiple(body, mention))
        claim.search_ms = (time.perf_counter() - began) * 1000
        claims.append(claim)
        by_position[position] = claim

    reading = read_calculations(body, mentions)
    written_calculations = find_calculations(body, mentions, reading)
    computed = _computed_values(
        written_calculations,
        reading.expressions,
        mentions,
        lambda at: _known_scale(mentions[at], by_position.get(at), index),
    )
    constants: set[int] = set()
    operands: set[int] = set()
    facts: dict[int, OperandFacts] = {}
    for calculation in written_calculations:
        roles = constant_roles(calculation.tree, mentions) if calculation.tree else {}
        for operand in calculation.operands:
            mention = mentions[operand]
            role = roles.get(operand)
            found = by_position.get(operand)
            if role in ("hundred", "constant") or (
                role == "divisor" and (found is None or found.hit is None)
            ):
                constants.add(operand)
                continue
            if _scaling_constant(body, mention):
                constants.add(operand)
                continue
            operand_claim = by_position.get(operand)
            if calculation.strict and calculation.tree is not None:
                operands.add(operand)
                if operand_claim is not None and operand_claim.hit is None:
                    match_claim(operand_claim, index, 0.0, operand=True)
            if operand_claim is not None and operand not in facts:
                facts[operand] = _operand_facts(operand_claim, computed, index)
    checked: dict[int, CheckedCalculation] = {}
    tool_calls: list[ToolCallRecord] = []
    for calculation in written_calculations:
        result = check(calculation, mentions, facts)
        if result is None:
            continue
        tool_calls.append(result.tool_call)
        if result.tool_call.error is None:
            checked.setdefault(calculation.result, result)

    in_expressions = {
        operand for expression in reading.expressions for operand in expression.indices
    }
    kept: list[Claim] = []
    for claim in claims:
        claim.in_expression = claim.index in in_expressions
        position = claim.index
        if position in constants and position not in checked:
            continue
        claim.calculation = checked.get(position)
        if position in operands:
            claim.operand = True
        if claim.hit is None and computed.values and not _confirmed_or_judged(claim):
            # An operand computed in an earlier step, or a result restated later.
            claim.computed = _computed_match(claim.index, claim.mention, computed)
        kept.append(claim)
    claims = kept

    _ground(body, claims, index, newlines)
    read_at_writers_scale(body, claims, index, newlines)

    sentences = _SentenceNumbers(claims, [claim.mention.start for claim in claims], newlines)
    numeric = _assemble(body, index, claims, tool_calls, unknown_references(body, index), sentences)
    if unread:
        first = unread[0]
        total = counted if counted is not None else len(mentions) + len(unread)
        numeric.findings.append(numbers_limit_finding(total, first.start, first.end, first.text))
    return numeric


# ------------------------------------------------------------------ support


def _ground(body: str, claims: Sequence[Claim], index: EvidenceIndex, newlines: list[int]) -> None:
    """Support as a fixpoint from the evidence, the results that miss, the closed search
    and its second look (`_support`, `_misses`, `_derive`, `_second_look`). What it decides
    depends on the body and on what matching and the written calculations found; the same
    report judged again against the same evidence takes the decisions remembered on the index."""
    key = ("grounding", body, tuple(_state(claim) for claim in claims))
    remembered: tuple[_Grounded, ...] | None = index.memo.get(key)
    if remembered is None:
        sentence = sentence_reader(body, newlines)
        grounding = ground(
            body,
            claims,
            index,
            sentence,
            eligible=_derivable,
            supported_at_start=_supported_at_start,
            doubt=doubt_matches,
        )
        judge_misses(grounding)
        rescue(body, claims, index, sentence)
        second_look(body, claims, index, sentence, supported, _derivable, grounding.cues)
        remembered = tuple(
            (
                (claim.hit is None, claim.doubted),
                (claim.derivation, claim.miss, claim.depends, claim.rescaled, tuple(claim.close)),
                (claim.other_period, claim.other_period_proof, claim.other_period_chance),
            )
            for claim in claims
        )
        index.remember(key, remembered)
        return
    for claim, ((unmatched, doubted), decided, other) in zip(claims, remembered, strict=True):
        if unmatched:
            claim.hit = None
        claim.doubted = doubted
        claim.derivation, claim.miss, claim.depends, claim.rescaled, close = decided
        claim.close = list(close)
        claim.other_period, claim.other_period_proof, claim.other_period_chance = other


_Decided = tuple[Derivation | None, Miss | None, tuple[str, ...], Hit | None, tuple[Hit, ...]]
_Grounded = tuple[tuple[bool, bool], _Decided, tuple[EvidenceNumber | None, str, float]]


def _state(claim: Claim) -> tuple[object, ...]:
    """What grounding reads of a claim besides the body: its match (its near misses too)
    and calculation."""
    hit = claim.hit
    return (
        claim.index,
        hit.number.entry if hit is not None else -1,
        hit.status if hit is not None else "",
        tuple([(near.number.entry, near.status) for near in claim.close]) if claim.close else (),
        claim.rescaled.number.entry if claim.rescaled is not None else -1,
        claim.calculation is not None and claim.calculation.correct,
        claim.operand,
        claim.computed,
        claim.in_expression,
    )


# ------------------------------------------------------------------ the calculation graph


def _derivable(claim: Claim) -> bool:
    """A number the fixpoint may derive: unsupported, and neither a written
    calculation's result nor its operand (a citation), a small count or a bound."""
    return (
        claim.hit is None
        and not wrong_calculation(claim)
        and not calculated(claim)
        and not claim.operand
        and not claim.computed
        and not small_integer(claim.mention)
        # An end of a range ("4-7%", "$1.7 billion to $1.8 billion") is a bound
        # someone stated, never a sum or ratio of other numbers.
        and not claim.mention.in_range
    )


def _supported_at_start(claim: Claim) -> bool:
    return claim.hit is not None or calculated(claim) or bool(claim.computed)


def _confirmed_or_judged(claim: Claim) -> bool:
    """A calculation speaks for the claim: it computes it, or is written to (strict).
    In "E1 = E2" a number of E2 is only *perhaps* E1's value (a non-strict link): when it
    is not, it may still be a step of E1 restated ("((a - b) / b) = (c / b)")."""
    calculation = claim.calculation
    return calculation is not None and (calculation.correct or calculation.calculation.strict)


@dataclass(frozen=True, slots=True)
class _Computed:
    """Values the report computes on its way, sorted, for operands that reuse them; each
    with the mentions it is computed from (a number never supports itself)."""

    values: list[float]
    formulas: list[str]
    sources: list[frozenset[int]]
    scales: list[Decimal | None]  # the scale its numbers share, when known


def _computed_values(
    calculations: Sequence[WrittenCalculation],
    expressions: Sequence[Expression],
    mentions: Sequence[NumberMention],
    scale_of: Callable[[int], Decimal | None],
) -> _Computed:
    """The value of every sub-expression of every written expression (linked to a
    result or not), and every written result: what a later step may take as an
    operand, or restate; each with the scale its numbers share, when known."""
    found: list[tuple[float, str, frozenset[int]]] = []
    for calculation in calculations:
        if not calculation.strict:
            continue  # "E1 = E2": E2's first number is perhaps E1's value, not written as it
        result = mentions[calculation.result]
        found.append(
            (
                float(abs(result.written)),
                f"{calculation.expression} = {result.text}",
                frozenset((*calculation.operands, calculation.result)),
            )
        )
    values: list[Fraction | None] = [None] * len(mentions)
    texts = [mention.text for mention in mentions]
    for expression in expressions:
        for operand in expression.indices:
            values[operand] = exact(mentions[operand].written)
        described = render(expression.tree, texts)
        sources = frozenset(expression.indices)  # no number of it is computed by it
        for value in evaluate_all(expression.tree, values):
            if value is not None:
                found.append((abs(float(value)), described, sources))
    found.sort(key=lambda entry: entry[0])
    shared: dict[frozenset[int], Decimal | None] = {}
    for _, _, sources in found:
        if sources not in shared:
            known = {scale_of(at) for at in sources if not mentions[at].is_percent} - {None}
            shared[sources] = next(iter(known)) if len(known) == 1 else None
    return _Computed(
        [value for value, _, _ in found],
        [formula for _, formula, _ in found],
        [sources for _, _, sources in found],
        [shared[sources] for _, _, sources in found],
    )


def _known_scale(
    mention: NumberMention, claim: Claim | None, index: EvidenceIndex
) -> Decimal | None:
    """The scale a number's digits are in: its own ("$4.2 billion"), or the one the
    evidence gives the number it matches ("0.4" in a table "in millions")."""
    if mention.has_explicit_scale:
        return mention.scale
    if claim is None or claim.hit is None or mention.is_percent:
        return None
    scale = evidence_scale(claim.hit.number, claim.hit.factor, index)
    return Decimal(repr(scale)) if scale is not None else None


def _computed_match(position: int, mention: NumberMention, computed: _Computed) -> str:
    """How the report computed `mention` (the mention at `position`) from other numbers,
    or "": a computed value equal to it at the precision shown, or cut short to it
    (0.65387 written as 0.6538); a percentage may restate a fraction (0.6539 as 65.39%)
    and a fraction a percentage. A number with its own scale restates a value of
    numbers at that scale only ("€172 billion" is no mean of amounts in millions)."""
    written = float(abs(mention.written))
    step = 10.0**-mention.decimals
    readings = [(written, 1.0)]
    if mention.is_percent:
        readings.append((written / 100, 0.01))
    elif written < 10:
        readings.append((written * 100, 100.0))
    values = computed.values
    scaled = mention.has_explicit_scale and not mention.is_percent
    for target, factor in readings:
        low = target - step * factor / 2 * 1.0000001
        high = target + step * factor
        position_in = bisect_left(values, low)
        while position_in < len(values) and values[position_in] < high:
            known = computed.scales[position_in]
            at_scale = not scaled or known is None or known == mention.scale
            if position not in computed.sources[position_in] and at_scale:
                return computed.formulas[position_in]
            position_in += 1
    return ""


def _operand_facts(claim: Claim, computed: _Computed, index: EvidenceIndex) -> OperandFacts:
    """The scale the evidence gives an operand's digits (its own scale, or the one
    its document declares), and whether the digits are exact."""
    hit = claim.hit
    if hit is None:
        return OperandFacts(
            scale=None, inexact=bool(_computed_match(claim.index, claim.mention, computed))
        )
    cited = True
    number = hit.number
    scale: Decimal | None = None
    if number.has_scale and number.written:
        ratio = abs(number.full_value / number.written)
        if ratio != 1:
            scale = ratio
    elif hit.factor == 1 and not number.is_percent:
        scale = index.declared_scale(number.item)
    return OperandFacts(scale=scale, inexact=hit.status != "exact", cited=cited)


def reset_caches() -> None:
    """Forget every module-level memo (label tokens, readings, calculator
    results), so a benchmark can measure a truly cold start."""
    label_tokens.cache_clear()
    clear_readings()
    calculator_cache_clear()
    calculations_cache_clear()


def _scaling_constant(body: str, mention: NumberMention) -> bool:
    """The 100 of "* 100", "x 100%", "multiply by 100" (and the 1,000 of "divide by
    1,000"): a constant that converts a ratio or a scale, never a claim about the
    evidence - in a calculation or in the prose describing one."""
    if (
        mention.written not in _SCALING
        or mention.unit not in ("", "%")
        or mention.has_explicit_scale
    ):
        return False
    if mention.unit == "%" and mention.written != 100:
        return False
    return (
        _OPERATOR_BEFORE.search(body, max(0, mention.start - 4), mention.start) is not None
        or _BY_BEFORE.search(body, max(0, mention.start - 4), mention.start) is not None
        or _OPERATOR_AFTER.match(body, mention.end, mention.end + 4) is not None
    )


_SCALING = frozenset((Decimal(100), Decimal(1000)))
