"""Apply: the accepted fixes of the current revision become revision n+1, re-validated.

(Fix review -- accept, reject, edit, undo, bulk accept -- is in ``services.review``.)"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import OperationalError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from analyses.bundles import input_limits
from analyses.models import Analysis, Revision
from redline_errors import (
    DatabaseBusy,
    DomainError,
    LoopLimitReached,
    NothingToApply,
)
from validation.engine.fields import extract_fields
from validation.engine.fixes import ApplyResult, FixToApply, apply_fixes
from validation.engine.intake import body_problems
from validation.engine.types import ExtractedFields
from validation.loops import REVISE, LoopState
from validation.models import Attempt, AuditEvent, Fix, Policy
from validation.services._shared import (
    IN_REVIEW,
    Status,
    audit,
    current_revision,
    lock_analysis,
    require_status,
    retire_open_fixes,
    stale_reason,
)
from validation.services.claims import claim_for_action
from validation.services.jobs import attempt_create
from validation.services.webhooks import webhook_emit


@dataclass(frozen=True)
class ApplyOutcome:
    """What `fixes_apply` did. `revision` is None when no fix could be applied."""

    revision: Revision | None
    applied: list[Fix] = field(default_factory=list)
    conflicts: list[Fix] = field(default_factory=list)
    stale: list[Fix] = field(default_factory=list)


APPLY_ROUNDS = 3  # plans read without the lock; one that went stale is redone this often
BUSY_RETRIES = 3  # a busy SQLite database is retried this often, with backoff
BUSY_BACKOFF_SECONDS = 0.1


class _PlanOutdated(Exception):
    """The accepted fixes, the current revision or the fields changed after the plan."""


@dataclass(frozen=True)
class _ApplyPlan:
    """The text work of an apply, done before the lock, and what it was done on."""

    revision: Revision | None  # the current revision as read (None: no analysis)
    fields: tuple[str, str, Any]  # decision, conviction, numeric_fields as read
    accepted: tuple[tuple[int, int, str, str], ...]  # (pk, revision, find, replace)
    result: ApplyResult | None = None  # None: nothing of the current revision to apply
    extracted: ExtractedFields | None = None
    fixes: tuple[Fix, ...] = ()  # the accepted fixes as read (`accepted` is their snapshot)
    policy: Policy | None = None


def _accepted_fixes(analysis_id: int) -> list[Fix]:
    return list(
        Fix.objects.filter(revision__analysis_id=analysis_id, status=Fix.Status.ACCEPTED)
        .select_related("revision")
        .defer("revision__body")  # one body per fix would be megabytes under the lock
        .order_by("offset", "id")
    )


def _snapshot(fixes: Iterable[Fix]) -> tuple[tuple[int, int, str, str], ...]:
    return tuple((fix.pk, fix.revision_id, fix.find, fix.replace) for fix in fixes)


def _accepted_snapshot(analysis_id: int) -> tuple[tuple[int, int, str, str], ...]:
    """`_snapshot(_accepted_fixes(analysis_id))` as plain rows: no join, no model objects
    (read under the lock, where only the comparison with the plan needs them)."""
    rows = (
        Fix.objects.filter(revision__analysis_id=analysis_id, status=Fix.Status.ACCEPTED)
        .order_by("offset", "id")
        .values_list("pk", "revision_id", "find", "replace")
    )
    return tuple(rows)


def _fields(analysis: Analysis) -> tuple[str, str, Any]:
    return analysis.decision, analysis.conviction, analysis.numeric_fields


def _plan_apply(analysis_id: int) -> _ApplyPlan:
    """Read the analysis without locking it and do every piece of text work: FIND matching,
    the new body, its structured fields. The locked phase checks the plan still holds."""
    analysis = Analysis.objects.filter(pk=analysis_id).first()
    if analysis is None:
        return _ApplyPlan(revision=None, fields=("", "", None), accepted=())
    policy = Policy.for_pipeline(analysis.pipeline_id)  # read here, not under the lock
    current = current_revision(analysis)
    accepted = _accepted_fixes(analysis_id)
    fields, snapshot = _fields(analysis), _snapshot(accepted)
    candidates = [fix for fix in accepted if fix.revision_id == current.pk]
    if not candidates:
        return _ApplyPlan(
            revision=current, fields=fields, accepted=snapshot, fixes=tuple(accepted), policy=policy
        )
    result = apply_fixes(
        current.body,
        [FixToApply(key=fix.pk, find=fix.find, replace=fix.replace) for fix in candidates],
    )
    extracted = None
    if result.applied:
        # The new revision obeys the rules a draft does (issue 27): edits may not grow a
        # body past the limit. Refused here, before any write.
        problems = body_problems(result.body, input_limits())
        if problems:
            raise DomainError(
                f"The accepted fixes would make revision {current.number + 1} a body the "
                f"input rules refuse ({'; '.join(problems)}); nothing was applied: undo or "
                "shorten some of them."
            )
        extracted = extract_fields(result.body, previous=analysis.extracted_fields())
    return _ApplyPlan(
        current,
        fields,
        snapshot,
        result=result,
        extracted=extracted,
        fixes=tuple(accepted),
        policy=policy,
    )


def _is_busy(error: OperationalError) -> bool:
    """SQLite's "database is locked" (another writer held it past the busy timeout)."""
    return connection.vendor == "sqlite" and "locked" in str(error).lower()


def fixes_apply(*, analysis_id: int, user: User) -> ApplyOutcome:
    """Apply the accepted fixes of the current revision into revision n+1 and re-validate.

    The text work (FIND matching, the new body, its structured fields) is done first,
    without a lock; then one short transaction on the locked analysis checks that the
    current revision, the accepted fixes and the fields are still what was read (if not,
    the work is redone, at most APPLY_ROUNDS times) and only writes. Accepted fixes of an
    older revision become `stale`; those whose FIND does not match exactly once, or that
    overlap one another, become `conflict` with the reason in `fix.reason`; the rest are
    applied in one pass into the new revision (`applied`, `applied_in`). Structured fields
    are re-read from the new body (a field that cannot be read keeps its value), the
    analysis goes back to validating and a REVISE-loop attempt is queued.

    Raises NothingToApply (changing nothing) when no fix is accepted. When fixes were
    accepted but none could be applied, their new statuses are saved and the outcome's
    `revision` is None (the analysis stays in review). A SQLite database kept busy by
    another writer is retried with backoff, then refused with DatabaseBusy.
    """
    busy = 0
    rounds = 0
    while True:
        try:
            plan = _plan_apply(analysis_id)
            with transaction.atomic():
                return _apply_locked(analysis_id, user, plan)
        except _PlanOutdated:
            rounds += 1
            if rounds >= APPLY_ROUNDS:
                raise DomainError(
                    "The accepted fixes kept changing while they were being applied; "
                    "press Apply again."
                ) from None
        except OperationalError as error:
            if not _is_busy(error):
                raise
            busy += 1
            if busy > BUSY_RETRIES or connection.in_atomic_block:
                raise DatabaseBusy(
                    "The database is busy with another change; nothing was applied. "
                    "Try again in a moment."
                ) from error
            time.sleep(BUSY_BACKOFF_SECONDS * 2 ** (busy - 1) * (1 + random.random()))


def _apply_locked(analysis_id: int, user: User, plan: _ApplyPlan) -> ApplyOutcome:
    """The writes of an apply, on the locked analysis; raises _PlanOutdated if the plan's
    inputs changed since it was made."""
    now = timezone.now()
    # Lock the analysis row: two reviewers pressing Apply at once must yield one revision n+1;
    # the second waits here, then finds the analysis validating and is refused.
    analysis = lock_analysis(analysis_id)
    require_status(analysis, IN_REVIEW, "have fixes applied")
    policy = plan.policy or Policy.for_pipeline(analysis.pipeline_id)
    claim_for_action(analysis, user, now, policy=policy)
    # Loop limits bound the validator's and the pipeline's loops, not a person's edits:
    # past one, fixes a reviewer wrote are still applied (re-validated and audited as usual).
    limit = LoopState.of(analysis, policy).limit_reason(REVISE)
    current_id = (
        Revision.objects.filter(analysis=analysis).order_by("-number").values_list("pk").first()
    )
    current = plan.revision
    if (
        current is None
        or current_id != (current.pk,)
        or _accepted_snapshot(analysis.pk) != plan.accepted
        or _fields(analysis) != plan.fields
    ):
        raise _PlanOutdated
    # The fixes as the plan read them: the snapshot just compared says they are unchanged.
    accepted = list(plan.fixes)
    if not accepted:
        raise NothingToApply("No accepted fixes to apply.")

    stale = [fix for fix in accepted if fix.revision_id != current.pk]
    for fix in stale:
        fix.status = Fix.Status.STALE
        fix.reason = stale_reason(fix, current)
    Fix.objects.bulk_update(stale, ["status", "reason"])

    candidates = [fix for fix in accepted if fix.revision_id == current.pk]
    if limit and (not candidates or not all(fix.by_reviewer for fix in candidates)):
        raise LoopLimitReached(
            f"{limit}: no new revision can be made from the validator's fixes (only fixes a "
            "reviewer wrote are applied past it). Undo them, sign off with a comment, or "
            "reject."
        )
    result = plan.result or ApplyResult(body=current.body)
    conflicts = [fix for fix in candidates if fix.pk in result.conflicts]
    for fix in conflicts:
        fix.status = Fix.Status.CONFLICT
        fix.reason = result.conflicts[fix.pk]
    Fix.objects.bulk_update(conflicts, ["status", "reason"])
    applied_keys = set(result.applied)
    applied = [fix for fix in candidates if fix.pk in applied_keys]

    data: dict[str, Any] = {
        "applied": [fix.pk for fix in applied],
        "conflicts": {str(fix.pk): fix.reason for fix in conflicts},
        "stale": [fix.pk for fix in stale],
    }
    if not applied or plan.extracted is None:
        audit(
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
    retire_open_fixes(analysis, revision)
    analysis.take_extracted_fields(plan.extracted)
    analysis.needs_new_input = False
    analysis.status = Status.VALIDATING
    analysis.revise_loops += 1  # this apply uses a REVISE loop
    analysis.save()
    data["loops"] = {"revise": analysis.revise_loops, "retry": analysis.retry_loops}
    if limit:
        data["past_loop_limit"] = limit
    audit(analysis, AuditEvent.Action.APPLIED, actor=user, revision_id=revision.pk, data=data)
    webhook_emit(
        analysis,
        "revision.applied",
        {"revision": revision.number, "applied_fixes": len(applied), "by": user.get_username()},
    )
    # The revision is new, so it has no attempt yet: the next number, without attempt_enqueue's
    # look-up and savepoint.
    number = Attempt.objects.filter(analysis=analysis).aggregate(n=Max("number"))["n"] or 0
    attempt_create(revision=revision, number=number + 1, loop_kind=Attempt.LoopKind.REVISE)
    return ApplyOutcome(revision=revision, applied=applied, conflicts=conflicts, stale=stale)
