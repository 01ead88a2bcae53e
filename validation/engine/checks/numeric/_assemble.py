"""One outcome per number: its match (exact, rounded, derived, close, orphan), the
findings and fixes it yields, assembled in report order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter

from validation.engine.checks.numeric._context import _sentence
from validation.engine.checks.numeric._end_period import ColumnYears, end_period_of
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._findings import (
    _arithmetic_finding,
    _close_finding,
    _period_finding,
    _scale_finding,
    _short_label,
    _worded_finding,
)
from validation.engine.checks.numeric._from_level import from_level_of, to_level_of
from validation.engine.checks.numeric._matching import Claim, small_integer, wrong_calculation
from validation.engine.checks.numeric._misquotes import (
    Looks,
    misquote_finding,
    misread_scales,
    named_period_of,
    read_at_of,
    swap_fix,
)
from validation.engine.checks.numeric._misses import settle
from validation.engine.checks.numeric._other_item import computed_from, other_item_of
from validation.engine.checks.numeric._outcome import (
    NumericResult,
    _nearest,
    _Output,
    _SentenceNumbers,
)
from validation.engine.checks.numeric._references import UnknownReference
from validation.engine.checks.numeric._stated_change import stated_change_finding
from validation.engine.checks.numeric._swapped import swapped_finding, swapped_results
from validation.engine.checks.numeric._types import NumberMention
from validation.engine.types import Finding, FixProposal, NumberMatch, NumbersReport, ToolCallRecord

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
    settle(claims)  # a number following only from ones the search supported since
    for reference in references:
        result.finding_dicts.append(_reference_finding(reference))
    matches: list[dict[str, Any]] = []
    close: list[int] = []
    orphans: list[int] = []
    suspicious: list[int] = []
    supported = 0
    for position, misread in misread_scales(index, claims).items():
        claims[position].hit = None  # the cell, read at the item's scale, is another figure
        claims[position].rescaled = misread
    slipped = swapped_results(body, index, sentences)
    looks = Looks(body, index, sentences, read_at_of(index, claims))
    columns = ColumnYears(body)

    read: dict[int, tuple[int, int]] = {}  # a claim's sentence, read once (asked thrice)

    def sentence_of(claim: Claim) -> tuple[int, int]:
        found = read.get(id(claim))
        if found is None:
            mention = claim.mention
            found = read[id(claim)] = _sentence(
                body, sentences.newlines, mention.start, mention.end
            )
        return found

    for position, claim in enumerate(claims):
        if claim.hit is None:
            continue  # it restates no cell: none of its periods is in question
        if claim.other_period is None and (
            (period := named_period_of(body, index, claim))
            or (
                (column := columns.year_of(claim.mention.start)) is not None
                and (period := named_period_of(body, index, claim, column))
            )
        ):
            other, named, quoted = period
            claim.other_period = other
            claim.other_period_proof = f"its words name {named}; the figure is {quoted}'s"
            claim.other_period_chance = 0.0
        elif claim.other_period is None and (
            ended := end_period_of(
                body,
                index,
                claims,
                position,
                sentence_of(claim),
            )
        ):
            other, latest, quoted, how = ended
            claim.other_period = other
            claim.other_period_proof = (
                f"its words {how}, so it is {latest}'s (no other period is named around "
                f"it); the figure is {quoted}'s"
            )
            claim.other_period_chance = 0.0
        elif claim.other_period is None and (
            started := from_level_of(body, index, claims, position, sentence_of(claim))
        ):
            claim.other_period, change = started
            claim.other_period_proof = (
                f"its sentence's change, {change}, is taken from that cell and the "
                "figure the change goes to"
            )
            claim.other_period_chance = 0.0
        elif claim.other_period is None and (
            reached := to_level_of(body, index, claims, position, sentence_of(claim))
        ):
            claim.other_period, change = reached
            claim.other_period_proof = (
                f"its sentence's change, {change}, runs to that cell from another of its row"
            )
            claim.other_period_chance = 0.0
    items = {
        position: item
        for position, claim in enumerate(claims)
        if claim.other_period is None
        and claim.hit is not None  # (as other_item_of asks first)
        and (
            item := other_item_of(
                body,
                index,
                claims,
                position,
                sentence_of(claim),
            )
        )
    }
    # A figure the report computes a result from as written is the writer's own.
    items = {at: item for at, item in items.items() if not computed_from(body, claims, at)}
    for position, (other, partner) in items.items():
        if partner in items:
            continue  # its neighbour is itself another line's figure: no sure pair
        claim = claims[position]
        claim.other_period = other
        claim.other_period_proof = (
            f"it is set beside {claims[partner].mention.text}, a figure of "
            f"{_short_label(other.label)} in another period"
        )
        claim.other_period_chance = 0.0
    for at, claim in enumerate(claims):
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
        elif claim.other_period is not None:
            close.append(position)
            suspicious.append(position)
            _period_finding(body, index, claim, claim.other_period, result, sentences)
        elif wrong_calculation(claim):
            suspicious.append(position)
            _arithmetic_finding(body, claim, result)
        elif (
            claim.miss is not None
            and not claim.miss.stated
            and claim.miss.scale is None
            and (swap := looks.misquote(claim)) is not None
        ):
            # Its operands are not written beside it, but its digits are the one cell its
            # sentence names with two swapped: a misquote, not a result to verify.
            close.append(position)
            suspicious.append(position)
            misquote_finding(body, index, claim, swap, result)
        elif (
            (claim.miss is None or not claim.miss.stated)
            and at not in slipped
            and (changed := looks.stated_change(claims, at)) is not None
        ):
            # A percentage stated with its change, which that change over its start
            # does not give: recomputed from the change (_stated_change.py).
            close.append(position)
            suspicious.append(position)
            stated_change_finding(body, claim, changed, result)
        elif claim.miss is not None:
            close.append(position)
            suspicious.append(position)
            _worded_finding(body, claim, claim.miss, result, sentences)
        elif claim.rescaled is not None:
            close.append(position)
            suspicious.append(position)
            _scale_finding(body, index, claim, claim.rescaled, result)
        elif status == "close_but_wrong":
            close.append(position)
            suspicious.append(position)
            fixed = len(result.fix_dicts)
            _close_finding(body, index, claim, result, sentences)
            if len(result.fix_dicts) == fixed and (swap := looks.misquote(claim)) is not None:
                swap_fix(body, index, claim, swap, result, len(result.finding_dicts) - 1)
        elif (rescaled := looks.rescaled(claim)) is not None:
            close.append(position)
            suspicious.append(position)
            _scale_finding(body, index, claim, rescaled, result)
        elif at in slipped:
            close.append(position)
            suspicious.append(position)
            swapped_finding(body, claim, slipped[at], result)
        elif (swap := looks.misquote(claim)) is not None:
            close.append(position)
            suspicious.append(position)
            misquote_finding(body, index, claim, swap, result)
        else:
            orphans.append(position)
            _orphan_finding(claim, result)
    # One validation of all matches is much cheaper than one per number; the
    # report's lists (docs/spec.md §14.4) are views of the same validated matches.
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
    if claim.other_period is not None:
        other = claim.other_period
        return _number_match_of(
            **base,
            status="close_but_wrong",
            evidence_value=other.full_value,
            source_ref=other.source_ref,
            evidence_label=other.label,
            formula=claim.other_period_proof,
        )
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
    if claim.depends and not claim.settled:
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
                else f'"{mention.text}"{_label_for(mention)}: the evidence writes these digits, '
                "but its words make it a result (an average, a change), and no derivation "
                "from the evidence numbers gives it"
                if claim.doubted
                else f'"{mention.text}"{_label_for(mention)} appears in no evidence item, and '
                f"the nearest derivation found, {claim.guess}, is too likely a coincidence at "
                "the precision it is written with to count as proof (a candidate, not a fix)"
                if claim.guess
                else f'"{mention.text}"{_label_for(mention)} appears in no evidence item and '
                "cannot be derived from the evidence numbers"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
        }
    )
