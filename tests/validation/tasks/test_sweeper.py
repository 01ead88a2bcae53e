"""The sweeper re-sends validation whose broker message was lost: attempts queued past their
start deadline and attempts running past their lease (their worker died)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from analyses.models import Analysis
from project.celery import app
from tests.support.review_data import analysis_in_review
from validation import services, tasks
from validation.models import Attempt

pytestmark = pytest.mark.django_db

LEASE = timedelta(seconds=settings.REDLINE_ATTEMPT_LEASE_SECONDS)


def _attempt(status: str, **fields: Any) -> Attempt:
    analysis = analysis_in_review(
        status=Analysis.Status.VALIDATING, attempt_status=Attempt.Status.QUEUED
    )
    attempt = Attempt.objects.get(analysis=analysis)
    Attempt.objects.filter(pk=attempt.pk).update(status=status, **fields)
    attempt.refresh_from_db()
    return attempt


def test_the_sweeper_resends_exactly_the_lost_attempts(
    django_capture_on_commit_callbacks: Any,
) -> None:
    now = timezone.now()
    late = _attempt("queued", lease_expires_at=now - timedelta(seconds=1))
    legacy = _attempt("queued", lease_expires_at=None)
    Attempt.objects.filter(pk=legacy.pk).update(queued_at=now - LEASE - timedelta(seconds=1))
    lost = _attempt("running", run_token="dead", lease_expires_at=now - timedelta(seconds=1))
    _attempt("queued", lease_expires_at=now + timedelta(seconds=30))  # waiting its turn
    _attempt("queued", lease_expires_at=None)  # just queued, no deadline yet
    _attempt("running", run_token="alive", lease_expires_at=now + timedelta(seconds=30))
    _attempt("done", decision="APPROVE", lease_expires_at=now - timedelta(hours=1))
    _attempt("errored", lease_expires_at=now - timedelta(hours=1))

    with django_capture_on_commit_callbacks() as callbacks:
        resent = services.sweep_stale_attempts(now=now)

    assert sorted(resent) == sorted([late.revision_id, legacy.revision_id, lost.revision_id])
    assert len(callbacks) == 3  # one validate_revision message each, after commit
    for attempt in (late, legacy, lost):
        attempt.refresh_from_db()
        assert attempt.status == "queued"
        assert attempt.run_token == ""  # the lost run can no longer record anything
        assert attempt.lease_expires_at == now + LEASE


def test_a_resent_attempt_is_not_resent_again_before_its_new_deadline() -> None:
    now = timezone.now()
    _attempt("queued", lease_expires_at=now - timedelta(seconds=1))
    assert len(services.sweep_stale_attempts(now=now)) == 1

    assert services.sweep_stale_attempts(now=now + timedelta(seconds=1)) == []
    assert len(services.sweep_stale_attempts(now=now + LEASE + timedelta(seconds=1))) == 1


def test_enqueuing_sets_the_deadline_the_sweeper_watches() -> None:
    analysis = analysis_in_review()
    revision = services.analysis_submit_draft(analysis=analysis, user=None, body="New draft.\n")

    attempt = Attempt.objects.get(revision=revision)
    assert attempt.lease_expires_at is not None
    assert attempt.lease_expires_at - attempt.queued_at == pytest.approx(LEASE, abs=timedelta(1))


def test_the_sweeper_runs_periodically_under_celery_beat() -> None:
    entry = app.conf.beat_schedule["sweep-stale-attempts"]

    assert (
        entry["task"] == tasks.sweep_stale_attempts.name == "validation.tasks.sweep_stale_attempts"
    )
    assert entry["schedule"] == settings.REDLINE_SWEEP_INTERVAL_SECONDS


def test_a_worker_that_connects_sweeps_at_once(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from project.celery import SweepOnConnect

    # Not the first worker of a new broker run (that re-send: tests/validation/services/
    # test_backlog.py), and no mark left in the Redis CI shares.
    monkeypatch.setattr("project.celery.first_worker_of_this_broker_run", lambda: False)
    lost = _attempt("running", run_token="dead", lease_expires_at=timezone.now() - LEASE)

    # Its consumer starts the step when the worker starts and after every reconnection.
    assert SweepOnConnect in app.steps["consumer"]
    with django_capture_on_commit_callbacks() as callbacks:
        SweepOnConnect(parent=None).start(None)  # eager in tests

    lost.refresh_from_db()
    assert lost.status == "queued"
    assert len(callbacks) == 1
