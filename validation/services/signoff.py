"""Sign-off and reject: a person's last word on an analysis."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from analyses.models import Analysis, Revision
from redline_errors import FixesUndecided, IllegalTransition, ReasonRequired, RevisionChanged
from validation.loops import LoopState
from validation.models import Attempt, AuditEvent, Fix, Policy
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
from validation.services.webhooks import emit_status

UNDECIDED = (Fix.Status.PROPOSED, Fix.Status.CONFLICT)


def _require_seen(current: Revision, seen: int | None, action: str) -> None:
    """A person's last word holds for the revision they read: ``seen`` is its number (None
    for callers that show no page). Another revision current now is a refusal, never a
    decision carried over to text nobody read."""
    if seen is None or seen == current.number:
        return
    why = {
        Revision.Reason.NEW_DRAFT: "a new draft arrived",
        Revision.Reason.NEW_EVIDENCE: "new evidence arrived",
        Revision.Reason.FIXES_APPLIED: "accepted fixes were applied",
    }.get(Revision.Reason(current.reason), "it was revised")
    raise RevisionChanged(
        f"The report changed: you read revision {seen}, and revision {current.number} is "
        f"current now ({why}). Nothing was {action}; read revision {current.number} first."
    )


@transaction.atomic
def analysis_sign_off(
    *,
    analysis: Analysis,
    user: User,
    comment: str = "",
    override: bool = False,
    revision: int | None = None,
) -> Analysis:
    """Approve an analysis in review whose latest attempt is done.

    Every fix of the current revision must be decided (accepted, rejected or applied); fixes
    nobody decided need `override` and a comment saying why, which the audit records.
    Accepted fixes must be applied first while a REVISE loop remains; at a loop limit (no
    new revision can be made) they are recorded as accepted, not applied. Signing off what
    the validator did not approve while checks failed overrides it: that needs a comment
    too, and the audit records the decision and the failed checks.

    ``revision`` is the number of the revision the reviewer read (the review page's form
    sends it): another current revision is refused with ``RevisionChanged``.
    """
    comment = (comment or "").strip()
    check_length(comment, "The comment")
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, IN_REVIEW, "be signed off")
    current = current_revision(analysis)
    _require_seen(current, revision, "signed off")
    claim_for_action(analysis, user, now)
    latest = analysis.attempts.order_by("-number").first()
    if latest is None or latest.status != Attempt.Status.DONE:
        state = f"attempt {latest.number} is {latest.status}" if latest else "it has no attempt"
        raise IllegalTransition(
            f"Only an analysis whose latest validation is done can be signed off ({state})."
        )
    fixes = list(Fix.objects.filter(revision=current).values_list("pk", "status"))
    undecided = [pk for pk, status in fixes if status in UNDECIDED]
    accepted = [pk for pk, status in fixes if status == Fix.Status.ACCEPTED]
    loops = LoopState.of(analysis, Policy.for_pipeline(analysis.pipeline_id))
    if accepted and loops.revise_remaining:
        noun = "fix is" if len(accepted) == 1 else "fixes are"
        raise IllegalTransition(
            f"{len(accepted)} accepted {noun} not applied yet: apply or undo them before "
            "signing off."
        )
    if undecided and not override:
        noun = "fix is" if len(undecided) == 1 else "fixes are"
        raise FixesUndecided(
            f"{len(undecided)} {noun} not decided: accept or reject every fix, or sign off "
            "anyway with a comment saying why."
        )
    if undecided and not comment:
        raise ReasonRequired("Say why you sign off with fixes nobody decided.")
    limit = loops.blocked_reason(latest.decision)
    if limit and not comment:
        raise ReasonRequired("At a loop limit, say why you sign off (a comment is required).")
    failed = Attempt.failed_checks(latest.checks) if latest.decision != "APPROVE" else []
    if failed and not comment:
        raise ReasonRequired(
            f"The validator rated this {latest.decision} with failed checks "
            f"({', '.join(failed)}): say why you sign off (a comment is required)."
        )
    set_status(analysis, Status.APPROVED)
    analysis.save()
    emit_status(analysis, {"by": user.get_username(), "comment": comment})
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
            "override": bool(undecided),
            "undecided_fixes": undecided,
            "against_validator": bool(failed),
            "failed_checks": failed,
            "accepted_not_applied": accepted,
            "loop_limit": limit,
        },
    )
    return analysis


@transaction.atomic
def analysis_reject(
    *, analysis: Analysis, user: User, comment: str, revision: int | None = None
) -> Analysis:
    """Reject an open analysis for good; the comment (why) is required. ``revision``: the
    revision the reviewer read, as for a sign-off."""
    comment = (comment or "").strip()
    if not comment:
        raise ReasonRequired("Say why the analysis is rejected.")
    check_length(comment, "The comment")
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, OPEN, "be rejected")
    current = current_revision(analysis)
    _require_seen(current, revision, "rejected")
    claim_for_action(analysis, user, now)
    set_status(analysis, Status.REJECTED)
    analysis.save()
    emit_status(analysis, {"by": user.get_username(), "comment": comment})
    audit(
        analysis,
        AuditEvent.Action.REJECTED,
        actor=user,
        revision_id=current.pk,
        comment=comment,
    )
    return analysis
