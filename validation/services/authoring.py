"""A reviewer's own fix: a FIND/REPLACE a person writes on a finding or on any text of the
current revision, checked as far as the engine can (``services.reverify``), recorded as
theirs, and reviewed and applied like every other fix."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from redline_errors import DomainError, FindNotUnique, IllegalTransition
from validation.engine.fixes import count_occurrences
from validation.engine.spans import widen_to_unique
from validation.models import Attempt, AuditEvent, Finding, Fix
from validation.services._shared import (
    IN_REVIEW,
    audit,
    current_revision,
    lock_analysis,
    require_status,
)
from validation.services.claims import claim_for_action
from validation.services.reverify import own_fix_check
from validation.services.review import MAX_REPLACE_CHARS

MAX_FIND_CHARS = 2_000
REVIEWER_FIX_KIND = "reviewer_fix"
# The window either side of a span searched first when widening it until it occurs once
# (the validator's own window); past it the whole body is the window.
_WIDEN_WINDOW = 300


def _widened(body: str, start: int, end: int) -> tuple[str, int]:
    """The span widened whole words at a time until it occurs once, as the validator's
    finds are."""
    low, high = max(0, start - _WIDEN_WINDOW), min(len(body), end + _WIDEN_WINDOW)
    if count_occurrences(body, body[low:high]) == 1:
        return widen_to_unique(body, start, end, low=low, high=high)
    return widen_to_unique(body, start, end)


@transaction.atomic
def fix_author(
    *,
    analysis_id: int,
    user: User,
    replace: str,
    find: str = "",
    span: tuple[int, int] | None = None,
    revision_number: int | None = None,
    finding_id: int | None = None,
) -> Fix:
    """Record a reviewer's own fix on the current revision, to review like any other.

    What it replaces is, in this order: the span of `finding_id` (a finding of the current
    revision), else `span` (source offsets into revision `revision_number`, as a selection
    mapped back to the Markdown source), else the text `find`. A span is widened whole words
    at a time until it occurs once; a typed `find` must occur once as it is. The replacement
    is re-verified (calculations recomputed, numbers looked up in the evidence and read by the
    engine's rule in the report it edits; otherwise the reviewer's word) and the fix recorded
    as the reviewer's, proposed, with an audit event.
    """
    replace = (replace or "").replace("\r\n", "\n")
    find = (find or "").replace("\r\n", "\n")
    if len(replace) > MAX_REPLACE_CHARS:
        raise DomainError(f"The replacement is too long (at most {MAX_REPLACE_CHARS} characters).")
    if len(find) > MAX_FIND_CHARS:
        raise DomainError(f"The text to replace is too long (at most {MAX_FIND_CHARS} characters).")
    if "\x00" in replace or "\x00" in find:
        raise DomainError("The fix contains a NUL character.")
    now = timezone.now()
    analysis = lock_analysis(analysis_id)
    require_status(analysis, IN_REVIEW, "take a reviewer's fix")
    claim_for_action(analysis, user, now)
    current = current_revision(analysis)
    attempt = Attempt.objects.filter(revision=current).first()
    if attempt is None or attempt.status in (Attempt.Status.QUEUED, Attempt.Status.RUNNING):
        raise IllegalTransition(
            f"Revision {current.number} is being validated: write your fix when it is done."
        )
    body = current.body
    finding = None
    if finding_id is not None:
        finding = Finding.objects.filter(pk=finding_id, attempt=attempt).first()
        if finding is None:
            raise DomainError("That finding is not one of the current revision's.")
        if finding.end > finding.start and body[finding.start : finding.end] == finding.text:
            span, revision_number = (finding.start, finding.end), current.number
        elif not find:
            raise DomainError(
                "That finding marks no text of the report: select the text to replace, or type it."
            )
    if span is not None:
        if revision_number != current.number:
            raise DomainError(
                f"The report is now at revision {current.number}: select the text again."
            )
        start, end = span
        if not 0 <= start < end <= len(body):
            raise DomainError("The selection is not within the report's text.")
        if end - start > MAX_FIND_CHARS:
            raise DomainError(f"Select less: at most {MAX_FIND_CHARS} characters.")
        find, offset = _widened(body, start, end)
    else:
        if not find.strip():
            raise DomainError("Say what to replace: select it in the report, or type it.")
        occurrences = count_occurrences(body, find)
        if occurrences != 1:
            where = "does not occur" if occurrences == 0 else f"occurs {occurrences} times"
            raise FindNotUnique(
                f"The text to replace {where} in revision {current.number}; it must occur "
                "exactly once (select it in the report, or type more of it)."
            )
        offset = body.find(find)
    if replace == find:
        raise DomainError("The replacement is the same as the text it replaces.")
    check = own_fix_check(analysis, body, find, replace)
    fix = Fix.objects.create(
        attempt=attempt,
        revision=current,
        finding=finding,
        kind=REVIEWER_FIX_KIND,
        origin=Fix.Origin.REVIEWER,
        find=find,
        replace=replace,
        proposed_replace=replace,
        verified_with=check.note,
        confidence=check.confidence,
        proposed_confidence=check.confidence,
        offset=offset,
        evidence=check.excerpts,
        edit_check=check.status,
        edit_note=check.note,
        author=user,
        authored_at=now,
    )
    audit(
        analysis,
        AuditEvent.Action.FIX_AUTHORED,
        actor=user,
        fix=fix,
        revision_id=current.pk,
        comment=check.note,
        data={
            "find": find,
            "replace": replace,
            "check": check.status,
            "finding": finding.pk if finding is not None else None,
        },
    )
    return fix
