"""/healthz, /readyz and /metrics: unauthenticated (no login redirect), no data, guarded metrics."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.review_data import add_fix, analysis_in_review

pytestmark = pytest.mark.django_db


def test_healthz_is_up_without_login(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_checks_database_and_broker(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "broker": "ok"}


def test_readyz_is_503_when_the_broker_is_down(client: Client, settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from project import ops

    monkeypatch.setattr(ops, "_broker_ok", lambda: False)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "down"


def test_metrics_from_an_allowed_address(client: Client) -> None:
    analysis = analysis_in_review(decision="REVISE")
    add_fix(analysis, "$15.8B", "$14.8B")
    client.get("/api/v1/analyses")  # a 401, counted
    text = client.get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    assert 'redline_attempts_total{decision="REVISE",status="done"} 1.0' in text
    assert 'redline_fixes_total{origin="deterministic",status="proposed"} 1.0' in text
    assert "redline_queue_depth 0.0" in text
    assert "redline_queue_oldest_age_seconds" in text
    assert 'redline_api_requests_total{method="GET",status="401"}' in text
    assert "redline_attempt_duration_seconds_bucket" in text
    assert "redline_llm_calls" in text


def test_metrics_refuse_other_addresses_without_the_token(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.REDLINE_METRICS_TOKEN = "s3cret"
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 403
    wrong = client.get("/metrics", REMOTE_ADDR="10.1.2.3", headers={"Authorization": "Bearer x"})
    assert wrong.status_code == 403
    right = client.get(
        "/metrics", REMOTE_ADDR="10.1.2.3", headers={"Authorization": "Bearer s3cret"}
    )
    assert right.status_code == 200
    settings.REDLINE_METRICS_ALLOW = ["10.0.0.0/8"]
    settings.REDLINE_METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
