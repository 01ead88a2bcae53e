"""Fix review: accept, reject, edit, undo, bulk accept.

Each action takes the analysis lock, auto-claims the analysis for the reviewer and writes
its AuditEvent; a refused action raises a ``DomainError`` and changes nothing.

Accept, reject and undo are what a reviewer does dozens of times an hour (the ``a``, ``r``
and ``u`` keys): each reads everything it checks in one query under the lock
(:func:`validation.review_read.fix_under_review`), then writes the fix and its audit event.
The fix comes back with ``under_review``, that read with its counts moved by the action,
so the htmx answer is drawn without another query.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from analyses.models import Analysis, Revision
from redline_errors import (
    DomainError,
    FindNotUnique,
    FixNotFound,
    FixNotReviewable,
    ReasonRequired,
)
from validation import review_read
from validation.engine.fixes import count_occurrences
from validation.models import AuditEvent, Fix
from validation.review_read import FixUnderReview
from validation.services._shared import (
    IN_REVIEW,
    audit,
    audit_event,
    check_length,
    current_revision,
    lock_analysis,
    require_status,
)
from validation.services.claims import claim_for_action
from validation.services.reverify import (
    UNVERIFIED_CONFIDENCE,
    EditCheck,
    fix_edit_check,
    own_fix_check,
)

MAX_REPLACE_CHARS = 20_000
_FIX_FIELDS = [f.attname for f in Fix._meta.concrete_fields]


def _check_reviewable(target: FixUnderReview, allowed: Iterable[str], doing: str) -> None:
    fix, current = target.fix, target.current_revision
    if fix.status == Fix.Status.APPLIED:
        number = target.applied_in_number or "a later revision"
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


def _review_start(
    fix: Fix, user: User, allowed: Iterable[str], doing: str, analysis_id: int | None
) -> FixUnderReview:
    """Read `fix` with what the action checks, under the analysis lock, into the caller's
    instance; claim the analysis; refuse an action its state does not allow."""
    if analysis_id is None:
        analysis_id = (
            Fix.objects.filter(pk=fix.pk).values_list("revision__analysis_id", flat=True).first()
        )
    target = (
        review_read.fix_under_review(fix_id=fix.pk, analysis_id=analysis_id, lock=True)
        if analysis_id is not None
        else None
    )
    if target is None:
        raise FixNotFound("There is no such fix on this analysis.")
    for name in _FIX_FIELDS:  # the caller's instance is brought up to date, as refresh would
        setattr(fix, name, getattr(target.fix, name))
    fix.revision, fix.reviewer = target.fix.revision, target.fix.reviewer
    target.fix = fix
    fix.under_review = target  # type: ignore[attr-defined]
    require_status(target.analysis, IN_REVIEW, "have its fixes reviewed")
    now = timezone.now()
    claim_for_action(
        target.analysis, user, now, policy=target.policy, lazy=True, events=target.audit
    )
    _check_reviewable(target, allowed, doing)
    return target


def _fix_review(
    target: FixUnderReview,
    *,
    status: str,
    user: User | None,
    reason: str = "",
    also: Iterable[str] = (),
) -> None:
    """Record a person's decision on the fix (one UPDATE, with the `also` fields changed)
    and move the counts the answer shows."""
    fix = target.fix
    was_bulk = review_read.is_bulk_candidate(fix, target.policy)
    before, was_carried = fix.status, fix.carried_from_id is not None
    fix.status = status
    fix.reviewer = user
    fix.reviewed_at = timezone.now() if user is not None else None
    fix.reason = reason
    fix.carried_from = None  # a person's own decision now, not a carried-over rejection
    fields = ["status", "reviewer", "reviewed_at", "reason", "replace", "carried_from", *also]
    fix.save(update_fields=fields)
    target.moved(before, was_bulk, was_carried)


def _audit(
    target: FixUnderReview,
    action: str,
    user: User,
    *,
    comment: str = "",
    data: dict[str, Any] | None = None,
    write: bool = True,
) -> None:
    """The action's audit event about the fix, written with the Claimed event the action
    may have caused, in one INSERT (the claim first: ids follow the order)."""
    fix = target.fix
    event = audit_event(target.analysis, action, actor=user, fix=fix, comment=comment, data=data)
    event.revision_id = fix.revision_id
    target.audit.append(event)
    if write:
        AuditEvent.objects.bulk_create(target.audit)


def _unchanged(target: FixUnderReview) -> Fix:
    """An action that changes nothing still writes the Claimed event it may have caused."""
    if target.audit:
        AuditEvent.objects.bulk_create(target.audit)
    return target.fix


@transaction.atomic
def fix_accept(*, fix: Fix, user: User, analysis_id: int | None = None) -> Fix:
    """Accept a proposed (or rejected) fix of the current revision. Accepting twice is a
    no-op. `analysis_id`: the analysis the fix must belong to (a URL's), else FixNotFound."""
    allowed = (Fix.Status.PROPOSED, Fix.Status.REJECTED, Fix.Status.ACCEPTED)
    target = _review_start(fix, user, allowed, "accept", analysis_id)
    if fix.status == Fix.Status.ACCEPTED:
        return _unchanged(target)
    _fix_review(target, status=Fix.Status.ACCEPTED, user=user)
    _audit(target, AuditEvent.Action.FIX_ACCEPTED, user)
    return fix


@transaction.atomic
def fix_reject(*, fix: Fix, user: User, reason: str, analysis_id: int | None = None) -> Fix:
    """Reject a fix, with a reason when Policy.require_reject_reason (the default)."""
    reason = (reason or "").strip()
    check_length(reason, "The reason")
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED, Fix.Status.CONFLICT)
    target = _review_start(fix, user, allowed, "reject", analysis_id)
    if not reason and target.policy.require_reject_reason:
        raise ReasonRequired("Give a reason for rejecting this fix.")
    if fix.status == Fix.Status.REJECTED and fix.reason == reason:
        return _unchanged(target)
    _fix_review(target, status=Fix.Status.REJECTED, user=user, reason=reason)
    _audit(target, AuditEvent.Action.FIX_REJECTED, user, comment=reason)
    return fix


@transaction.atomic
def fix_edit(*, fix: Fix, user: User, replace: str, analysis_id: int | None = None) -> Fix:
    """Replace the fix's replacement text, re-verify it against the fix's proof, and accept
    it when the proof still holds.

    An edit the proof contradicts (or that the engine cannot check) is saved as "edited —
    unverified": its confidence drops, it stays to review (a person may accept it on its
    own, never in bulk) and the card says why. Editing back to the proposal restores the
    proposal's confidence. FIND is not editable, and must still occur exactly once in the
    fix's revision. Line endings are normalised to "\\n" (a browser textarea sends "\\r\\n").
    """
    replace = replace.replace("\r\n", "\n")
    if len(replace) > MAX_REPLACE_CHARS:
        raise DomainError(f"The replacement is too long (at most {MAX_REPLACE_CHARS} characters).")
    if "\x00" in replace:
        raise DomainError("The replacement contains a NUL character.")
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED)
    target = _review_start(fix, user, allowed, "edit", analysis_id)
    if replace == fix.find:
        raise DomainError(
            "The replacement is the same as the text it replaces; reject the fix instead."
        )
    body = Revision.objects.values_list("body", flat=True).get(pk=fix.revision_id)
    occurrences = count_occurrences(body, fix.find)
    if occurrences != 1:
        where = "does not occur" if occurrences == 0 else f"occurs {occurrences} times"
        raise FindNotUnique(
            f"The text this fix replaces {where} in revision {fix.revision.number}; it must "
            "occur exactly once."
        )
    if fix.status == Fix.Status.ACCEPTED and fix.replace == replace:
        return _unchanged(target)
    previous = fix.replace
    if fix.proposed_confidence is None:
        fix.proposed_confidence = fix.confidence
    if fix.by_reviewer:  # a reviewer's own fix has no proof of its own: checked afresh
        authored = own_fix_check(target.analysis, body, fix.find, replace)
        check = EditCheck(authored.status, authored.note)
        fix.verified_with, fix.evidence = authored.note, authored.excerpts
        confidence = authored.confidence
    else:
        check = fix_edit_check(fix, replace)
        confidence = (
            fix.proposed_confidence
            if check.agrees
            else min(fix.proposed_confidence, UNVERIFIED_CONFIDENCE)
        )
    fix.replace = replace
    fix.edit_check = check.status
    fix.edit_note = check.note
    fix.confidence = confidence
    edited = ["edit_check", "edit_note", "confidence", "proposed_confidence"]
    if fix.by_reviewer:
        edited += ["verified_with", "evidence"]
    if check.agrees:  # "Save edit": a verified edit is accepted, a contradicted one waits
        _fix_review(target, status=Fix.Status.ACCEPTED, user=user, also=edited)
    else:
        _fix_review(target, status=Fix.Status.PROPOSED, user=None, also=edited)
    data: dict[str, Any] = {
        "previous_replace": previous,
        "replace": replace,
        "proposed_replace": fix.proposed_replace,
        "edit_check": check.status,
        "confidence": fix.confidence,
    }
    # The edit, then (when it was accepted) the acceptance, in this order: ids follow it.
    _audit(target, AuditEvent.Action.FIX_EDITED, user, comment=check.note, data=data, write=False)
    if check.agrees:
        _audit(target, AuditEvent.Action.FIX_ACCEPTED, user, data={"edited": True}, write=False)
    AuditEvent.objects.bulk_create(target.audit)
    return fix


@transaction.atomic
def fix_undo(*, fix: Fix, user: User, analysis_id: int | None = None) -> Fix:
    """Return an accepted, rejected or conflicting fix to proposed.

    An edited replacement is kept (the card still shows it as edited); to restore the
    proposal, edit the replacement back to `proposed_replace`. Undoing a proposed fix is a
    no-op.
    """
    allowed = (Fix.Status.PROPOSED, Fix.Status.ACCEPTED, Fix.Status.REJECTED, Fix.Status.CONFLICT)
    target = _review_start(fix, user, allowed, "undo", analysis_id)
    if fix.status == Fix.Status.PROPOSED:
        return _unchanged(target)
    previous = fix.status
    _fix_review(target, status=Fix.Status.PROPOSED, user=None)
    _audit(target, AuditEvent.Action.FIX_UNDONE, user, data={"previous_status": previous})
    return fix


@transaction.atomic
def fixes_bulk_accept(*, analysis: Analysis, user: User, min_confidence: float) -> list[Fix]:
    """Accept every proposed fix of the current revision whose confidence >= min_confidence,
    except edits the engine could not re-verify: those need a person's accept, one by one."""
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
    analysis = lock_analysis(analysis)
    require_status(analysis, IN_REVIEW, "have its fixes reviewed")
    claim_for_action(analysis, user, now)
    current = current_revision(analysis)
    fixes = list(
        Fix.objects.filter(
            revision=current,
            status=Fix.Status.PROPOSED,
            confidence__gte=min_confidence,
            verified=True,  # an LLM fix no tool call supports is accepted one by one
        )
        .exclude(edit_check=Fix.EditCheck.UNVERIFIED)
        .order_by("offset", "id")
    )
    if not fixes:
        return []
    Fix.objects.filter(pk__in=[fix.pk for fix in fixes]).update(
        status=Fix.Status.ACCEPTED, reviewer=user, reviewed_at=now, reason=""
    )
    for fix in fixes:  # as the UPDATE left them
        fix.status, fix.reviewer, fix.reviewed_at, fix.reason = "accepted", user, now, ""
    audit(
        analysis,
        AuditEvent.Action.BULK_ACCEPTED,
        actor=user,
        revision_id=current.pk,
        data={"min_confidence": min_confidence, "fixes": [fix.pk for fix in fixes]},
    )
    return fixes
