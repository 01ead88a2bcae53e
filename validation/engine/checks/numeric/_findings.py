"""The findings of the numeric check and their fixes: a close but wrong number, a
wrong written calculation, a wrong scale, a wrong worded result.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.checks.numeric._derive_naming import names_row
from validation.engine.checks.numeric._derive_rows import better_named_row, has_twin_row
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._formatting import replace_digits, replace_scale
from validation.engine.checks.numeric._matching import Claim, Hit
from validation.engine.checks.numeric._operations import Miss
from validation.engine.checks.numeric._outcome import (
    MIN_FIX_LABEL,
    SCALE_FIX_CONFIDENCE,
    _nearest,
    _Output,
    _SentenceNumbers,
    _unambiguous,
)
from validation.engine.checks.numeric._types import NumberMention
from validation.engine.spans import widen_to_unique
from validation.engine.types import EvidenceExcerpt, ToolCallRecord


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
    if index.shares_row_label(chosen.number.entry) or has_twin_row(index, chosen.number.entry):
        return  # the row's label fits each of its columns, or names two rows: no one value
    if better_named_row(index, chosen.number.entry, mention.tokens):
        return  # the words fit another line better: they do not name this figure
    if index.written_in_text(chosen.number.entry) and _coarser(chosen, mention):
        return  # "$91,104 thousand" is not made "$90,300 thousand" by a text's "90.3 million"
    written = abs(chosen.number.value) / chosen.factor
    if sentence.writes(body, claim, written):
        return  # the sentence already states that value as another claim
    if sentence.restates(body, claim):
        return  # it says another number of its sentence again, at another scale
    replacement = replace_digits(mention, written)
    if replacement == mention.text:
        return
    chosen_excerpt = index.excerpt(chosen.number.entry)
    found, call = _evidence_search(claim, chosen.number, result)
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
    slip = checked.scale_fix is None and _rounding_slip(mention, checked.expected)
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "arithmetic",
            "severity": "minor" if slip else "major",
            "message": (
                f'"{mention.text}" does not follow from the calculation written before it: '
                f"{expression} = {_short(checked.exact)}, which is {replacement} "
                "at the precision shown" + (_SLIP_NOTE if slip else "")
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [proof],
        }
    )
    if slip or replacement == mention.text or result.fixes_full():
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
    _cell_fix(
        body,
        claim,
        number,
        replacement,
        result,
        confidence=SCALE_FIX_CONFIDENCE,
        kind="wrong_scale",
        finding_index=finding_index,
        excerpt=excerpt,
    )


def _period_finding(
    body: str,
    index: EvidenceIndex,
    claim: Claim,
    other: EvidenceNumber,
    result: _Output,
    sentence: _SentenceNumbers,
) -> None:
    """A number of a row whose result, stated beside it, follows from another cell of
    the same row: the writer quoted the wrong period. Fixed to that cell."""
    mention = claim.mention
    hit = claim.hit
    assert hit is not None
    finding_index = len(result.finding_dicts)
    excerpt = index.excerpt(other.entry)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": (
                f'"{mention.text}" is {_short_label(hit.number.label)} {hit.number.raw} in '
                f"{hit.number.source_ref}, but "
                + _period_reason(claim.other_period_proof, other.raw)
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [excerpt],
        }
    )
    same_kind = other.written if hit.number.mantissa else other.value
    replacement = replace_digits(mention, abs(same_kind) / hit.factor)
    if replacement == mention.text or result.fixes_full():
        return
    if claim.other_period_chance > PERIOD_FIX_CHANCE:
        return  # support may accept a derivation at this chance; a fix needs it plainer
    if not _same_magnitude(abs(same_kind), abs(hit.number.value)):
        return  # a row's cells of another kind (units beside net additions), not a period
    words = claim.other_period_proof.startswith(("its words", "it is set beside"))
    if not words and not sentence.period_fix_plain(body, claim):
        return
    if (
        claim.other_period_proof.startswith("its words name")
        and mention.significant_digits <= 2
        and not names_row(index, hit.number.entry, sentence.text(body, claim))
    ):
        return  # two digits round many cells: the year its words name is not enough
    found, call = _evidence_search(claim, other, result)
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=f"evidence {found}",
            confidence=0.85,
            kind="close_but_wrong",
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[excerpt],
        )
    )


def _period_reason(proof: str, raw: str) -> str:
    """Why the figure is another cell's: its words, the line item it is set beside, or
    the result stated from it."""
    if proof.startswith("it is set beside"):
        return f"{proof}, whose figure of this period is {raw}: another line item's figure"
    if proof.startswith("its words"):
        return f"{proof}: the same line's is {raw}: another period's figure"
    return (
        f"the result stated from it needs the same line's {raw} ({proof}): another period's figure"
    )


# The chance of coincidence under which another period's figure is fixed (a derivation
# is accepted as support under 5 %: a fix that changes a stated figure needs more).
PERIOD_FIX_CHANCE = 0.02
# One period's figure of a line item is within this factor of another's (a wrong
# period's fix); cells further apart are other measures of the row.
_PERIOD_SPREAD = 10


def _same_magnitude(first: Decimal, second: Decimal) -> bool:
    if not first or not second:
        return False
    return max(first, second) / min(first, second) <= _PERIOD_SPREAD


def _worded_finding(
    body: str, claim: Claim, miss: Miss, result: _Output, sentence: _SentenceNumbers
) -> None:
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
    slip = miss.scale is None and _rounding_slip(mention, miss.expected)
    if not miss.stated and miss.scale is None:
        # Only the digits at another scale say which derivation it is; otherwise the
        # reading over numbers from elsewhere is a candidate, not the writer's.
        _unverified_result(mention, miss, exact, call, result)
        return
    if miss.scale is not None:
        replacement = replace_scale(mention, miss.scale)
        what = f"{miss.expression} = {_short(exact)}, which is {replacement}"
    else:
        replacement = replace_digits(mention, miss.expected)
        what = f"{miss.expression} = {_short(exact)}, which is {replacement} at the precision shown"
        what += _SLIP_NOTE if slip else ""
    proof = EvidenceExcerpt(
        source_ref="calculator", excerpt=f"{miss.expression} = {exact}", label="calculator"
    )
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "minor" if slip else "major",
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
    if slip or not miss.clear or error or replacement == mention.text or result.fixes_full():
        return
    if miss.scale is None and _written_beside(body, claim, miss.expected, sentence):
        return  # the sentence states that value already, as another result
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


def _unverified_result(
    mention: NumberMention, miss: Miss, exact: str, call: ToolCallRecord, result: _Output
) -> None:
    """A result in words that no derivation found explains, and whose operands the
    report does not write beside it: the nearest reading over other numbers of the
    report is a candidate, not the writer's derivation. Flagged "cannot verify" with
    that candidate and no fix (a confident fix from a chance reading would change a
    correct number); still a major finding, since nothing supports the number."""
    proof = EvidenceExcerpt(
        source_ref="calculator", excerpt=f"{miss.expression} = {exact}", label="calculator"
    )
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "cannot_verify",
            "severity": "major",
            "message": (
                f'"{mention.text}" cannot be verified: no derivation from the evidence gives '
                f"it, and its operands are not written beside it; the nearest reading found "
                f"is {miss.expression} = {_short(exact)} (a candidate, not a fix)"
            ),
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [proof],
        }
    )
    result.tool_calls.append(call)


def _written_beside(body: str, claim: Claim, value: Decimal, sentence: _SentenceNumbers) -> bool:
    """Another number of the claim's sentence shows `value` at its own precision ("a
    drop of 6.1 points, or 16.2% relative": 6.1 is not what 16.2% should read)."""
    for other in sentence.beside(body, claim):
        unit = Decimal(1).scaleb(-other.mention.decimals)
        if abs(abs(other.mention.written) - abs(value)) * 2 <= unit:
            return True
    return False


# Digits a result must show for one unit off in its last to be a slip of rounding.
_SLIP_DIGITS = 3
_SLIP_NOTE = " (a rounding slip within one unit of the last digit: no fix proposed)"


def _rounding_slip(mention: NumberMention, expected: Decimal) -> bool:
    """The right value lies within one unit of the last digit the result shows, and the
    result shows three digits or more ("= 4.19%" for 4.1844...): the writer rounded
    wrongly, the number is not another one. It is reported, but no fix changes it: a
    reviewer decides whether a last digit is worth a revision."""
    if mention.significant_digits < _SLIP_DIGITS:
        return False
    unit = Decimal(1).scaleb(-mention.decimals)
    return abs(abs(expected) - abs(mention.written)) < unit


def _evidence_search(
    claim: Claim, number: EvidenceNumber, result: _Output
) -> tuple[str, ToolCallRecord]:
    """The evidence search that proves a fix from `number`, recorded among the tool
    calls: what it found ("10-K p22: Revenue = 136835") and the call itself."""
    mention = claim.mention
    found = f"{number.source_ref}: {number.label} = {number.raw}"
    call = ToolCallRecord(
        tool="evidence_search",
        input={"query": mention.label or mention.text, "value": mention.text},
        output=found,
        duration_ms=round(claim.search_ms, 3),
    )
    result.tool_calls.append(call)
    return found, call


def _cell_fix(
    body: str,
    claim: Claim,
    number: EvidenceNumber,
    replacement: str,
    result: _Output,
    *,
    confidence: float,
    kind: str,
    finding_index: int,
    excerpt: EvidenceExcerpt,
) -> None:
    """Fix a figure to the evidence cell `number` (written as `replacement`), the
    evidence search that finds the cell as its proof; nothing when it changes nothing."""
    if replacement == claim.mention.text or result.fixes_full():
        return
    found, call = _evidence_search(claim, number, result)
    result.fix_dicts.append(
        _fix(
            body,
            claim.mention,
            replacement,
            verified_with=f"evidence {found}",
            confidence=confidence,
            kind=kind,
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[excerpt],
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
