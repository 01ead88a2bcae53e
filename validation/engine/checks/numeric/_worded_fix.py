"""The finding and fix of a result in words that a computation contradicts: a major
``close_but_wrong`` on the number, with the computation as its proof, and a fix to the
computed value that carries the tool call it came from (a slipped digit or scale word of a
derivation, `_swapped`; a percentage its stated change does not give, `_stated_change`)."""

from __future__ import annotations

from validation.engine.checks.numeric._findings import _fix
from validation.engine.checks.numeric._outcome import _Output
from validation.engine.checks.numeric._types import NumberMention
from validation.engine.types import EvidenceExcerpt, ToolCallRecord


def worded_result_fix(
    body: str,
    mention: NumberMention,
    result: _Output,
    *,
    message: str,
    replacement: str,
    proof: EvidenceExcerpt,
    call: ToolCallRecord,
    verified_with: str,
    confidence: float,
) -> None:
    """Append the finding, and the fix unless it would change nothing or the fixes are
    full."""
    finding_index = len(result.finding_dicts)
    result.finding_dicts.append(
        {
            "check": "claims_supported",
            "kind": "close_but_wrong",
            "severity": "major",
            "message": message,
            "start": mention.start,
            "end": mention.end,
            "text": mention.text,
            "evidence": [proof],
        }
    )
    if replacement == mention.text or result.fixes_full():
        return
    result.tool_calls.append(call)
    result.fix_dicts.append(
        _fix(
            body,
            mention,
            replacement,
            verified_with=verified_with,
            confidence=confidence,
            kind="worded_result",
            finding_index=finding_index,
            tool_calls=[call],
            evidence=[proof],
        )
    )
