"""Claims: a reviewer holds an analysis for Policy.claim_minutes; others are refused until it
expires; "next" hands out the oldest analysis nobody holds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from analyses.models import Analysis
from redline_errors import ClaimedByOther, IllegalTransition
from tests.support.review_data import add_fix, analysis_in_review
from validation import services
from validation.models import AuditEvent, Policy

pytestmark = pytest.mark.django_db


def test_a_claim_lasts_the_policys_claim_minutes(reviewer: User) -> None:
    Policy.objects.filter(pk=1).update(claim_minutes=45)
    analysis = analysis_in_review()
    before = timezone.now()

    claimed = services.analysis_claim(analysis=analysis, user=reviewer)

    assert claimed.claimed_by == reviewer
    assert claimed.claimed_until is not None
    assert before + timedelta(minutes=45) <= claimed.claimed_until
    assert claimed.claimed_until <= timezone.now() + timedelta(minutes=45)
    assert AuditEvent.objects.get(analysis=analysis).action == "claimed"


def test_claiming_again_refreshes_the_own_claim_without_a_second_audit_event(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    first = services.analysis_claim(analysis=analysis, user=reviewer).claimed_until
    Analysis.objects.filter(pk=analysis.pk).update(claimed_until=timezone.now() + timedelta(1))

    again = services.analysis_claim(analysis=analysis, user=reviewer)

    assert again.claimed_until is not None and first is not None
    assert again.claimed_until < timezone.now() + timedelta(hours=1)
    assert AuditEvent.objects.filter(analysis=analysis, action="claimed").count() == 1


def test_another_reviewers_unexpired_claim_is_refused_with_who_and_until_when(
    reviewer: User, other_reviewer: User
) -> None:
    analysis = analysis_in_review()
    held = services.analysis_claim(analysis=analysis, user=other_reviewer)
    until = timezone.localtime(held.claimed_until).strftime("%H:%M")

    with pytest.raises(ClaimedByOther) as error:
        services.analysis_claim(analysis=analysis, user=reviewer)

    assert str(error.value) == f"Claimed by sam until {until}."
    analysis.refresh_from_db()
    assert analysis.claimed_by == other_reviewer


def test_an_expired_claim_can_be_taken_over(reviewer: User, other_reviewer: User) -> None:
    analysis = analysis_in_review(
        claimed_by=other_reviewer, claimed_until=timezone.now() - timedelta(seconds=1)
    )

    claimed = services.analysis_claim(analysis=analysis, user=reviewer)

    assert claimed.claimed_by == reviewer


def test_review_actions_auto_claim_and_are_refused_under_someone_elses_claim(
    reviewer: User, other_reviewer: User
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_accept(fix=fix, user=other_reviewer)

    with pytest.raises(ClaimedByOther, match="Claimed by sam"):
        services.fix_undo(fix=fix, user=reviewer)
    with pytest.raises(ClaimedByOther):
        services.analysis_reject(analysis=analysis, user=reviewer, comment="Wrong company.")

    fix.refresh_from_db()
    assert fix.status == "accepted"


def test_release_gives_up_the_own_claim(reviewer: User) -> None:
    analysis = analysis_in_review()
    services.analysis_claim(analysis=analysis, user=reviewer)

    released = services.analysis_release(analysis=analysis, user=reviewer)

    assert (released.claimed_by, released.claimed_until) == (None, None)
    assert list(AuditEvent.objects.values_list("action", flat=True)) == ["claimed", "released"]


def test_nobody_can_release_someone_elses_claim(reviewer: User, other_reviewer: User) -> None:
    analysis = analysis_in_review()
    services.analysis_claim(analysis=analysis, user=other_reviewer)

    with pytest.raises(ClaimedByOther):
        services.analysis_release(analysis=analysis, user=reviewer)


def test_releasing_an_unclaimed_analysis_changes_nothing(reviewer: User) -> None:
    analysis = analysis_in_review()

    services.analysis_release(analysis=analysis, user=reviewer)

    assert not AuditEvent.objects.exists()


def test_a_closed_analysis_cannot_be_claimed(reviewer: User) -> None:
    analysis = analysis_in_review(status=Analysis.Status.FAILED)

    with pytest.raises(
        IllegalTransition,
        match=r"Only an open analysis \(validating or in review\) can be claimed "
        r"\(this one is failed\)\.",
    ):
        services.analysis_claim(analysis=analysis, user=reviewer)


def test_claim_next_takes_the_oldest_in_review_analysis_nobody_holds(
    reviewer: User, other_reviewer: User
) -> None:
    now = timezone.now()
    held = analysis_in_review(claimed_by=other_reviewer, claimed_until=now + timedelta(hours=1))
    analysis_in_review(status=Analysis.Status.VALIDATING)
    oldest_free = analysis_in_review()
    analysis_in_review()
    # created_at is auto_now_add: make the order explicit.
    for offset, analysis in enumerate([held, oldest_free]):
        Analysis.objects.filter(pk=analysis.pk).update(created_at=now - timedelta(days=9 - offset))

    claimed = services.analysis_claim_next(user=reviewer)

    assert claimed is not None
    assert claimed.pk == oldest_free.pk
    assert claimed.claimed_by == reviewer
    event = AuditEvent.objects.get(action="claimed")
    assert (event.analysis_id, event.actor, event.data["next"]) == (oldest_free.pk, reviewer, True)


def test_claim_next_takes_an_expired_claim(reviewer: User, other_reviewer: User) -> None:
    expired = analysis_in_review(
        claimed_by=other_reviewer, claimed_until=timezone.now() - timedelta(minutes=1)
    )

    claimed = services.analysis_claim_next(user=reviewer)

    assert claimed is not None and claimed.pk == expired.pk
    assert claimed.claimed_by == reviewer


def test_claim_next_returns_none_when_every_analysis_is_held_or_closed(
    reviewer: User, other_reviewer: User
) -> None:
    analysis_in_review(claimed_by=other_reviewer, claimed_until=timezone.now() + timedelta(1))
    analysis_in_review(status=Analysis.Status.APPROVED)

    assert services.analysis_claim_next(user=reviewer) is None
    assert not AuditEvent.objects.exists()


def test_two_reviewers_asking_for_next_get_different_analyses(
    reviewer: User, other_reviewer: User
) -> None:
    first = analysis_in_review()
    second = analysis_in_review()

    a = services.analysis_claim_next(user=reviewer)
    b = services.analysis_claim_next(user=other_reviewer)

    assert a is not None and b is not None
    assert {a.pk, b.pk} == {first.pk, second.pk}
    assert services.analysis_claim_next(user=reviewer) is None
