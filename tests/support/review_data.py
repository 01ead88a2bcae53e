"""Builders for service and task tests: an analysis in review with fixes, and hand-built
verdicts (the engine's output) for testing how a verdict is persisted."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from analyses.models import Analysis, Revision
from tests.factories import (
    AnalysisFactory,
    AttemptFactory,
    EvidenceFactory,
    FixFactory,
    RevisionFactory,
)
from validation.engine.types import (
    Checks,
    EvidenceExcerpt,
    ExtractedFields,
    Finding,
    FixProposal,
    ToolCallRecord,
    Verdict,
)
from validation.models import Attempt, Fix

BODY = (
    "# NVO quick screen\n\n"
    "Revenue was $10.5B in 2024.\n"
    "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B [gurufocus].\n"
    "Growth was 10% in one year and 10% in the next.\n\n"
    "Intrinsic value: $152.4 per share.\n\n"
    "**FINAL DECISION: WATCH**\n"
    "**FINAL CONVICTION: MODERATE**\n"
)


def analysis_in_review(
    *,
    body: str = BODY,
    status: str = Analysis.Status.IN_REVIEW,
    decision: str = Attempt.Decision.REVISE,
    attempt_status: str = Attempt.Status.DONE,
    **fields: Any,
) -> Analysis:
    """An analysis whose revision 1 was validated (attempt 1) and is waiting for a reviewer."""
    values: dict[str, Any] = {
        "decision": "WATCH",
        "conviction": "MODERATE",
        "numeric_fields": {"intrinsic_value": "152.4", "roic": "0.225"},
    }
    values.update(fields)
    analysis = AnalysisFactory.create(status=status, **values)
    EvidenceFactory.create(
        analysis=analysis,
        source_ref="gurufocus",
        content_json={"revenue": 10_400_000_000, "operating_cash_flow": 15.5, "capex": 0.7},
    )
    revision = RevisionFactory.create(analysis=analysis, number=1, body=body)
    AttemptFactory.create(
        revision=revision,
        status=attempt_status,
        decision=decision if attempt_status == Attempt.Status.DONE else "",
        confidence=0.6 if attempt_status == Attempt.Status.DONE else None,
    )
    return analysis


def current_revision(analysis: Analysis) -> Revision:
    return Revision.objects.filter(analysis=analysis).order_by("-number").first()  # type: ignore[return-value]


def add_revision(analysis: Analysis, body: str, **attempt: Any) -> Revision:
    """The next revision with a done attempt, as if it had been validated."""
    number = current_revision(analysis).number + 1
    revision = RevisionFactory.create(analysis=analysis, number=number, body=body)
    values: dict[str, Any] = {
        "status": Attempt.Status.DONE,
        "decision": "REVISE",
        "confidence": 0.6,
    }
    values.update(attempt)
    AttemptFactory.create(revision=revision, **values)
    return revision


def add_fix(
    analysis: Analysis,
    find: str,
    replace: str,
    *,
    confidence: float = 0.95,
    status: str = Fix.Status.PROPOSED,
    revision: Revision | None = None,
) -> Fix:
    revision = revision or current_revision(analysis)
    attempt = Attempt.objects.get(revision=revision)
    return FixFactory.create(
        attempt=attempt,
        revision=revision,
        find=find,
        replace=replace,
        proposed_replace=replace,
        confidence=confidence,
        offset=max(revision.body.find(find), 0),
        status=status,
    )


def verdict(decision: str = "REVISE", confidence: float = 0.6, **overrides: Any) -> Verdict:
    """A verdict as the engine returns it for BODY: one arithmetic finding and its fix."""
    start = BODY.index("$15.8B")
    calc = ToolCallRecord(
        tool="calculator", input={"expression": "15.5 - 0.7"}, output="14.8", duration_ms=0.4
    )
    search = ToolCallRecord(
        tool="evidence_search", input={"query": "revenue"}, output="gurufocus: revenue"
    )
    values: dict[str, Any] = {
        "decision": decision,
        "confidence": confidence,
        "issues": ["Owner earnings arithmetic is wrong: 15.5 - 0.7 = 14.8, not 15.8."],
        "checks": Checks(no_hallucinations=False),
        "revision_hints": "Recompute owner earnings.",
        "findings": [
            Finding(
                check="coherent_format",
                kind="raw_url",
                severity="minor",
                message="A raw URL.",
                start=0,
                end=5,
                text="# NVO",
            ),
            Finding(
                check="no_hallucinations",
                kind="arithmetic",
                severity="major",
                message="15.5 - 0.7 is 14.8, not 15.8.",
                start=start,
                end=start + 6,
                text="$15.8B",
                evidence=[EvidenceExcerpt(source_ref="gurufocus", excerpt="capex: 0.7")],
            ),
        ],
        "fixes": [
            FixProposal(
                find="= $15.8B",
                replace="= $14.8B",
                verified_with="calculator: 15.5 - 0.7 = 14.8",
                confidence=0.95,
                kind="arithmetic",
                offset=BODY.index("= $15.8B"),
                finding_index=1,
                tool_calls=[calc],
                evidence=[EvidenceExcerpt(source_ref="gurufocus", excerpt="capex: 0.7")],
            )
        ],
        # The engine lists the fix's calculator call among its own calls too: stored once.
        "tool_calls": [calc, search],
        "fields": ExtractedFields(
            decision="BUY", conviction=None, numeric={"intrinsic_value": Decimal("160.5")}
        ),
        "timings_ms": {"numbers": 1.5},
    }
    values.update(overrides)
    return Verdict(**values)
