"""Outcomes: what a finished run does. A verdict (or an error) is recorded on its attempt,
and loop control (docs/spec.md §7) routes the analysis within the policy's
loop limits."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from analyses.models import Analysis, Revision
from validation.engine.report import format_confidence
from validation.engine.types import LLMReport, ToolCallRecord, Verdict
from validation.loops import LoopState
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy, ToolCall
from validation.services._shared import (
    MAX_COMMENT_CHARS,
    Status,
    audit,
    audit_event,
    is_latest_attempt,
    set_status,
)
from validation.services.llm import llm_record, llm_rows
from validation.services.webhooks import emit_after_validation, emit_status

logger = logging.getLogger(__name__)


@transaction.atomic
def attempt_record_verdict(
    *,
    attempt_id: int,
    run_token: str,
    verdict: Verdict,
    markdown: str = "",
    elapsed_ms: float = 0,
    attempt: Attempt | None = None,
    policy: Policy | None = None,
) -> bool:
    """Persist a verdict for a running attempt, then apply loop control to its analysis.

    Writes only while `run_token` still holds the attempt (a run whose lease was taken over
    writes nothing); returns whether it wrote. `attempt` (with its revision) and `policy`, as
    the run read them, save reading them again; `attempt` is brought up to date when it wrote.
    """
    now = timezone.now()
    tool_calls = _tool_call_rows(verdict)
    timings = {**verdict.timings_ms, "total_ms": round(elapsed_ms, 3)}
    if attempt is not None and attempt.pk != attempt_id:
        raise ValueError(f"attempt {attempt.pk} is not attempt {attempt_id}")
    analysis = _lock_attempts_analysis(
        attempt_id, analysis_id=attempt.analysis_id if attempt is not None else None
    )
    if analysis is None:
        return False
    # Compare-and-swap on id + run token: only the run that still owns the attempt records it.
    values: dict[str, Any] = {
        "status": Attempt.Status.DONE,
        "decision": verdict.decision,
        "confidence": verdict.confidence,
        "checks": verdict.checks.model_dump(mode="json"),
        "check_reasons": dict(verdict.check_reasons),
        "issues": list(verdict.issues),
        "revision_hints": verdict.revision_hints,
        "suggested_fixes": verdict.suggested_fixes,
        "numbers": verdict.numbers.model_dump(mode="json"),
        "goal_scores": [goal.model_dump(mode="json") for goal in verdict.goals],
        "goal_decision": (verdict.goal_decision or "")[:40],
        "markdown": markdown,
        "timings": timings,
        "tool_call_count": len(tool_calls),
        "error": "",
        "finished_at": now,
        "lease_expires_at": None,
    }
    if policy is not None:
        values["policy_id"] = policy.pk
        values["policy_settings"] = policy.settings_snapshot()
    won = Attempt.objects.filter(
        pk=attempt_id, run_token=run_token, status=Attempt.Status.RUNNING
    ).update(**values)
    if won != 1:
        logger.info("Attempt %s was taken over by another run; its verdict is dropped.", attempt_id)
        return False
    if attempt is None:
        attempt = Attempt.objects.select_related("revision").get(pk=attempt_id)
    else:
        for name, value in values.items():
            setattr(attempt, name, value)

    findings = Finding.objects.bulk_create(
        [
            Finding(
                attempt=attempt,
                check_name=item.check,
                kind=item.kind[:40],
                severity=item.severity,
                message=item.message,
                start=item.start,
                end=item.end,
                text=item.text,
                evidence=[excerpt.model_dump(mode="json") for excerpt in item.evidence],
            )
            for item in verdict.findings
        ]
    )
    # Revision 1 has no earlier revision whose rejections could carry over.
    rejected_before = (
        _rejected_fixes_by_text(analysis, attempt.revision) if attempt.revision.number > 1 else {}
    )
    fixes = Fix.objects.bulk_create(
        [
            Fix(
                attempt=attempt,
                revision=attempt.revision,
                finding=(
                    findings[proposal.finding_index]
                    if proposal.finding_index is not None
                    and 0 <= proposal.finding_index < len(findings)
                    else None
                ),
                kind=proposal.kind[:40],
                origin=proposal.origin,
                find=proposal.find,
                replace=proposal.replace,
                proposed_replace=proposal.replace,
                verified_with=proposal.verified_with,
                confidence=proposal.confidence,
                offset=proposal.offset,
                evidence=[excerpt.model_dump(mode="json") for excerpt in proposal.evidence],
                verified=proposal.verified,
                **_carried_rejection(rejected_before.get((proposal.find, proposal.replace)), now),
            )
            for proposal in verdict.fixes
        ]
    )
    ToolCall.objects.bulk_create(
        [
            ToolCall(
                attempt=attempt,
                fix=fixes[fix_index] if fix_index is not None else None,
                tool=call.tool[:60],
                input=call.model_dump(mode="json")["input"],
                output=call.output or "",
                error=call.error or "",
                duration_ms=call.duration_ms,
            )
            for call, fix_index in tool_calls
        ]
    )

    if verdict.llm is not None:
        attempt.llm_call_count += llm_rows(attempt.pk, verdict.llm)
        attempt.llm = llm_record(verdict.llm)
    changed = analysis.take_extracted_fields(verdict.fields)
    saved = after_attempt(analysis=analysis, attempt=attempt, policy=policy)
    if changed and not saved:  # loop control saved every column (these too) when it moved
        analysis.save(update_fields=[*changed, "updated_at"])
    return True


def _rejected_fixes_by_text(analysis: Analysis, revision: Revision) -> dict[tuple[str, str], Fix]:
    """Fixes a reviewer rejected on an earlier revision, by (FIND, proposed REPLACE)."""
    earlier = (
        Fix.objects.filter(
            revision__analysis_id=analysis.pk,
            revision__number__lt=revision.number,
            status=Fix.Status.REJECTED,
        )
        .select_related("revision")
        .order_by("revision__number", "id")
    )
    return {(fix.find, fix.proposed_replace): fix for fix in earlier}


def _carried_rejection(earlier: Fix | None, now: datetime) -> dict[str, Any]:
    """A proposal a person already rejected arrives rejected, with the earlier reason, so the
    reviewer does not judge the same change twice; undo brings it back like any rejection."""
    if earlier is None:
        return {}
    return {
        "status": Fix.Status.REJECTED,
        "carried_from_id": earlier.pk,
        "reviewer_id": earlier.reviewer_id,
        "reviewed_at": now,
        "reason": f"Rejected on revision {earlier.revision.number}: {earlier.reason}".strip(),
    }


def _lock_attempts_analysis(attempt_id: int, analysis_id: int | None = None) -> Analysis | None:
    """Lock the attempt's analysis (`analysis_id` when the caller knows it) before touching
    the attempt: every writer takes the analysis row first (review actions do too), so two
    of them never wait on each other."""
    if analysis_id is None:
        analysis_id = (
            Attempt.objects.filter(pk=attempt_id).values_list("analysis_id", flat=True).first()
        )
    if analysis_id is None:
        return None
    return Analysis.objects.select_for_update().get(pk=analysis_id)


def _tool_call_rows(verdict: Verdict) -> list[tuple[ToolCallRecord, int | None]]:
    """Each tool call once, with the index of the fix it verifies (None: the attempt's own).

    A call that the verdict lists both on a fix and among its own calls is stored once,
    linked to the fix.
    """
    rows: list[tuple[ToolCallRecord, int | None]] = []
    for index, proposal in enumerate(verdict.fixes):
        rows.extend((call, index) for call in proposal.tool_calls)
    linked = [call for call, _ in rows]
    fixer_calls = verdict.llm.fixer.tool_calls if verdict.llm is not None else []
    for call in [*verdict.tool_calls, *fixer_calls]:
        if call in linked:
            linked.remove(call)
        else:
            rows.append((call, None))
    return rows


@transaction.atomic
def attempt_error(
    *, attempt_id: int, run_token: str, message: str, llm_report: LLMReport | None = None
) -> bool:
    """Mark a running attempt errored (while `run_token` holds it) and show it to a person.

    `llm_report`: an LLM path that errored; its calls are kept on the attempt as proof."""
    analysis = _lock_attempts_analysis(attempt_id)
    if analysis is None:
        return False
    won = Attempt.objects.filter(
        pk=attempt_id, run_token=run_token, status=Attempt.Status.RUNNING
    ).update(
        status=Attempt.Status.ERRORED,
        error=message[:5_000],
        finished_at=timezone.now(),
        lease_expires_at=None,
    )
    if won != 1:
        return False
    llm_rows(attempt_id, llm_report)
    attempt = Attempt.objects.get(pk=attempt_id)
    if analysis.status == Status.VALIDATING and is_latest_attempt(attempt):
        analysis.status = Status.IN_REVIEW
        analysis.save(update_fields=["status", "updated_at"])
        emit_status(analysis, {"error": message[:MAX_COMMENT_CHARS]})
    audit(
        analysis,
        AuditEvent.Action.VALIDATED,
        revision_id=attempt.revision_id,
        comment=message[:MAX_COMMENT_CHARS],
        data={"attempt": attempt.number, "status": Attempt.Status.ERRORED},
    )
    return True


def after_attempt(*, analysis: Analysis, attempt: Attempt, policy: Policy | None = None) -> bool:
    """Route the analysis by the attempt's decision, within the policy's loop limits.

    APPROVE -> in review awaiting sign-off (approved at once if the policy allows validator-
    only approval); REVISE / RETRY -> in review (RETRY also asks the pipeline for new input);
    FAIL -> in review as well, its failed checks explained, unless the Policy's
    ``fail_ends_analysis`` makes it Failed at once. A REVISE or RETRY past the loop limits
    stays in review too, but no new revision can be made: the reason is recorded (and shown
    on the page) and a person has the last word, signing off with a comment or rejecting.
    Loops are counted when they are used (apply, new draft, new evidence), not here. Only an
    analysis still validating its current revision moves: one rejected meanwhile keeps its
    status.

    Returns whether it saved the analysis (every column). Its audit records go in one INSERT.
    """
    decision = attempt.decision
    data: dict[str, Any] = {
        "attempt": attempt.number,
        "decision": decision,
        "confidence": attempt.confidence,
    }
    llm = attempt.llm if isinstance(attempt.llm, dict) else {}
    # An LLM path that errored left the engine's verdict: the audit says so beside it.
    llm_note = (
        f"LLM judge errored: {llm.get('error', '')}" if llm.get("status") == "errored" else ""
    )
    if llm_note:
        data["llm"] = "errored"
    if analysis.status != Status.VALIDATING or not is_latest_attempt(attempt):
        audit(
            analysis,
            AuditEvent.Action.VALIDATED,
            revision_id=attempt.revision_id,
            comment=llm_note[:MAX_COMMENT_CHARS],
            data=data,
        )
        return False
    policy = policy or Policy.for_pipeline(analysis.pipeline_id)
    failure = ""
    limit = LoopState.of(analysis, policy).blocked_reason(decision)
    analysis.needs_new_input = False
    if decision == Attempt.Decision.APPROVE:
        if policy.allow_validator_only_approval:
            set_status(analysis, Status.APPROVED)
        else:
            set_status(analysis, Status.IN_REVIEW)
    elif decision in (Attempt.Decision.REVISE, Attempt.Decision.RETRY):
        analysis.needs_new_input = decision == Attempt.Decision.RETRY and not limit
        set_status(analysis, Status.IN_REVIEW)
    elif policy.fail_ends_analysis:
        confidence = format_confidence(attempt.confidence or 0.0)
        failure = f"The validator decided FAIL (confidence {confidence})."
        set_status(analysis, Status.FAILED)
    else:  # a FAIL lands in review: a person rejects it, fixes it, or signs off against it
        set_status(analysis, Status.IN_REVIEW)
    analysis.save()
    emit_after_validation(analysis, attempt)
    data["status"] = analysis.status
    # What follows the validation in the audit: a failure, a loop limit, or an approval.
    follow: tuple[str, str] | None = None
    if failure:
        follow = (AuditEvent.Action.FAILED, failure)
    elif limit:
        follow = (AuditEvent.Action.LOOP_LIMIT, limit)
    elif analysis.status == Status.APPROVED:
        follow = (
            AuditEvent.Action.APPROVED,
            "Approved by the validator (the policy allows validator-only approval).",
        )
    events = [
        audit_event(
            analysis,
            AuditEvent.Action.VALIDATED,
            revision_id=attempt.revision_id,
            comment=llm_note[:MAX_COMMENT_CHARS],
            data=data,
        )
    ]
    if follow is not None:
        action, comment = follow
        events.append(
            audit_event(
                analysis, action, revision_id=attempt.revision_id, comment=comment, data=data
            )
        )
    AuditEvent.objects.bulk_create(events)  # in this order: ids follow it (the export cursor)
    return True
