"""Claims: a reviewer holds an analysis for Policy.claim_minutes while acting on it (the
claim time of the analysis' pipeline's policy: its own, else the default's).

Every review action auto-claims an unclaimed (or expired) analysis for the acting reviewer
and refuses with ``ClaimedByOther`` while someone else's claim runs."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from analyses.models import Analysis
from redline_errors import ClaimedByOther
from validation.models import AuditEvent, Policy
from validation.services._shared import (
    OPEN,
    Status,
    audit,
    audit_event,
    lock_analysis,
    require_status,
)


def _claim_holder(analysis: Analysis, now: datetime) -> int | None:
    """The user id holding an unexpired claim, if any."""
    if analysis.claimed_by_id and analysis.claimed_until and analysis.claimed_until > now:
        return int(analysis.claimed_by_id)
    return None


def _claimed_by_other(analysis: Analysis) -> ClaimedByOther:
    name = analysis.claimed_by.get_username() if analysis.claimed_by else "another reviewer"
    until = timezone.localtime(analysis.claimed_until).strftime("%H:%M")
    return ClaimedByOther(f"Claimed by {name} until {until}.")


def claim_for_action(
    analysis: Analysis,
    user: User,
    now: datetime,
    *,
    policy: Policy | None = None,
    lazy: bool = False,
    events: list[AuditEvent] | None = None,
) -> None:
    """Claim (or refresh the claim on) a locked analysis for `user`, saved here.

    `lazy` (the fix review keys): a claim the user holds with more than half of
    Policy.claim_minutes left is not written again, so a reviewer pressing "a" a hundred
    times an hour keeps it alive with one UPDATE every few minutes, not one per key.
    `policy`: the analysis' pipeline's Policy when the caller has read it already.
    `events`: where to put the
    Claimed audit event, unsaved, for the caller to write with its own."""
    holder = _claim_holder(analysis, now)
    if holder is not None and holder != user.pk:
        raise _claimed_by_other(analysis)
    minutes = (policy or Policy.for_pipeline(analysis.pipeline_id)).claim_minutes
    left = analysis.claimed_until - now if analysis.claimed_until else None
    if lazy and holder is not None and left is not None and left > timedelta(minutes=minutes) / 2:
        return
    analysis.claimed_by = user
    analysis.claimed_until = now + timedelta(minutes=minutes)
    analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
    if holder is None:
        data = {"until": analysis.claimed_until.isoformat(), "minutes": minutes}
        event = audit_event(analysis, AuditEvent.Action.CLAIMED, actor=user, data=data)
        if events is None:
            event.save(force_insert=True)
        else:
            events.append(event)


@transaction.atomic
def analysis_claim(*, analysis: Analysis, user: User) -> Analysis:
    """Claim an open analysis for `user` for Policy.claim_minutes (refreshes their own claim)."""
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, OPEN, "be claimed")
    claim_for_action(analysis, user, now)
    return analysis


@transaction.atomic
def analysis_release(*, analysis: Analysis, user: User) -> Analysis:
    """Give up `user`'s claim. Releasing an unclaimed (or expired) analysis changes nothing."""
    now = timezone.now()
    analysis = lock_analysis(analysis)
    holder = _claim_holder(analysis, now)
    if holder is not None and holder != user.pk:
        raise _claimed_by_other(analysis)
    if analysis.claimed_by_id is None:
        return analysis
    analysis.claimed_by = None
    analysis.claimed_until = None
    analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
    if holder is not None:
        audit(analysis, AuditEvent.Action.RELEASED, actor=user)
    return analysis


def analysis_claim_next(*, user: User) -> Analysis | None:
    """Claim the oldest in-review analysis nobody holds (or whose claim expired); None if none.
    The claim lasts its pipeline's policy's claim time.

    On PostgreSQL, rows another reviewer is claiming right now are skipped (SKIP LOCKED); on
    SQLite, which has no row locks, a compare-and-swap on the claim columns decides who wins.
    """
    now = timezone.now()
    free = Q(claimed_by__isnull=True) | Q(claimed_until__lte=now)
    queue = Analysis.objects.filter(free, status=Status.IN_REVIEW).order_by("created_at", "id")
    minutes_of: dict[int, int] = {}

    def claim_minutes(pipeline_id: int) -> int:
        if pipeline_id not in minutes_of:
            minutes_of[pipeline_id] = Policy.for_pipeline(pipeline_id).claim_minutes
        return minutes_of[pipeline_id]

    with transaction.atomic():
        if connection.features.has_select_for_update_skip_locked:
            analysis = queue.select_for_update(skip_locked=True).first()
            if analysis is None:
                return None
            minutes = claim_minutes(analysis.pipeline_id)
            until = now + timedelta(minutes=minutes)
            analysis.claimed_by = user
            analysis.claimed_until = until
            analysis.save(update_fields=["claimed_by", "claimed_until", "updated_at"])
        else:
            analysis = None
            for pk, pipeline_id in queue.values_list("pk", "pipeline_id")[:20]:
                minutes = claim_minutes(pipeline_id)
                until = now + timedelta(minutes=minutes)
                # Compare-and-swap: only still-free rows are taken; 0 rows means someone won.
                taken = Analysis.objects.filter(free, pk=pk, status=Status.IN_REVIEW).update(
                    claimed_by=user, claimed_until=until, updated_at=now
                )
                if taken == 1:
                    analysis = Analysis.objects.get(pk=pk)
                    break
            if analysis is None:
                return None
        audit(
            analysis,
            AuditEvent.Action.CLAIMED,
            actor=user,
            data={"until": until.isoformat(), "minutes": minutes, "next": True},
        )
        return analysis
