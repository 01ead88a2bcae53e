"""What every service module shares: the analysis lock, status rules, the audit record."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import Max

from analyses.models import Analysis, Revision
from redline_errors import DomainError, IllegalTransition
from validation.models import Attempt, AuditEvent, Fix

Status = Analysis.Status

MAX_COMMENT_CHARS = 2_000

STATUS_WORDS = {
    Status.VALIDATING: "validating",
    Status.IN_REVIEW: "in review",
    Status.APPROVED: "approved",
    Status.FAILED: "failed",
    Status.REJECTED: "rejected",
}
OPEN = frozenset({Status.VALIDATING, Status.IN_REVIEW})
IN_REVIEW = frozenset({Status.IN_REVIEW})


def lock_analysis(analysis: Analysis | int) -> Analysis:
    """The analysis row, locked until the transaction ends (serializes review actions)."""
    pk = analysis if isinstance(analysis, int) else analysis.pk
    try:
        return Analysis.objects.select_for_update().get(pk=pk)
    except Analysis.DoesNotExist:
        raise DomainError(f"There is no analysis {pk}.") from None


def require_status(analysis: Analysis, allowed: frozenset[str], doing: str) -> None:
    """Refuse an action the analysis' status does not allow, in one readable sentence."""
    if analysis.status in allowed:
        return
    if allowed == IN_REVIEW:
        who = "an analysis in review"
    elif allowed == OPEN:
        who = "an open analysis (validating or in review)"
    else:
        who = "an analysis that is " + " or ".join(STATUS_WORDS[Status(s)] for s in sorted(allowed))
    raise IllegalTransition(
        f"Only {who} can {doing} (this one is {STATUS_WORDS[Status(analysis.status)]})."
    )


def set_status(analysis: Analysis, status: str) -> None:
    analysis.status = status
    if status not in OPEN:  # a closed analysis needs no reviewer any more
        analysis.claimed_by = None
        analysis.claimed_until = None
    if status in (Status.APPROVED, Status.REJECTED):  # nor anything from its pipeline
        analysis.needs_new_input = False


def current_revision(analysis: Analysis) -> Revision:
    revision = Revision.objects.filter(analysis=analysis).order_by("-number").first()
    if revision is None:  # ingest always creates revision 1
        raise DomainError(f"Analysis {analysis.pk} has no revision.")
    return revision


def check_length(text: str, what: str) -> None:
    if len(text) > MAX_COMMENT_CHARS:
        raise DomainError(f"{what} is too long (at most {MAX_COMMENT_CHARS} characters).")


def audit(
    analysis: Analysis,
    action: str,
    *,
    actor: User | None = None,
    fix: Fix | None = None,
    revision_id: int | None = None,
    comment: str = "",
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record one audit event (an INSERT now)."""
    event = audit_event(
        analysis, action, actor=actor, fix=fix, revision_id=revision_id, comment=comment, data=data
    )
    event.save(force_insert=True)
    return event


def audit_event(
    analysis: Analysis,
    action: str,
    *,
    actor: User | None = None,
    fix: Fix | None = None,
    revision_id: int | None = None,
    comment: str = "",
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """An unsaved audit event, for a service that writes several in one bulk_create."""
    return AuditEvent(
        analysis=analysis,
        actor=actor,
        action=action,
        fix=fix,
        revision_id=revision_id,
        comment=comment,
        data=data or {},
    )


def is_latest_attempt(attempt: Attempt) -> bool:
    latest = Revision.objects.filter(analysis_id=attempt.analysis_id).aggregate(n=Max("number"))
    return bool(attempt.revision.number == latest["n"])


def stale_reason(fix: Fix, current: Revision) -> str:
    return (
        f"Proposed for revision {fix.revision.number}; the report is now at revision "
        f"{current.number}."
    )


def retire_open_fixes(analysis: Analysis, current: Revision) -> None:
    """Fixes still proposed or accepted on an older revision can no longer be reviewed.

    One UPDATE per older revision (not one per fix, and no revision bodies read): this runs
    under the analysis lock."""
    older = Revision.objects.filter(analysis=analysis, number__lt=current.number)
    for revision in older.only("pk", "number"):
        Fix.objects.filter(
            revision_id=revision.pk, status__in=[Fix.Status.PROPOSED, Fix.Status.ACCEPTED]
        ).update(
            status=Fix.Status.STALE,
            reason=(
                f"Proposed for revision {revision.number}; the report is now at revision "
                f"{current.number}."
            ),
        )
