"""Business logic of validation and review: every write goes through here.

Views, tasks, the API and the admin call these functions; none of them holds business logic.
Every function is keyword-only. Those that write run in one transaction and, where they act
on an analysis, lock its row first so that two reviewers (or a reviewer and a worker) never
interleave. A refused action raises a ``validation.errors.DomainError`` and changes nothing.

Jobs: the Attempt row, not the broker message, is the source of truth. ``attempt_enqueue``
records a queued attempt and sends a wake-up after commit; ``attempt_run`` (the body of the
``validate_revision`` task) claims the attempt with a compare-and-swap, runs the engine and
persists the verdict only while its claim still holds, so duplicate and redelivered messages
change nothing; ``sweep_stale_attempts`` re-sends attempts whose message was lost.

Review: fix actions (accept / reject / edit / undo / bulk accept), apply, sign-off and
reject auto-claim an unclaimed (or expired) analysis for the acting reviewer and refuse with
``ClaimedByOther`` while someone else's claim runs. Each writes one AuditEvent.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from analyses.models import Analysis, Evidence, Revision
from validation.engine.fields import extract_fields
from validation.engine.fixes import FixToApply, apply_fixes, count_occurrences
from validation.engine.intake import body_problems, evidence_problems
from validation.engine.types import (
    Bundle,
    EngineSettings,
    EvidenceItem,
    ExtractedFields,
    InputLimits,
    ToolCallRecord,
    Verdict,
)
from validation.errors import (
    ClaimedByOther,
    DomainError,
    FindNotUnique,
    FixNotReviewable,
    IllegalTransition,
    NothingToApply,
    ReasonRequired,
)
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy, ToolCall

logger = logging.getLogger(__name__)

Status = Analysis.Status

# A run lost this many times (worker killed, time limit) is given up as errored rather than
# re-run forever; a reviewer can still re-validate it.
MAX_RUNS = 3
MAX_COMMENT_CHARS = 2_000
MAX_REPLACE_CHARS = 20_000

_STATUS_WORDS = {
    Status.VALIDATING: "validating",
    Status.IN_REVIEW: "in review",
    Status.APPROVED: "approved",
    Status.FAILED: "failed",
    Status.REJECTED: "rejected",
}
_OPEN = frozenset({Status.VALIDATING, Status.IN_REVIEW})
_IN_REVIEW = frozenset({Status.IN_REVIEW})


@dataclass(frozen=True)
class ApplyOutcome:
    """What `fixes_apply` did. `revision` is None when no fix could be applied."""

    revision: Revision | None
    applied: list[Fix] = field(default_factory=list)
    conflicts: list[Fix] = field(default_factory=list)
    stale: list[Fix] = field(default_factory=list)


# ================================================================ jobs


def _lease() -> timedelta:
    return timedelta(seconds=settings.REDLINE_ATTEMPT_LEASE_SECONDS)


@transaction.atomic
def attempt_enqueue(*, revision: Revision, loop_kind: str = Attempt.LoopKind.INITIAL) -> Attempt:
    """Record a queued attempt for `revision` and wake a worker once the transaction commits.

    The attempt row, not the broker message, is the source of truth: a lost message is
    re-sent by the sweeper once `lease_expires_at` (here: the deadline to start) has passed.
    Enqueuing the same revision twice returns the existing attempt.
    """
    existing = Attempt.objects.filter(revision=revision).first()
    if existing is not None:
        return existing
    number = (
        Attempt.objects.filter(analysis_id=revision.analysis_id).aggregate(n=Max("number"))["n"]
        or 0
    ) + 1
    attempt = Attempt.objects.create(
        analysis_id=revision.analysis_id,
        revision=revision,
        number=number,
        loop_kind=loop_kind,
        lease_expires_at=timezone.now() + _lease(),
    )
    transaction.on_commit(partial(_send, revision.pk))
    return attempt


def _send(revision_id: int) -> None:
    from validation.tasks import validate_revision  # the tasks module imports this one

    validate_revision.delay(revision_id)


def attempt_run(*, revision_id: int) -> Attempt | None:
    """Run the validator on `revision_id`'s queued attempt; the body of `validate_revision`.

    Idempotent: returns without doing anything when the attempt is done or errored, or is
    running under another run's live lease. Returns None when the revision has no attempt.
    Not atomic on purpose: the claim must be committed (visible to other workers) before the
    engine runs, and the results are written in their own transaction.
    """
    attempt = Attempt.objects.filter(revision_id=revision_id).first()
    if attempt is None:
        logger.warning("No attempt for revision %s: nothing to run.", revision_id)
        return None
    if attempt.status in (Attempt.Status.DONE, Attempt.Status.ERRORED):
        return attempt
    token = _attempt_claim(attempt.pk)
    if token is None:
        logger.info("Attempt %s is not claimable (%s): skipped.", attempt.pk, attempt.status)
        attempt.refresh_from_db()
        return attempt
    try:
        attempt = Attempt.objects.select_related("analysis", "revision").get(pk=attempt.pk)
        if attempt.runs > MAX_RUNS:
            _attempt_error(
                attempt_id=attempt.pk,
                run_token=token,
                message=(
                    f"Validation did not finish in {MAX_RUNS} runs: each run was lost (worker "
                    "stopped or over its time limit). Re-validate to try again."
                ),
            )
            attempt.refresh_from_db()
            return attempt
        delay = settings.REDLINE_TASK_DEBUG_DELAY_SECONDS
        if delay:  # test seam: the crash-recovery integration test kills the worker here
            time.sleep(delay)
        try:
            verdict, markdown, elapsed_ms = _engine_run(attempt)
        except (OperationalError, InterfaceError):
            raise  # the database, not the report: retried below
        except Exception as exc:  # any engine failure becomes a readable errored attempt
            logger.exception("Validation of revision %s failed.", revision_id)
            _attempt_error(
                attempt_id=attempt.pk,
                run_token=token,
                message=f"Validation failed: {type(exc).__name__}: {exc}",
            )
        else:
            attempt_record_verdict(
                attempt_id=attempt.pk,
                run_token=token,
                verdict=verdict,
                markdown=markdown,
                elapsed_ms=elapsed_ms,
            )
    except (OperationalError, InterfaceError):
        # A transient database error: hand the attempt back so the task's retry can claim it
        # at once instead of waiting for the lease to run out.
        _attempt_release(attempt_id=attempt.pk, run_token=token)
        raise
    attempt.refresh_from_db()
    return attempt


def _attempt_claim(attempt_id: int) -> str | None:
    """Move the attempt to running under a new run token; None if another run holds it."""
    now = timezone.now()
    token = uuid.uuid4().hex
    # Compare-and-swap: of two workers holding the same message (a duplicate, a redelivery,
    # a sweeper re-send) exactly one moves the attempt; the other updates 0 rows and leaves.
    claimed = (
        Attempt.objects.filter(pk=attempt_id)
        .filter(
            Q(status=Attempt.Status.QUEUED)
            | Q(status=Attempt.Status.RUNNING, lease_expires_at__lt=now)
        )
        .update(
            status=Attempt.Status.RUNNING,
            run_token=token,
            lease_expires_at=now + _lease(),
            started_at=now,
            runs=F("runs") + 1,
        )
    )
    return token if claimed == 1 else None


def _attempt_release(*, attempt_id: int, run_token: str) -> None:
    try:
        Attempt.objects.filter(
            pk=attempt_id, run_token=run_token, status=Attempt.Status.RUNNING
        ).update(
            status=Attempt.Status.QUEUED,
            run_token="",
            lease_expires_at=timezone.now() + _lease(),
        )
    except DatabaseError:  # the database is still away: the sweeper finds it after the lease
        logger.warning("Could not release attempt %s; the sweeper will.", attempt_id)


def engine_settings(policy: Policy) -> EngineSettings:
    """The part of the admin Policy the engine needs."""
    return EngineSettings(
        approve_threshold=policy.approve_threshold,
        revise_threshold=policy.revise_threshold,
        retry_threshold=policy.retry_threshold,
        relative_tolerance=policy.relative_tolerance,
    )


def attempt_bundle(attempt: Attempt) -> Bundle:
    """The engine's input for one attempt: its revision's body and the analysis' evidence."""
    analysis = attempt.analysis
    evidence = [
        EvidenceItem(
            source_ref=item.source_ref,
            kind=item.kind or Evidence.Kind.TEXT,
            url=item.url or None,
            content=item.content,
        )
        for item in analysis.evidence.order_by("id")
    ]
    return Bundle(
        query=analysis.query,
        goals=list(analysis.goals or []),
        title=analysis.title,
        body=attempt.revision.body,
        fields=_fields_as_bundle_fields(analysis),
        evidence=evidence,
    )


def _engine_run(attempt: Attempt) -> tuple[Verdict, str, float]:
    from validation.engine import validate  # the pipeline is heavy; load it where it runs
    from validation.engine.report import render_attempt_markdown

    bundle = attempt_bundle(attempt)
    started = time.perf_counter()
    verdict = validate(bundle, engine_settings(Policy.load()))
    elapsed_ms = (time.perf_counter() - started) * 1000
    markdown = render_attempt_markdown(verdict, attempt.number)
    return verdict, markdown, elapsed_ms


@transaction.atomic
def attempt_record_verdict(
    *, attempt_id: int, run_token: str, verdict: Verdict, markdown: str = "", elapsed_ms: float = 0
) -> bool:
    """Persist a verdict for a running attempt, then apply loop control to its analysis.

    Writes only while `run_token` still holds the attempt (a run whose lease was taken over
    writes nothing); returns whether it wrote.
    """
    now = timezone.now()
    tool_calls = _tool_call_rows(verdict)
    timings = {**verdict.timings_ms, "total_ms": round(elapsed_ms, 3)}
    analysis = _lock_attempts_analysis(attempt_id)
    if analysis is None:
        return False
    # Compare-and-swap on id + run token: only the run that still owns the attempt records it.
    won = Attempt.objects.filter(
        pk=attempt_id, run_token=run_token, status=Attempt.Status.RUNNING
    ).update(
        status=Attempt.Status.DONE,
        decision=verdict.decision,
        confidence=verdict.confidence,
        checks=verdict.checks.model_dump(mode="json"),
        issues=list(verdict.issues),
        revision_hints=verdict.revision_hints,
        suggested_fixes=verdict.suggested_fixes,
        numbers=verdict.numbers.model_dump(mode="json"),
        goal_scores=[goal.model_dump(mode="json") for goal in verdict.goals],
        goal_decision=(verdict.goal_decision or "")[:40],
        markdown=markdown,
        timings=timings,
        tool_call_count=len(tool_calls),
        llm_call_count=0,
        error="",
        finished_at=now,
        lease_expires_at=None,
    )
    if won != 1:
        logger.info("Attempt %s was taken over by another run; its verdict is dropped.", attempt_id)
        return False
    attempt = Attempt.objects.select_related("revision").get(pk=attempt_id)

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
    rejected_before = _rejected_fixes_by_text(analysis, attempt.revision)
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

    changed = _fields_update(analysis, verdict.fields)
    if changed:
        analysis.save(update_fields=[*changed, "updated_at"])
    _after_attempt(analysis=analysis, attempt=attempt)
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
        "reviewer_id": earlier.reviewer_id,
        "reviewed_at": now,
        "reason": f"Rejected on revision {earlier.revision.number}: {earlier.reason}".strip(),
    }


def _lock_attempts_analysis(attempt_id: int) -> Analysis | None:
    """Lock the attempt's analysis before touching the attempt: every writer takes the
    analysis row first (review actions do too), so two of them never wait on each other."""
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
    for call in verdict.tool_calls:
        if call in linked:
            linked.remove(call)
        else:
            rows.append((call, None))
    return rows


@transaction.atomic
def _attempt_error(*, attempt_id: int, run_token: str, message: str) -> bool:
    """Mark a running attempt errored (while `run_token` holds it) and show it to a person."""
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
    attempt = Attempt.objects.get(pk=attempt_id)
    if analysis.status == Status.VALIDATING and _is_latest(attempt):
        analysis.status = Status.IN_REVIEW
        analysis.save(update_fields=["status", "updated_at"])
    _audit(
        analysis,
        AuditEvent.Action.VALIDATED,
        revision_id=attempt.revision_id,
        comment=message[:MAX_COMMENT_CHARS],
        data={"attempt": attempt.number, "status": Attempt.Status.ERRORED},
    )
    return True


def sweep_stale_attempts(*, now: datetime | None = None) -> list[int]:
    """Re-send `validate_revision` for attempts whose message was lost; return their revisions.

    Lost means: queued past its start deadline, or running past its lease (the worker died,
    and the filesystem broker does not redeliver what a killed worker had taken). Each one is
    put back to queued with a new deadline, so a backlog is not re-sent on every sweep.
    """
    now = now or timezone.now()
    stale = Attempt.objects.filter(
        Q(status__in=[Attempt.Status.QUEUED, Attempt.Status.RUNNING], lease_expires_at__lt=now)
        | Q(
            status=Attempt.Status.QUEUED,
            lease_expires_at__isnull=True,
            queued_at__lt=now - _lease(),
        )
    ).values_list("pk", "revision_id", "status", "lease_expires_at", "run_token")
    revision_ids: list[int] = []
    for attempt_id, revision_id, status, deadline, run_token in stale:
        with transaction.atomic():
            # Compare-and-swap on what we read: a worker that claimed the attempt meanwhile,
            # or another sweeper, has changed the row and we leave it alone.
            requeued = Attempt.objects.filter(
                pk=attempt_id, status=status, run_token=run_token, lease_expires_at=deadline
            ).update(
                status=Attempt.Status.QUEUED,
                run_token="",
                lease_expires_at=now + _lease(),
            )
            if requeued == 1:
                revision_ids.append(revision_id)
                transaction.on_commit(partial(_send, revision_id))
    if revision_ids:
        logger.warning("Re-sent validation of revisions %s (message lost).", revision_ids)
    return revision_ids


@transaction.atomic
def analysis_revalidate(*, analysis: Analysis, user: AbstractBaseUser) -> Attempt:
    """Re-run the errored attempt of the current revision (same attempt row, runs reset)."""
    now = timezone.now()
    analysis = _lock(analysis)
    _require(analysis, _IN_REVIEW, "be re-validated")
    _claim_for_action(analysis, user, now)
    attempt = analysis.attempts.order_by("-number").first()
    if attempt is None or attempt.status != Attempt.Status.ERRORED:
        state = f"attempt {attempt.number} is {attempt.status}" if attempt else "it has none"
        raise IllegalTransition(f"Only an errored attempt can be re-run ({state}).")
    Attempt.objects.filter(pk=attempt.pk).update(
        status=Attempt.Status.QUEUED,
        error="",
        run_token="",
        runs=0,
        queued_at=now,
        started_at=None,
        finished_at=None,
        lease_expires_at=now + _lease(),
    )
    analysis.status = Status.VALIDATING
    analysis.save()
    _audit(
        analysis,
        AuditEvent.Action.VALIDATED,
        actor=user,
        revision_id=attempt.revision_id,
        comment="Re-validation requested after an error.",
        data={"attempt": attempt.number, "requeued": True, "previous_error": attempt.error},
    )
    transaction.on_commit(partial(_send, attempt.revision_id))
    attempt.refresh_from_db()
    return attempt


# ================================================================ loop control (seed §7)


def _after_attempt(*, analysis: Analysis, attempt: Attempt) -> None:
    """Route the analysis by the attempt's decision, within the policy's loop limits.

    APPROVE -> in review awaiting sign-off (approved at once if the policy allows validator-
    only approval); REVISE / RETRY -> in review (RETRY also asks the pipeline for new input)
    while under their limits, else failed; FAIL -> failed. Only an analysis still validating
    its current revision moves: one rejected meanwhile keeps its status.
    """
    policy = Policy.load()
    decision = attempt.decision
    data: dict[str, Any] = {
        "attempt": attempt.number,
        "decision": decision,
        "confidence": attempt.confidence,
    }
    if analysis.status != Status.VALIDATING or not _is_latest(attempt):
        _audit(analysis, AuditEvent.Action.VALIDATED, revision_id=attempt.revision_id, data=data)
        return
    failure = ""
    analysis.needs_new_input = False
    if decision == Attempt.Decision.APPROVE:
        if policy.allow_validator_only_approval:
            _set_status(analysis, Status.APPROVED)
        else:
            _set_status(analysis, Status.IN_REVIEW)
    elif decision == Attempt.Decision.REVISE:
        failure = _loop_limit_failure(
            analysis, policy, "REVISE", "the validator still asks for revision"
        )
        if not failure:
            analysis.revise_loops += 1
            _set_status(analysis, Status.IN_REVIEW)
    elif decision == Attempt.Decision.RETRY:
        failure = _loop_limit_failure(
            analysis, policy, "RETRY", "the evidence or approach is still wrong"
        )
        if not failure:
            analysis.retry_loops += 1
            analysis.needs_new_input = True
            _set_status(analysis, Status.IN_REVIEW)
    else:
        failure = f"The validator decided FAIL (confidence {attempt.confidence:.2f})."
    if failure:
        _set_status(analysis, Status.FAILED)
    analysis.save()
    data["status"] = analysis.status
    _audit(analysis, AuditEvent.Action.VALIDATED, revision_id=attempt.revision_id, data=data)
    if failure:
        _audit(
            analysis,
            AuditEvent.Action.FAILED,
            revision_id=attempt.revision_id,
            comment=failure,
            data=data,
        )
    elif analysis.status == Status.APPROVED:
        _audit(
            analysis,
            AuditEvent.Action.APPROVED,
            revision_id=attempt.revision_id,
            comment="Approved by the validator (the policy allows validator-only approval).",
            data=data,
        )


def _loop_limit_failure(analysis: Analysis, policy: Policy, kind: str, still: str) -> str:
    """Why one more REVISE or RETRY loop is over the policy's limits, or "" if it is not."""
    used, limit = (
        (analysis.revise_loops, policy.max_revise_loops)
        if kind == "REVISE"
        else (analysis.retry_loops, policy.max_retry_loops)
    )
    if used >= limit:
        return f"{kind} loop limit reached ({used} of {limit}); {still}."
    total = analysis.revise_loops + analysis.retry_loops
    if total >= policy.max_total_loops:
        return f"Total loop limit reached ({total} of {policy.max_total_loops})."
    return ""


def _set_status(analysis: Analysis, status: str) -> None:
    analysis.status = status
    if status not in _OPEN:  # a closed analysis needs no reviewer any more
        analysis.claimed_by = None
        analysis.claimed_until = None


def _is_latest(attempt: Attempt) -> bool:
    latest = Revision.objects.filter(analysis_id=attempt.analysis_id).aggregate(n=Max("number"))
    return bool(attempt.revision.number == latest["n"])


def _require(analysis: Analysis, allowed: frozenset[str], doing: str) -> None:
    """Refuse an action the analysis' status does not allow, in one readable sentence."""
    if analysis.status in allowed:
        return
    if allowed == _IN_REVIEW:
        who = "an analysis in review"
    elif allowed == _OPEN:
        who = "an open analysis (validating or in review)"
    else:
        who = "an analysis that is " + " or ".join(_STATUS_WORDS[Status(s)] for s in allowed)
    raise IllegalTransition(
        f"Only {who} can {doing} (this one is {_STATUS_WORDS[Status(analysis.status)]})."
    )


# ================================================================ claims


def _lock(analysis: Analysis | int) -> Analysis:
    """The analysis row, locked until the transaction ends (serializes review actions)."""
    pk = analysis if isinstance(analysis, int) else analysis.pk
    try:
        return Analysis.objects.select_for_update().get(pk=pk)
    except Analysis.DoesNotExist:
        raise DomainError(f"There is no analysis {pk}.") from None


def _claim_holder(analysis: Analysis, now: datetime) -> int | None:
    """The user id holding an unexpired claim, if any."""
    if analysis.claimed_by_id and analysis.claimed_until and analysis.claimed_until > now:
        return int(analysis.claimed_by_id)
    return None


def _claimed_by_other(analysis: Analysis) -> ClaimedByOther:
    name = analysis.claimed_by.get_username() if analysis.claimed_by else "another reviewer"
    until = timezone.localtime(analysis.claimed_until).strftime("%H:%M")
    return ClaimedByOther(f"Claimed by {name} until {until}.")


def _claim_for_action(analysis: Analysis, user: AbstractBaseUser, now: datetime) -> None:
    """Claim (or refresh the claim on) a locked analysis for `user`; saved by the caller or here."""
    holder = _claim_holder(analysis, now)
    if holder is not None and holder != user.pk:
        raise _claimed_by_other(analysis)
    minutes = Policy.load().claim_minutes
    analysis.claimed_by = user
    analysis.claimed_until = now + timedelta(minutes=minutes)
    analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
    if holder is None:
        _audit(
            analysis,
            AuditEvent.Action.CLAIMED,
            actor=user,
            data={"until": analysis.claimed_until.isoformat(), "minutes": minutes},
        )


@transaction.atomic
def analysis_claim(*, analysis: Analysis, user: AbstractBaseUser) -> Analysis:
    """Claim an open analysis for `user` for Policy.claim_minutes (refreshes their own claim)."""
    now = timezone.now()
    analysis = _lock(analysis)
    _require(analysis, _OPEN, "be claimed")
    _claim_for_action(analysis, user, now)
    return analysis


@transaction.atomic
def analysis_release(*, analysis: Analysis, user: AbstractBaseUser) -> Analysis:
    """Give up `user`'s claim. Releasing an unclaimed (or expired) analysis changes nothing."""
    now = timezone.now()
    analysis = _lock(analysis)
    holder = _claim_holder(analysis, now)
    if holder is not None and holder != user.pk:
        raise _claimed_by_other(analysis)
    if analysis.claimed_by_id is None:
        return analysis
    analysis.claimed_by = None
    analysis.claimed_until = None
    analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
    if holder is not None:
        _audit(analysis, AuditEvent.Action.RELEASED, actor=user)
    return analysis


def analysis_claim_next(*, user: AbstractBaseUser) -> Analysis | None:
    """Claim the oldest in-review analysis nobody holds (or whose claim expired); None if none.

    On PostgreSQL, rows another reviewer is claiming right now are skipped (SKIP LOCKED); on
    SQLite, which has no row locks, a compare-and-swap on the claim columns decides who wins.
    """
    now = timezone.now()
    minutes = Policy.load().claim_minutes
    free = Q(claimed_by__isnull=True) | Q(claimed_until__lte=now)
    queue = Analysis.objects.filter(free, status=Status.IN_REVIEW).order_by("created_at", "id")
    with transaction.atomic():
        if connection.features.has_select_for_update_skip_locked:
            analysis = queue.select_for_update(skip_locked=True).first()
            if analysis is None:
                return None
            analysis.claimed_by = user
            analysis.claimed_until = now + timedelta(minutes=minutes)
            analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
        else:
            analysis = None
            for pk in queue.values_list("pk", flat=True)[:20]:
                # Compare-and-swap: only still-free rows are taken; 0 rows means someone won.
                taken = Analysis.objects.filter(free, pk=pk, status=Status.IN_REVIEW).update(
                    claimed_by=user, claimed_until=now + timedelta(minutes=minutes), updated_at=now
                )
                if taken == 1:
                    analysis = Analysis.objects.get(pk=pk)
                    break
            if analysis is None:
                return None
        _audit(
            analysis,
            AuditEvent.Action.CLAIMED,
            actor=user,
            data={"until": analysis.claimed_until.isoformat(), "minutes": minutes, "next": True},
        )
        return analysis


# ================================================================ fixes


def _current_revision(analysis: Analysis) -> Revision:
    revision = Revision.objects.filter(analysis=analysis).order_by("-number").first()
    if revision is None:  # ingest always creates revision 1
        raise DomainError(f"Analysis {analysis.pk} has no revision.")
    return revision


def _lock_for_fix(fix: Fix) -> tuple[Analysis, Revision]:
    """Lock the fix's analysis, refresh the fix; return the analysis and its current revision."""
    revision = Revision.objects.only("analysis_id").get(pk=fix.revision_id)
    analysis = _lock(revision.analysis_id)
    fix.refresh_from_db()
    return analysis, _current_revision(analysis)


def _check_reviewable(fix: Fix, current: Revision, allowed: Iterable[str], doing: str) -> None:
    if fix.status == Fix.Status.APPLIED:
        number = fix.applied_in.number if fix.applied_in else "a later revision"
        raise FixNotReviewable(f"This fix was already applied in revision {number}.")
    if fix.status == Fix.Status.STALE or fix.revision_id != current.pk:
        raise FixNotReviewable(
            f"This fix is stale: it was proposed for revision {fix.revision.number}, and the "
            f"report is now at revision {current.number}."
        )
    if fix.status not in allowed:
        if fix.status == Fix.Status.CONFLICT:
            raise FixNotReviewable(
                f"This fix conflicts ({fix.reason}); undo or reject it rather than {doing} it."
            )
        raise FixNotReviewable(f"This fix is {fix.status}; it cannot be changed that way.")


def _review_start(fix: Fix, user: AbstractBaseUser, allowed: Iterable[str], doing: str) -> Analysis:
    now = timezone.now()
    analysis, current = _lock_for_fix(fix)
    _require(analysis, _IN_REVIEW, "have its fixes reviewed")
    _claim_for_action(analysis, user, now)
    _check_reviewable(fix, current, allowed, doing)
    return analysis


def _fix_review(fix: Fix, *, status: str, user: AbstractBaseUser | None, reason: str = "") -> None:
    fix.status = status
    fix.reviewer = user
    fix.reviewed_at = timezone.now() if user is not None else None
    fix.reason = reason
    fix.save(update_fields=["status", "reviewer", "reviewed_at", "reason", "replace"])


@transaction.atomic
def fix_accept(*, fix: Fix, user: AbstractBaseUser) -> Fix:
    """Accept a proposed (or rejected) fix of the current revision. Accepting twice is a no-op."""
    allowed = (Fix.Status.PROPOSED, Fix.Status.REJECTED, Fix.Status.ACCEPTED)
    analysis = _review_start(fix, user, allowed, "accept")
    if fix.status == Fix.Status.ACCEPTED:
        return fix
    _fix_review(fix, status=Fix.Status.ACCEPTED, user=user)
    _audit(
        analysis, AuditEvent.Action.FIX_ACCEPTED, actor=user, fix=fix, revision_id=fix.revision_id
    )
    return fix


@transaction.atomic
def fix_reject(*, fix: Fix, user: AbstractBaseUser, reason: str) -> Fix:
    """Reject a fix, with a reason when Policy.require_reject_reason (the default)."""
    reason = (reason or "").strip()
    if not reason and Policy.load().require_reject_reason:
        raise ReasonRequired("Give a reason for rejecting this fix.")
    _check_length(reason, "The reason")
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED, Fix.Status.CONFLICT)
    analysis = _review_start(fix, user, allowed, "reject")
    if fix.status == Fix.Status.REJECTED and fix.reason == reason:
        return fix
    _fix_review(fix, status=Fix.Status.REJECTED, user=user, reason=reason)
    _audit(
        analysis,
        AuditEvent.Action.FIX_REJECTED,
        actor=user,
        fix=fix,
        revision_id=fix.revision_id,
        comment=reason,
    )
    return fix


@transaction.atomic
def fix_edit(*, fix: Fix, user: AbstractBaseUser, replace: str) -> Fix:
    """Replace the fix's replacement text and accept it (an edited fix).

    FIND is not editable, and must still occur exactly once in the fix's revision.
    Line endings are normalised to "\\n" (a browser textarea sends "\\r\\n").
    """
    replace = replace.replace("\r\n", "\n")
    if len(replace) > MAX_REPLACE_CHARS:
        raise DomainError(f"The replacement is too long (at most {MAX_REPLACE_CHARS} characters).")
    if "\x00" in replace:
        raise DomainError("The replacement contains a NUL character.")
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED)
    analysis = _review_start(fix, user, allowed, "edit")
    if replace == fix.find:
        raise DomainError(
            "The replacement is the same as the text it replaces; reject the fix instead."
        )
    occurrences = count_occurrences(fix.revision.body, fix.find)
    if occurrences != 1:
        where = "does not occur" if occurrences == 0 else f"occurs {occurrences} times"
        raise FindNotUnique(
            f"The text this fix replaces {where} in revision {fix.revision.number}; it must "
            "occur exactly once."
        )
    if fix.status == Fix.Status.ACCEPTED and fix.replace == replace:
        return fix
    previous = fix.replace
    fix.replace = replace
    _fix_review(fix, status=Fix.Status.ACCEPTED, user=user)
    _audit(
        analysis,
        AuditEvent.Action.FIX_EDITED,
        actor=user,
        fix=fix,
        revision_id=fix.revision_id,
        data={
            "previous_replace": previous,
            "replace": replace,
            "proposed_replace": fix.proposed_replace,
        },
    )
    return fix


@transaction.atomic
def fix_undo(*, fix: Fix, user: AbstractBaseUser) -> Fix:
    """Return an accepted, rejected or conflicting fix to proposed.

    An edited replacement is kept (the card still shows it as edited); to restore the
    proposal, edit the replacement back to `proposed_replace`. Undoing a proposed fix is a
    no-op.
    """
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED, Fix.Status.CONFLICT)
    analysis = _review_start(fix, user, allowed, "undo")
    if fix.status == Fix.Status.PROPOSED:
        return fix
    previous = fix.status
    _fix_review(fix, status=Fix.Status.PROPOSED, user=None)
    _audit(
        analysis,
        AuditEvent.Action.FIX_UNDONE,
        actor=user,
        fix=fix,
        revision_id=fix.revision_id,
        data={"previous_status": previous},
    )
    return fix


@transaction.atomic
def fixes_bulk_accept(
    *, analysis: Analysis, user: AbstractBaseUser, min_confidence: float
) -> list[Fix]:
    """Accept every proposed fix of the current revision whose confidence >= min_confidence."""
    if (
        isinstance(min_confidence, bool)
        or not isinstance(min_confidence, int | float)
        or math.isnan(min_confidence)
        or not 0.0 <= min_confidence <= 1.0
    ):
        raise DomainError(
            f"The confidence threshold must be between 0 and 1 (got {min_confidence})."
        )
    now = timezone.now()
    analysis = _lock(analysis)
    _require(analysis, _IN_REVIEW, "have its fixes reviewed")
    _claim_for_action(analysis, user, now)
    current = _current_revision(analysis)
    fixes = list(
        Fix.objects.filter(
            revision=current, status=Fix.Status.PROPOSED, confidence__gte=min_confidence
        ).order_by("offset", "id")
    )
    if not fixes:
        return []
    Fix.objects.filter(pk__in=[fix.pk for fix in fixes]).update(
        status=Fix.Status.ACCEPTED, reviewer=user, reviewed_at=now, reason=""
    )
    for fix in fixes:
        fix.refresh_from_db()
    _audit(
        analysis,
        AuditEvent.Action.BULK_ACCEPTED,
        actor=user,
        revision_id=current.pk,
        data={"min_confidence": min_confidence, "fixes": [fix.pk for fix in fixes]},
    )
    return fixes


# ================================================================ apply


@transaction.atomic
def fixes_apply(*, analysis_id: int, user: AbstractBaseUser) -> ApplyOutcome:
    """Apply the accepted fixes of the current revision into revision n+1 and re-validate.

    One transaction on the locked analysis. Accepted fixes of an older revision become
    `stale`; those whose FIND does not match exactly once, or that overlap one another,
    become `conflict` with the reason in `fix.reason`; the rest are applied in one pass into
    the new revision (`applied`, `applied_in`). Structured fields are re-read from the new
    body (a field that cannot be read keeps its value), the analysis goes back to validating
    and a REVISE-loop attempt is queued.

    Raises NothingToApply (changing nothing) when no fix is accepted. When fixes were
    accepted but none could be applied, their new statuses are saved and the outcome's
    `revision` is None (the analysis stays in review).
    """
    now = timezone.now()
    # Lock the analysis row: two reviewers pressing Apply at once must yield one revision n+1;
    # the second waits here, then finds the analysis validating and is refused.
    analysis = _lock(analysis_id)
    _require(analysis, _IN_REVIEW, "have fixes applied")
    _claim_for_action(analysis, user, now)
    current = _current_revision(analysis)
    accepted = list(
        Fix.objects.filter(revision__analysis=analysis, status=Fix.Status.ACCEPTED)
        .select_related("revision")
        .order_by("offset", "id")
    )
    if not accepted:
        raise NothingToApply("No accepted fixes to apply.")

    stale = [fix for fix in accepted if fix.revision_id != current.pk]
    for fix in stale:
        fix.status = Fix.Status.STALE
        fix.reason = _stale_reason(fix, current)
        fix.save(update_fields=["status", "reason"])

    candidates = [fix for fix in accepted if fix.revision_id == current.pk]
    result = apply_fixes(
        current.body,
        [FixToApply(key=fix.pk, find=fix.find, replace=fix.replace) for fix in candidates],
    )
    conflicts = [fix for fix in candidates if fix.pk in result.conflicts]
    for fix in conflicts:
        fix.status = Fix.Status.CONFLICT
        fix.reason = result.conflicts[fix.pk]
        fix.save(update_fields=["status", "reason"])
    applied_keys = set(result.applied)
    applied = [fix for fix in candidates if fix.pk in applied_keys]

    data: dict[str, Any] = {
        "applied": [fix.pk for fix in applied],
        "conflicts": {str(fix.pk): fix.reason for fix in conflicts},
        "stale": [fix.pk for fix in stale],
    }
    if not applied:
        _audit(
            analysis,
            AuditEvent.Action.APPLIED,
            actor=user,
            revision_id=current.pk,
            comment="Nothing applied: every accepted fix conflicts or is stale.",
            data=data,
        )
        return ApplyOutcome(revision=None, applied=[], conflicts=conflicts, stale=stale)

    revision = Revision.objects.create(
        analysis=analysis,
        number=current.number + 1,
        body=result.body,
        author=user,
        reason=Revision.Reason.FIXES_APPLIED,
    )
    Fix.objects.filter(pk__in=applied_keys).update(status=Fix.Status.APPLIED, applied_in=revision)
    for fix in applied:
        fix.status = Fix.Status.APPLIED
        fix.applied_in = revision
    _retire_open_fixes(analysis, revision)
    _fields_update(analysis, extract_fields(result.body, previous=_fields_as_extracted(analysis)))
    analysis.needs_new_input = False
    analysis.status = Status.VALIDATING
    analysis.save()
    _audit(analysis, AuditEvent.Action.APPLIED, actor=user, revision_id=revision.pk, data=data)
    attempt_enqueue(revision=revision, loop_kind=Attempt.LoopKind.REVISE)
    return ApplyOutcome(revision=revision, applied=applied, conflicts=conflicts, stale=stale)


def _stale_reason(fix: Fix, current: Revision) -> str:
    return (
        f"Proposed for revision {fix.revision.number}; the report is now at revision "
        f"{current.number}."
    )


def _retire_open_fixes(analysis: Analysis, current: Revision) -> None:
    """Fixes still proposed or accepted on an older revision can no longer be reviewed."""
    old = Fix.objects.filter(
        revision__analysis=analysis,
        revision__number__lt=current.number,
        status__in=[Fix.Status.PROPOSED, Fix.Status.ACCEPTED],
    ).select_related("revision")
    for fix in old:
        fix.status = Fix.Status.STALE
        fix.reason = _stale_reason(fix, current)
        fix.save(update_fields=["status", "reason"])


# ================================================================ sign-off and reject


@transaction.atomic
def analysis_sign_off(*, analysis: Analysis, user: AbstractBaseUser, comment: str = "") -> Analysis:
    """Approve an analysis in review whose latest attempt is done and has no unapplied fix."""
    comment = (comment or "").strip()
    _check_length(comment, "The comment")
    now = timezone.now()
    analysis = _lock(analysis)
    _require(analysis, _IN_REVIEW, "be signed off")
    _claim_for_action(analysis, user, now)
    latest = analysis.attempts.order_by("-number").first()
    if latest is None or latest.status != Attempt.Status.DONE:
        state = f"attempt {latest.number} is {latest.status}" if latest else "it has no attempt"
        raise IllegalTransition(
            f"Only an analysis whose latest validation is done can be signed off ({state})."
        )
    pending = Fix.objects.filter(revision__analysis=analysis, status=Fix.Status.ACCEPTED).count()
    if pending:
        noun = "fix is" if pending == 1 else "fixes are"
        raise IllegalTransition(
            f"{pending} accepted {noun} not applied yet: apply or undo them before signing off."
        )
    _set_status(analysis, Status.APPROVED)
    analysis.save()
    _audit(
        analysis,
        AuditEvent.Action.APPROVED,
        actor=user,
        revision_id=latest.revision_id,
        comment=comment,
        data={
            "attempt": latest.number,
            "decision": latest.decision,
            "confidence": latest.confidence,
        },
    )
    return analysis


@transaction.atomic
def analysis_reject(*, analysis: Analysis, user: AbstractBaseUser, comment: str) -> Analysis:
    """Reject an open analysis for good; the comment (why) is required."""
    comment = (comment or "").strip()
    if not comment:
        raise ReasonRequired("Say why the analysis is rejected.")
    _check_length(comment, "The comment")
    now = timezone.now()
    analysis = _lock(analysis)
    _require(analysis, _OPEN, "be rejected")
    _claim_for_action(analysis, user, now)
    _set_status(analysis, Status.REJECTED)
    analysis.save()
    _audit(
        analysis,
        AuditEvent.Action.REJECTED,
        actor=user,
        revision_id=_current_revision(analysis).pk,
        comment=comment,
    )
    return analysis


# ================================================================ new input from the pipeline


@transaction.atomic
def analysis_submit_draft(
    *, analysis: Analysis, user: AbstractBaseUser | None, body: str
) -> Revision:
    """A new draft (RETRY / REVISE path): revision n+1 with `body`, re-validated as RETRY loop.

    The pipeline is not a reviewer: reviewers' claims do not block it.
    """
    _check_body(body)
    analysis = _lock(analysis)
    _require(analysis, _IN_REVIEW, "take a new draft")
    current = _current_revision(analysis)
    if body == current.body:
        raise DomainError(f"The new draft is the same as revision {current.number}.")
    revision = _revision_next(analysis, current, body, user, Revision.Reason.NEW_DRAFT)
    _fields_update(analysis, extract_fields(body, previous=_fields_as_extracted(analysis)))
    _revalidate_new_revision(analysis, revision)
    _audit(
        analysis,
        AuditEvent.Action.NEW_DRAFT,
        actor=user,
        revision_id=revision.pk,
        data={"previous_revision": current.number},
    )
    return revision


@transaction.atomic
def analysis_submit_evidence(
    *, analysis: Analysis, user: AbstractBaseUser | None, evidence: Sequence[EvidenceItem]
) -> Revision:
    """Add evidence items (an existing `source_ref` is replaced), then re-validate the same
    body as revision n+1 (reason new_evidence, RETRY loop)."""
    _check_evidence(evidence)
    analysis = _lock(analysis)
    _require(analysis, _IN_REVIEW, "take new evidence")
    current = _current_revision(analysis)
    existing = {item.source_ref: item for item in Evidence.objects.filter(analysis=analysis)}
    added: list[str] = []
    replaced: list[str] = []
    for item in evidence:
        text = item.content if isinstance(item.content, str) else ""
        data = None if isinstance(item.content, str) else item.content
        values = {
            "kind": item.kind,
            "url": (item.url or "").strip(),
            "content_text": text,
            "content_json": data,
        }
        row = existing.get(item.source_ref)
        if row is None:
            Evidence.objects.create(analysis=analysis, source_ref=item.source_ref, **values)
            added.append(item.source_ref)
        else:
            for name, value in values.items():
                setattr(row, name, value)
            row.save(update_fields=list(values))
            replaced.append(item.source_ref)
    revision = _revision_next(analysis, current, current.body, user, Revision.Reason.NEW_EVIDENCE)
    _revalidate_new_revision(analysis, revision)
    _audit(
        analysis,
        AuditEvent.Action.NEW_EVIDENCE,
        actor=user,
        revision_id=revision.pk,
        data={"added": added, "replaced": replaced},
    )
    return revision


def _revision_next(
    analysis: Analysis, current: Revision, body: str, user: AbstractBaseUser | None, reason: str
) -> Revision:
    revision = Revision.objects.create(
        analysis=analysis, number=current.number + 1, body=body, author=user, reason=reason
    )
    _retire_open_fixes(analysis, revision)
    return revision


def _revalidate_new_revision(analysis: Analysis, revision: Revision) -> None:
    analysis.needs_new_input = False
    analysis.status = Status.VALIDATING
    analysis.save()
    attempt_enqueue(revision=revision, loop_kind=Attempt.LoopKind.RETRY)


def _check_body(body: str) -> None:
    # The engine's input rules, the same ingest and `redline check` apply.
    problems = body_problems(body, _input_limits())
    if problems:
        raise DomainError(f"The new draft is refused: {'; '.join(problems)}.")


def _check_evidence(evidence: Sequence[EvidenceItem]) -> None:
    problems = evidence_problems(evidence, _input_limits())
    if problems:
        raise DomainError(f"The evidence is refused: {'; '.join(problems)}.")


def _input_limits() -> InputLimits:
    return InputLimits(
        body_bytes=settings.REDLINE_MAX_BODY_BYTES,
        evidence_bytes=settings.REDLINE_MAX_EVIDENCE_BYTES,
    )


# ================================================================ structured fields


def _fields_as_extracted(analysis: Analysis) -> ExtractedFields:
    numeric: dict[str, Decimal] = {}
    for name, value in (analysis.numeric_fields or {}).items():
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            continue
        if number.is_finite():
            numeric[name] = number
    return ExtractedFields(
        decision=analysis.decision or None, conviction=analysis.conviction or None, numeric=numeric
    )


def _fields_as_bundle_fields(analysis: Analysis) -> dict[str, Any]:
    fields: dict[str, Any] = dict(analysis.numeric_fields or {})
    if analysis.decision:
        fields["decision"] = analysis.decision
    if analysis.conviction:
        fields["conviction"] = analysis.conviction
    return fields


def _fields_update(analysis: Analysis, extracted: ExtractedFields) -> list[str]:
    """Copy what could be read into the analysis; a field that could not be read keeps its
    value (never emptied). Returns the names of the columns that changed."""
    changed: list[str] = []
    for name in ("decision", "conviction"):
        value = getattr(extracted, name)
        if value and value.strip():
            label = value.strip().upper()[:20]
            if getattr(analysis, name) != label:
                setattr(analysis, name, label)
                changed.append(name)
    numeric = dict(analysis.numeric_fields or {})
    for name, number in extracted.numeric.items():
        if number.is_finite() and numeric.get(name) != str(number):
            numeric[name] = str(number)
    if numeric != (analysis.numeric_fields or {}):
        analysis.numeric_fields = numeric
        changed.append("numeric_fields")
    return changed


# ================================================================ helpers


def _check_length(text: str, what: str) -> None:
    if len(text) > MAX_COMMENT_CHARS:
        raise DomainError(f"{what} is too long (at most {MAX_COMMENT_CHARS} characters).")


def _audit(
    analysis: Analysis,
    action: str,
    *,
    actor: AbstractBaseUser | None = None,
    fix: Fix | None = None,
    revision_id: int | None = None,
    comment: str = "",
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        analysis=analysis,
        actor=actor,
        action=action,
        fix=fix,
        revision_id=revision_id,
        comment=comment,
        data=data or {},
    )
