"""The queue as the attempts table sees it (issue 27): stalled only when queued work has waited
and no worker started any; every queued attempt re-sent once per broker start."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from analyses.models import Analysis
from project.celery import app, first_worker_of_this_broker_run
from tests.support.review_data import analysis_in_review
from tests.support.servers import RedisServer, servers_available
from validation.metrics import render
from validation.models import Attempt
from validation.selectors import queue_state
from validation.services import attempts_resend_queued

pytestmark = pytest.mark.django_db

STALL = timedelta(seconds=settings.REDLINE_QUEUE_STALL_SECONDS)


def _attempt(status: str, **fields: Any) -> Attempt:
    analysis = analysis_in_review(
        status=Analysis.Status.VALIDATING, attempt_status=Attempt.Status.QUEUED
    )
    attempt = Attempt.objects.get(analysis=analysis)
    Attempt.objects.filter(pk=attempt.pk).update(status=status, **fields)
    attempt.refresh_from_db()
    return attempt


def test_an_empty_queue_is_not_stalled() -> None:
    _attempt("done", decision="APPROVE", started_at=timezone.now() - 10 * STALL)

    state = queue_state()

    assert (state.queued, state.stalled) == (0, False)


def test_work_waiting_past_the_window_with_no_start_in_it_is_stalled(client: Client) -> None:
    now = timezone.now()
    _attempt("queued", queued_at=now - 2 * STALL)
    _attempt("done", decision="APPROVE", started_at=now - 3 * STALL)

    state = queue_state(now=now)
    ready = client.get("/readyz")

    assert (state.queued, state.stalled) == (1, True)
    assert state.oldest_wait_seconds == pytest.approx(2 * STALL.total_seconds())
    assert ready.status_code == 200
    assert ready.json()["status"] == "degraded"
    assert ready.json()["checks"]["workers"] == "stalled"
    assert b"redline_queue_stalled 1.0" in render()


def test_a_busy_queue_whose_workers_keep_starting_attempts_is_not_stalled(
    client: Client,
) -> None:
    now = timezone.now()
    _attempt("queued", queued_at=now - 2 * STALL)
    _attempt("running", started_at=now - STALL / 2)

    assert queue_state(now=now).stalled is False
    assert client.get("/readyz").json()["checks"]["workers"] == "ok"
    assert b"redline_queue_stalled 0.0" in render()


def test_fresh_work_is_not_stalled_yet() -> None:
    now = timezone.now()
    _attempt("queued", queued_at=now - STALL / 2)

    assert queue_state(now=now).stalled is False


def test_every_queued_attempt_is_sent_again_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[int] = []
    monkeypatch.setattr("validation.services.backlog.send_validation", sent.append)
    queued = [_attempt("queued"), _attempt("queued")]
    _attempt("running", started_at=timezone.now())
    _attempt("done", decision="APPROVE")

    resent = attempts_resend_queued()

    assert sorted(resent) == sorted(sent) == sorted(a.revision_id for a in queued)


@pytest.fixture
def private_broker(tmp_path: Path) -> Iterator[RedisServer]:
    missing = servers_available()
    if missing:
        pytest.skip(missing)
    redis = RedisServer(tmp_path)
    redis.start()
    saved = app.conf.broker_write_url
    app.conf.broker_write_url = redis.url(0)  # type: ignore[misc]  # the stubs say read-only
    try:
        yield redis
    finally:
        app.conf.broker_write_url = saved  # type: ignore[misc]
        redis.stop()


def test_the_first_worker_to_reach_a_restarted_redis_is_told_so_once(
    private_broker: RedisServer,
) -> None:
    first = first_worker_of_this_broker_run()
    second = first_worker_of_this_broker_run()
    private_broker.stop()
    private_broker.start()  # a new run of the server, empty
    after_restart = first_worker_of_this_broker_run()

    assert (first, second, after_restart) == (True, False, True)


def test_other_brokers_are_never_taken_for_a_restarted_redis() -> None:
    saved = app.conf.broker_write_url
    app.conf.broker_write_url = "filesystem://"  # type: ignore[misc]  # the stubs say read-only
    try:
        assert first_worker_of_this_broker_run() is False
    finally:
        app.conf.broker_write_url = saved  # type: ignore[misc]
