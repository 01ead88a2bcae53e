"""Sign-off and reject: a person's last word on an analysis."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from analyses.models import Analysis
from validation.errors import IllegalTransition, ReasonRequired
from validation.models import Attempt, AuditEvent, Fix
from validation.services._shared import (
    IN_REVIEW,
    OPEN,
    Status,
    audit,
    check_length,
    current_revision,
    lock_analysis,
    require_status,
    set_status,
)
from validation.services.claims import claim_for_action


@transaction.atomic
def analysis_sign_off(*, analysis: Analysis, user: User, comment: str = "") -> Analysis:
    """Approve an analysis in review whose latest attempt is done and has no unapplied fix."""
    comment = (comment or "").strip()
    check_length(comment, "The comment")
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, IN_REVIEW, "be signed off")
    claim_for_action(analysis, user, now)
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
    set_status(analysis, Status.APPROVED)
    analysis.save()
    audit(
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
def analysis_reject(*, analysis: Analysis, user: User, comment: str) -> Analysis:
    """Reject an open analysis for good; the comment (why) is required."""
    comment = (comment or "").strip()
    if not comment:
        raise ReasonRequired("Say why the analysis is rejected.")
    check_length(comment, "The comment")
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, OPEN, "be rejected")
    claim_for_action(analysis, user, now)
    set_status(analysis, Status.REJECTED)
    analysis.save()
    audit(
        analysis,
        AuditEvent.Action.REJECTED,
        actor=user,
        revision_id=current_revision(analysis).pk,
        comment=comment,
    )
    return analysis
