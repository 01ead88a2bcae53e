"""Graceful degradation of the API (issue 19): a rate cache that is down leaves the API
serving with a per-process limit; a database that is down is a JSON 503 with Retry-After;
a broker that is down does not undo a committed ingest (201), whose validation is sent as
soon as the broker is back; anything unforeseen is a JSON 500, never an HTML page.

These run in process; tests/integration/test_outages.py stops real PostgreSQL and Redis
servers under gunicorn and a real worker."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown
from pytest_django import Settings

from analyses.models import Analysis
from tests.support.net import closed_port, redis_cache_at
from validation.models import Attempt, Policy
from validation.services import jobs

pytestmark = pytest.mark.django_db


def test_a_rate_cache_that_is_down_leaves_the_api_serving_with_a_per_process_limit(
    writer: Any, bundle: Any, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CACHES = redis_cache_at(closed_port())  # a real Redis address nobody answers
    policy = Policy.load()
    policy.api_rate_per_minute = 3
    policy.save()

    with caplog.at_level(logging.WARNING, logger="validation.services.rates"):
        created = writer.post("/analyses", bundle)
        listed = writer.get("/analyses")
        third = writer.get(f"/analyses/{created.json()['id']}")
        over = writer.get("/analyses")

    assert (created.status_code, listed.status_code, third.status_code) == (201, 200, 200)
    assert over.status_code == 429  # the same limit, counted by this process alone
    assert "rate cache (REDLINE_CACHE_URL) is unreachable" in caplog.text


def test_a_database_that_is_down_is_a_json_503_with_retry_after(
    writer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from validation import services

    def database_down(raw: str) -> None:
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setattr(services, "api_token_authenticate", database_down)
    response = writer.get("/analyses")

    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert response["Retry-After"] == "5"
    assert response.json()["message"] == (
        "The database is unavailable; try again in a few seconds."
    )


def test_an_unforeseen_error_is_a_json_500(writer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from validation.api import exports

    def bug(**kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(exports, "analyses_page", bug)
    response = writer.get("/analyses")

    assert response.status_code == 500
    assert response.json() == {"message": "Internal error; it was logged.", "field": None}


class RefusingBroker:
    """Stands in for the broker's publish: refuses while `down`, records what it takes."""

    def __init__(self) -> None:
        self.down = True
        self.sent: list[int] = []

    def __call__(self, revision_id: int) -> None:
        if self.down:
            raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.sent.append(revision_id)


def test_an_ingest_the_broker_refused_is_acknowledged_and_sent_once_it_is_back(
    writer: Any,
    bundle: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    broker = RefusingBroker()
    monkeypatch.setattr(jobs, "_publish", broker)
    monkeypatch.setattr(jobs, "RESEND_INTERVAL", 0.05)

    with django_capture_on_commit_callbacks(execute=True):
        response = writer.post("/analyses", bundle)

    assert response.status_code == 201  # committed: acknowledged, not a 500 to retry
    analysis = Analysis.objects.get(pk=response.json()["id"])
    attempt = Attempt.objects.get(analysis=analysis)
    assert attempt.status == "queued"
    assert attempt.lease_expires_at is not None and attempt.lease_expires_at <= timezone.now()
    assert attempt.revision_id in jobs._UNSENT.pending()

    broker.down = False  # back: sent within a resend interval, not a lease later
    deadline = time.monotonic() + 5
    while jobs._UNSENT.pending() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert broker.sent == [attempt.revision_id]
    assert not jobs._UNSENT.pending()


def test_a_due_attempt_is_re_sent_by_the_next_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    # Should the process that took the ingest die before the broker is back.
    from tests.support.review_data import analysis_in_review

    analysis = analysis_in_review(status="validating", attempt_status="queued")
    attempt = Attempt.objects.get(analysis=analysis)
    jobs._mark_due(attempt.revision_id)

    assert jobs.sweep_stale_attempts() == [attempt.revision_id]
