"""The numeric check: every number the report claims, judged against the evidence.

Each claim gets one status (seed: hallucination mitigation, Task 8):

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

Not claims: what `numbers.extract` skips (years, dates, list numbers...),
numbers quoted from the query, the constant 100 of a percentage formula, and
small integers (<= 10, no unit, no decimals) that the evidence does not contain
("top 3 reasons", "2 risks").

Findings: orphan -> no_hallucinations/orphan/major; close -> claims_supported/
close_but_wrong/major; a wrong written calculation -> claims_supported/
arithmetic/major (and nothing else for that number: one problem, one finding).
Fixes: the recomputed result of a wrong calculation (confidence 0.99), and the
evidence value for a close number when exactly one evidence number clearly fits
(confidence 0.85-0.95 by label agreement); never a fix when it is ambiguous.

Where things live: `numbers.extract` reads numbers, `numbers.evidence` indexes
the evidence, `numbers.matching` matches one claim (exact / rounded / close),
`numbers.derive` runs the bounded derived search, `arithmetic` checks written
calculations; this module puts them together and writes findings and fixes.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from pydantic import TypeAdapter

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.calculator import clear_cache as calculator_cache_clear
from validation.engine.checks.numeric._arithmetic import (
    CheckedCalculation,
    OperandFacts,
    WrittenCalculation,
    check,
    constant_roles,
    find_calculations,
)
from validation.engine.checks.numeric._calculations import Expression, evaluate_all, exact, render
from validation.engine.checks.numeric._calculations import clear_cache as calculations_cache_clear
from validation.engine.checks.numeric._calculations import read as read_calculations
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._extract import CURRENCY_CODES, NumberMention, extract
from validation.engine.checks.numeric._formatting import replace_digits, replace_scale
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import (
    Claim,
    Derivation,
    Hit,
    calculated,
    clear_readings,
    match_claim,
    small_integer,
    wrong_calculation,
)
from validation.engine.checks.numeric._misses import doubt as doubt_matches
from validation.engine.checks.numeric._misses import judge as judge_misses
from validation.engine.checks.numeric._operations import Miss
from validation.engine.checks.numeric._references import UnknownReference, unknown_references
from validation.engine.checks.numeric._search import evidence_scale
from validation.engine.checks.numeric._support import ground
from validation.engine.spans import widen_to_unique
from validation.engine.types import (
    EngineSettings,
    EvidenceExcerpt,
    Finding,
    FixProposal,
    NumberMatch,
    NumbersReport,
    ToolCallRecord,
)

# Label agreement a close-but-wrong number needs before its evidence value is proposed
# as the fix (a number-changing fix on a correct report is the worst outcome).
MIN_FIX_LABEL = 0.5
# Fixes proposed for one report at most. Each needs a FIND unique in the body (searches of
# the whole body), and a reviewer gains nothing from the 101st: the findings stay complete,
# and the rest get their fixes on the next revision.
MAX_FIXES = 100
# The digits and the label agree with an evidence number; only the scale word differs.
SCALE_FIX_CONFIDENCE = 0.9


@dataclass
class NumericResult:
    report: NumbersReport
    findings: list[Finding] = field(default_factory=list)
    fixes: list[FixProposal] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    claim_spans: list[tuple[int, int]] = field(default_factory=list)


def analyze(
    body: str,
    index: EvidenceIndex,
    *,
    query: str = "",
    settings: EngineSettings | None = None,
) -> NumericResult:
    """Judge every numeric claim of `body` against `index` (see the module docstring)."""
    settings = settings or EngineSettings()
    tolerance = settings.relative_tolerance
    mentions = extract(body)
    quoted = _query_numbers(query)

    citations = _citations(body, index)
    newlines = _newlines(body)
    claims: list[Claim] = []
    by_position: dict[int, Claim] = {}
    named_until = -1  # the end of the last number that is part of a name
    for position, mention in enumerate(mentions):
        if _quoted(mention, quoted) or _scaling_constant(body, mention):
            continue
        if _model_name(body, mention) or (
            named_until >= 0 and _continues_names(body, named_until, mention)
        ):
            named_until = mention.end
            continue
        claim = Claim(
            position,
            mention,
            cited=_cited_in(citations, _line(newlines, len(body), mention.start)),
        )
        began = time.perf_counter()
        match_claim(claim, index, tolerance)
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

    sentences = _SentenceNumbers(claims, [claim.mention.start for claim in claims], newlines)
    return _assemble(body, index, claims, tool_calls, unknown_references(body, index), sentences)


# ------------------------------------------------------------------ support


def _ground(body: str, claims: Sequence[Claim], index: EvidenceIndex, newlines: list[int]) -> None:
    """Support as a fixpoint from the evidence, then the results that miss
    (`numbers.support`, `numbers.misses`). What it decides for the claims depends on the
    body and on what matching and the written calculations found; the same report
    judged again against the same evidence takes the decisions remembered on the index."""
    key = ("grounding", body, tuple(_state(claim) for claim in claims))
    remembered: tuple[_Grounded, ...] | None = index.memo.get(key)
    if remembered is None:
        grounding = ground(
            body,
            claims,
            index,
            lambda start, end: _sentence(body, newlines, start, end),
            eligible=_derivable,
            supported_at_start=_supported_at_start,
            doubt=doubt_matches,
        )
        judge_misses(grounding)
        remembered = tuple(
            (claim.hit is None, claim.derivation, claim.miss, claim.depends) for claim in claims
        )
        index.remember(key, remembered)
        return
    for claim, (doubted, derivation, miss, depends) in zip(claims, remembered, strict=True):
        if doubted:
            claim.hit = None
        claim.derivation, claim.miss, claim.depends = derivation, miss, depends


_Grounded = tuple[bool, "Derivation | None", "Miss | None", tuple[str, ...]]


def _state(claim: Claim) -> tuple[object, ...]:
    """What grounding reads of a claim besides the body: its match and calculation."""
    hit = claim.hit
    return (
        claim.index,
        hit.number.entry if hit is not None else -1,
        hit.status if hit is not None else "",
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


def _model_name(body: str, mention: NumberMention) -> bool:
    """A bare integer right after a capitalized name inside a sentence ("Boeing 737",
    "Windows 11", "Model 3"): part of a name, not an amount. Not at a sentence start,
    and never a number with separators, decimals, a unit or a scale."""
    if not mention.is_plain_integer() or mention.text != body[mention.start : mention.end]:
        return False
    if _NAME_AFTER.match(body, mention.end, mention.end + 12) is not None:
        return True  # "the 737 MAX", "an A320neo": a model's name goes on after it
    start = mention.start
    if start < 3 or body[start - 1] != " ":
        return False
    word_end = start - 1
    word_start = word_end
    while word_start > 0 and body[word_start - 1].isalpha() and word_end - word_start < 30:
        word_start -= 1
    word = body[word_start:word_end]
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return False
    before = body[max(0, word_start - 2) : word_start]
    sentence_start = word_start == 0 or before.endswith((". ", "\n")) or before in ("\n", ":")
    return not sentence_start and mention.end < len(body) and not body[mention.end].isdigit()


def _continues_names(body: str, last_end: int, mention: NumberMention) -> bool:
    """The next number of a list of names: "the Boeing 747, 777 and 767"."""
    return (
        mention.is_plain_integer()
        and mention.text == body[mention.start : mention.end]
        and _NAME_LIST_GAP.fullmatch(body, last_end, mention.start) is not None
    )


# An all-capitals word right after a bare integer names a model ("737 MAX"), unless it is
# a unit, a currency or a scale.
_NAME_AFTER = re.compile(
    rf"[ ](?!(?:{CURRENCY_CODES}|BPS|BP|PP|MM|BN|MN|KM|KG|MW|GW|GB|TB|MB|AM|PM|YOY|QOQ|TTM)\b)"
    r"[A-Z]{3,}\b"
)
_NAME_LIST_GAP = re.compile(r",?[ \t]+(?:and[ \t]+|or[ \t]+)?|,|/")
_BY_BEFORE = re.compile(r"(?i)\bby[ \t]$")
# Multiplication only: "/ 100" may divide by a cited 100 (the calculation graph decides).
_OPERATOR_BEFORE = re.compile(r"(?:[*\u00d7]|(?<![A-Za-z])[xX])[ \t]*$")
_OPERATOR_AFTER = re.compile(r"[ \t]*(?:[*\u00d7]|[xX](?![A-Za-z]))")


# ------------------------------------------------------------------ query and citations


_CITATION = re.compile(r"\[([^\[\]\n]{1,300})\]")


def _citations(body: str, index: EvidenceIndex) -> list[tuple[int, int]]:
    """(position, evidence item) of every `[source-ref]` citation in the body."""
    if "[" not in body or not index.refs:
        return []
    found: list[tuple[int, int]] = []
    for match in _CITATION.finditer(body):
        for part in re.split(r"[,;]", match.group(1)):
            item = index.refs.get(part.strip().strip("`*^"))
            if item is not None:
                found.append((match.start(), item))
    return found


def _cited_in(citations: list[tuple[int, int]], span: tuple[int, int]) -> frozenset[int]:
    """Evidence items cited within `span` (citations are sorted by position)."""
    if not citations:
        return frozenset()
    low, high = span
    first = bisect_left(citations, (low, -1))
    last = bisect_left(citations, (high, -1))
    return frozenset(item for _, item in citations[first:last])


def _query_numbers(query: str) -> set[Decimal]:
    values: set[Decimal] = set()
    if not query:
        return values
    for mention in extract(query):
        values.add(abs(mention.written))
        values.add(abs(mention.value))
        if mention.is_percent:  # "more than 20%" is quoted again as "0.20 *"
            values.add(abs(mention.written) / 100)
    return values


def _quoted(mention: NumberMention, quoted: set[Decimal]) -> bool:
    return bool(quoted) and (abs(mention.written) in quoted or abs(mention.value) in quoted)


def _newlines(body: str) -> list[int]:
    """Positions of every line break: a line's bounds by bisect, where a search of the
    body from each number made a report without line breaks quadratic."""
    return [match.start() for match in _NEWLINE.finditer(body)]


_NEWLINE = re.compile("\n")


def _line_start(newlines: list[int], position: int) -> int:
    """`body.rfind("\n", 0, position) + 1`."""
    before = bisect_left(newlines, position)
    return newlines[before - 1] + 1 if before else 0


def _sentence(body: str, newlines: list[int], start: int, end: int) -> tuple[int, int]:
    stop = body.rfind(". ", max(0, start - 300), start)
    low = max(stop + 2 if stop >= 0 else 0, _line_start(newlines, start))
    high = len(body)
    for boundary in (". ", "\n"):
        found = body.find(boundary, end, end + 300)
        if 0 <= found < high:
            high = found
    return low, high


def _line(newlines: list[int], size: int, position: int) -> tuple[int, int]:
    after = bisect_left(newlines, position)  # the first break at or after `position`
    return _line_start(newlines, position), newlines[after] if after < len(newlines) else size


_NEARBY_STEPS = 64  # claims looked at for a sentence's unsupported numbers


# ------------------------------------------------------------------ results


def _assemble(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    tool_calls: list[ToolCallRecord],
    references: Sequence[UnknownReference],
    sentences: _SentenceNumbers,
) -> NumericResult:
    result = _Output(tool_calls)
    for reference in references:
        result.finding_dicts.append(_reference_finding(reference))
    matches: list[dict[str, Any]] = []
    close: list[int] = []
    orphans: list[int] = []
    suspicious: list[int] = []
    supported = 0
    for claim in claims:
        mention = claim.mention
        match = _number_match(claim)
        if match is None:
            continue  # a small integer the evidence does not know: not a claim
        result.claim_spans.append((mention.start, mention.end))
        position = len(matches)
        matches.append(match)
        status = match["status"]
        if status in ("exact", "rounded", "derived"):
            supported += 1
        elif wrong_calculation(claim):
            suspicious.append(position)
            _arithmetic_finding(body, claim, result)
        elif claim.miss is not None:
            close.append(position)
            suspicious.append(position)
            _worded_finding(body, claim, claim.miss, result)
        elif claim.rescaled is not None:
            close.append(position)
            suspicious.append(position)
            _scale_finding(body, index, claim, claim.rescaled, result)
        elif status == "close_but_wrong":
            close.append(position)
            suspicious.append(position)
            _close_finding(body, index, claim, result, sentences)
        else:
            orphans.append(position)
            _orphan_finding(claim, result)
    # One validation of all matches is much cheaper than one per number; the
    # seed's lists are views of the same validated matches.
    validated = _MATCHES.validate_python(matches)
    report = NumbersReport.model_construct(
        exact_matches=supported,
        close_matches=[validated[position] for position in close],
        orphan_numbers=[validated[position] for position in orphans],
        suspicious=[validated[position] for position in suspicious],
        matches=validated,
    )
    return NumericResult(
        report=report,
        findings=_FINDINGS.validate_python(result.finding_dicts),
        fixes=_FIXES.validate_python(result.fix_dicts),
        tool_calls=result.tool_calls,
        claim_spans=result.claim_spans,
    )


@dataclass(slots=True)
class _Output:
    """Findings and fixes as plain dicts until one validation at the end."""

    tool_calls: list[ToolCallRecord]
    finding_dicts: list[dict[str, Any]] = field(default_factory=list)
    fix_dicts: list[dict[str, Any]] = field(default_factory=list)
    claim_spans: list[tuple[int, int]] = field(default_factory=list)

    def fixes_full(self) -> bool:
        return len(self.fix_dicts) >= MAX_FIXES


_MATCHES = TypeAdapter(list[NumberMatch])
_FINDINGS = TypeAdapter(list[Finding])
_FIXES = TypeAdapter(list[FixProposal])


def _number_match(claim: Claim) -> dict[str, Any] | None:
    """The NumberMatch fields of one claim."""
    mention = claim.mention
    base = {
        "text": mention.text,
        "value": mention.value,
        "start": mention.start,
        "end": mention.end,
        "label": mention.label,
    }
    calculation = claim.calculation
    if wrong_calculation(claim):
        assert calculation is not None
        return _number_match_of(
            **base,
            status="close_but_wrong",
            evidence_value=calculation.expected,
            source_ref="calculator",
            formula=f"{calculation.calculation.expression} = {calculation.exact}",
        )
    hit = claim.hit
    if hit is not None:
        return _number_match_of(
            **base,
            status="exact" if hit.status == "exact" else "rounded",
            evidence_value=hit.number.value,
            source_ref=hit.number.source_ref,
            evidence_label=hit.number.label,
        )
    if calculation is not None and calculation.correct:
        return _number_match_of(
            **base,
            status="derived",
            evidence_value=calculation.expected,
            source_ref="calculator",
            formula=f"{calculation.calculation.expression} = {calculation.exact}",
        )
    if claim.computed:
        return _number_match_of(
            **base, status="derived", source_ref="report", formula=claim.computed
        )
    if claim.derivation is not None:
        derivation = claim.derivation
        return _number_match_of(
            **base,
            status="derived",
            evidence_value=derivation.value,
            source_ref=derivation.source_ref,
            evidence_label=derivation.label,
            formula=derivation.formula,
        )
    if claim.miss is not None:
        return _number_match_of(
            **base,
            status="close_but_wrong",
            evidence_value=claim.miss.expected,
            source_ref="calculator",
            formula=claim.miss.expression,
        )
    if claim.rescaled is not None:
        number = claim.rescaled.number
        return _number_match_of(
            **base,
            status="close_but_wrong",
            evidence_value=number.full_value,
            source_ref=number.source_ref,
            evidence_label=number.label,
        )
    if small_integer(mention):
        return None
    nearest = _nearest(claim.close)
    if nearest is not None:
        return _number_match_of(
            **base,
            status="close_but_wrong",
            evidence_value=nearest.number.value,
            source_ref=nearest.number.source_ref,
            evidence_label=nearest.number.label,
        )
    return _number_match_of(**base, status="orphan")


def _number_match_of(**fields: Any) -> dict[str, Any]:
    return fields


def _nearest(hits: Sequence[Hit]) -> Hit | None:
    if not hits:
        return None
    return min(hits, key=lambda hit: (round(hit.distance, 12), -hit.label, hit.number.entry))


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """One hit per distinct evidence value (the best-labelled one)."""
    by_value: dict[Decimal, Hit] = {}
    for hit in hits:
        key = abs(hit.number.value) / hit.factor
        current = by_value.get(key)
        if current is None or hit.label > current.label:
            by_value[key] = hit
    return list(by_value.values())


def _unambiguous(hits: Sequence[Hit]) -> Hit | None:
    """The one evidence number a close claim should become, or None when another
    candidate is nearly as good (nearest wins; a rival with a clearly better label,
    or a similar label at a similar distance, makes it ambiguous)."""
    candidates = _distinct(hits)
    best = _nearest(candidates)
    if best is None:
        return None
    for other in candidates:
        if other is best:
            continue
        if other.label >= best.label + 0.2:
            return None
        if other.label >= best.label - 0.1 and other.distance <= 2 * best.distance:
            return None
    return best


def _reference_finding(reference: UnknownReference) -> dict[str, Any]:
    return {
        "check": "no_hallucinations",
        "kind": "orphan",
        "severity": "major",
        "message": (
            f'"{reference.name}" is named in no evidence item, which names '
            + ", ".join(f'"{known}"' for known in reference.known)
        ),
        "start": reference.start,
        "end": reference.end,
        "text": reference.name,
    }


def _label_for(mention: NumberMention) -> str:
    return f" ({mention.label})" if mention.label else ""


def _orphan_finding(claim: Claim, result: _Output) -> None:
    mention = claim.mention
    if claim.depends:
        result.finding_dicts.append(
            {
                "check": "no_hallucinations",
                "kind": "follows_unsupported",
                "severity": "minor",
                "message": (
                    f'"{mention.text}" follows from '
                    + " and ".join(f'"{text}"' for text in claim.depends)
                    + ", which no evidence supports: it is only as good as "
                    + ("that number" if len(claim.depends) == 1 else "those numbers")
                ),
                "start": mention.start,
                "end": mention.end,
                "text": mention.text,
            }
        )
        return
    result.finding_dicts.append(
        {
            "check": "no_hallucinations",
            "kind": "orphan",
            "severity": "major",
            "message": (
                f'"{mention.text}"{_label_for(mention)} is an operand of a written '
                "calculation but appears in no evidence item and is not computed "
                "earlier in the report"
                if claim.operand
                else f'"{mention.text}"{_label_for(mention)} appears in no evidence item and '
                "cannot be derived from the evidence numbers"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
        }
    )


@dataclass(frozen=True, slots=True)
class _SentenceNumbers:
    """The report's numbers, in order, to ask what else a claim's sentence says."""

    claims: Sequence[Claim]
    starts: Sequence[int]
    newlines: list[int]

    def writes(self, body: str, claim: Claim, value: Decimal) -> bool:
        """Another number of the claim's sentence is written as `value` ("$10.40 to
        $10.60, with a mid-point of $10.50"): the report tells the two apart."""
        low, high = _sentence(body, self.newlines, claim.mention.start, claim.mention.end)
        position = bisect_left(self.starts, low)
        for other in self.claims[position : position + _NEARBY_STEPS]:
            if other.mention.start >= high:
                break
            if other is not claim and abs(other.mention.written) == value:
                return True
        return False


def _close_finding(
    body: str, index: EvidenceIndex, claim: Claim, result: _Output, sentence: _SentenceNumbers
) -> None:
    mention = claim.mention
    nearest = _nearest(claim.close)
    assert nearest is not None
    number = nearest.number
    described = f"{_short_label(number.label)} {number.raw}".strip()
    excerpt = index.excerpt(number.entry)
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": (
                f'"{mention.text}" is close to {described} in {number.source_ref} '
                "but not equal at the precision shown"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [excerpt],
        }
    )
    chosen = _unambiguous(claim.close)
    if chosen is None or chosen.label < MIN_FIX_LABEL or result.fixes_full():
        return  # a fix must name the same thing as the claim, not just a nearby value
    if index.shares_row_label(chosen.number.entry):
        return  # the row's label fits each of its columns: it does not pin one value
    if index.written_in_text(chosen.number.entry) and _coarser(chosen, mention):
        return  # "$91,104 thousand" is not made "$90,300 thousand" by a text's "90.3 million"
    written = abs(chosen.number.value) / chosen.factor
    if sentence.writes(body, claim, written):
        return  # the sentence already states that value as another claim
    replacement = replace_digits(mention, written)
    if replacement == mention.text:
        return
    chosen_excerpt = index.excerpt(chosen.number.entry)
    found = f"{chosen.number.source_ref}: {chosen.number.label} = {chosen.number.raw}"
    call = ToolCallRecord(
        tool="evidence_search",
        input={"query": mention.label or mention.text, "value": mention.text},
        output=found,
        duration_ms=round(claim.search_ms, 3),
    )
    result.tool_calls.append(call)
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=f"evidence {found}",
            confidence=round(0.85 + 0.10 * min(1.0, chosen.label), 3),
            kind="close_but_wrong",
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[chosen_excerpt],
        )
    )


def _coarser(hit: Hit, mention: NumberMention) -> bool:
    """The evidence number is written with less precision than the claim (in the
    claim's units): its digits cannot replace the claim's. (Only for text: a JSON
    number's trailing zeros are lost, not absent.)"""
    number = hit.number
    if not number.written:
        return False
    evidence_step = Decimal(1).scaleb(-number.decimals) * abs(number.value / number.written)
    claim_step = Decimal(1).scaleb(-mention.decimals) * hit.factor
    return evidence_step > claim_step


def _arithmetic_finding(body: str, claim: Claim, result: _Output) -> None:
    mention = claim.mention
    checked = claim.calculation
    assert checked is not None and checked.expected is not None
    expression = checked.calculation.expression
    if checked.scale_fix is not None and mention.has_explicit_scale:
        replacement = replace_scale(mention, checked.scale_fix)
    else:
        replacement = replace_digits(mention, checked.expected)
    proof = EvidenceExcerpt(
        source_ref="calculator", excerpt=f"{expression} = {checked.exact}", label="calculator"
    )
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "arithmetic",
            "severity": "major",
            "message": (
                f'"{mention.text}" does not follow from the calculation written before it: '
                f"{expression} = {_short(checked.exact)}, which is {replacement} "
                "at the precision shown"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [proof],
        }
    )
    if replacement == mention.text or result.fixes_full():
        return
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=f"calculator: {expression} = {checked.exact}",
            confidence=0.99,
            kind="arithmetic",
            finding_index=finding_index,
            tool_calls=[checked.tool_call],
            evidence=[proof],
        )
    )


def _scale_finding(
    body: str, index: EvidenceIndex, claim: Claim, rescaled: Hit, result: _Output
) -> None:
    """A number whose digits are an evidence number's at another scale: the scale
    word is wrong ("$47.5 million" for revenue of $47,525 million)."""
    mention = claim.mention
    number = rescaled.number
    replacement = replace_scale(mention, rescaled.factor)
    excerpt = index.excerpt(number.entry)
    described = f"{_short_label(number.label)} {number.raw}".strip()
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "wrong_scale",
            "severity": "major",
            "message": (
                f'"{mention.text}" has the digits of {described} in {number.source_ref} '
                f"at another scale: the evidence gives {replacement}"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [excerpt],
        }
    )
    if replacement == mention.text or result.fixes_full():
        return
    found = f"{number.source_ref}: {number.label} = {number.raw}"
    call = ToolCallRecord(
        tool="evidence_search",
        input={"query": mention.label or mention.text, "value": mention.text},
        output=found,
        duration_ms=round(claim.search_ms, 3),
    )
    result.tool_calls.append(call)
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=f"evidence {found}",
            confidence=SCALE_FIX_CONFIDENCE,
            kind="wrong_scale",
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[excerpt],
        )
    )


def _worded_finding(body: str, claim: Claim, miss: Miss, result: _Output) -> None:
    """A result stated in words that its operation over supported numbers misses."""
    mention = claim.mention
    began = time.perf_counter()
    try:
        exact = calculate(miss.expression).exact
        error = None
    except CalculatorError as problem:
        exact, error = "", str(problem)
    call = ToolCallRecord(
        tool="calculator",
        input={"expression": miss.expression},
        output=exact or None,
        error=error,
        duration_ms=round((time.perf_counter() - began) * 1000, 3),
    )
    if miss.scale is not None:
        replacement = replace_scale(mention, miss.scale)
        what = f"{miss.expression} = {_short(exact)}, which is {replacement}"
    else:
        replacement = replace_digits(mention, miss.expected)
        what = f"{miss.expression} = {_short(exact)}, which is {replacement} at the precision shown"
    proof = EvidenceExcerpt(
        source_ref="calculator", excerpt=f"{miss.expression} = {exact}", label="calculator"
    )
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": (
                f'"{mention.text}" does not follow from the numbers it is stated from: {what}'
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [proof],
        }
    )
    result.tool_calls.append(call)
    if not miss.clear or error or replacement == mention.text or result.fixes_full():
        return
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=f"calculator: {miss.expression} = {exact}",
            confidence=miss.confidence,
            kind="worded_result",
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[proof],
        )
    )


def _fix(
    body: str,
    mention: NumberMention,
    replacement: str,
    *,
    verified_with: str,
    confidence: float,
    kind: str,
    finding_index: int,
    tool_calls: list[ToolCallRecord],
    evidence: list[EvidenceExcerpt],
) -> dict[str, Any]:
    find, offset = widen_to_unique(body, mention.start, mention.end)
    head = mention.start - offset
    tail = head + (mention.end - mention.start)
    return {
        "find": find,
        "replace": find[:head] + replacement + find[tail:],
        "verified_with": verified_with,
        "confidence": confidence,
        "kind": kind,
        "origin": "deterministic",
        "offset": offset,
        "finding_index": finding_index,
        "tool_calls": tool_calls,
        "evidence": evidence,
    }


def _short_label(label: str) -> str:
    """The last part of a JSON path ("quote.price" -> "price")."""
    if not label:
        return "value"
    tail = label.rsplit(".", 1)[-1]
    return tail if "[" not in tail else tail.split("[", 1)[0] or label


def _short(exact: str) -> str:
    if "." in exact and len(exact.split(".", 1)[1]) > 6:
        whole, fraction = exact.split(".", 1)
        return f"{whole}.{fraction[:6]}…"
    return exact
