"""/healthz, /readyz and /metrics: unauthenticated (no login redirect), no data, guarded metrics."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from pytest_django import Settings

from tests.support.net import closed_port, redis_cache_at
from tests.support.review_data import add_fix, analysis_in_review

pytestmark = pytest.mark.django_db


def test_healthz_is_up_without_login(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_names_the_state_of_every_dependency(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "broker": "ok", "rate_cache": "local", "workers": "ok"},
    }


def test_a_broker_that_is_down_degrades_the_host_but_it_still_serves(client: Client) -> None:
    from project.celery import app

    saved = app.conf.broker_write_url
    app.conf.broker_write_url = f"redis://127.0.0.1:{closed_port()}/0"  # type: ignore[misc]
    try:
        response = client.get("/readyz")
    finally:
        app.conf.broker_write_url = saved  # type: ignore[misc]  # the stubs say read-only
    assert response.status_code == 200
    assert response.json() == {
        "status": "degraded",
        "checks": {"database": "ok", "broker": "down", "rate_cache": "local", "workers": "ok"},
    }


def test_a_rate_cache_that_is_down_degrades_the_host(client: Client, settings: Settings) -> None:
    settings.CACHES = redis_cache_at(closed_port())
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["rate_cache"] == "down"


def test_readyz_is_503_when_the_database_is_down(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real outage (PostgreSQL stopped) is tests/integration/test_outages.py.
    from project import ops

    monkeypatch.setattr(ops, "_database_ok", lambda: False)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["checks"]["database"] == "down"


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_health_endpoints_answer_plain_http_when_https_is_on(
    client: Client, settings: Settings, path: Any
) -> None:
    settings.SECURE_SSL_REDIRECT = True
    assert client.get(path).status_code == 200  # a load balancer's probe, not a 301
    assert client.get("/accounts/login/").status_code == 301


def test_metrics_from_an_allowed_address(client: Client, settings: Settings) -> None:
    settings.REDLINE_METRICS_ALLOW = ["127.0.0.1/32"]
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


def test_metrics_refuse_other_addresses_without_the_token(
    client: Client, settings: Settings
) -> None:
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


def test_metrics_are_closed_by_default_even_to_loopback(client: Client) -> None:
    # Behind a proxy on the same host every request comes from 127.0.0.1.
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403


def test_a_forwarded_request_is_never_let_in_by_its_address(
    client: Client, settings: Settings
) -> None:
    settings.REDLINE_METRICS_ALLOW = ["127.0.0.1/32"]
    settings.REDLINE_METRICS_TOKEN = "s3cret"
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        proxied = client.get("/metrics", REMOTE_ADDR="127.0.0.1", headers={header: "203.0.113.9"})
        assert proxied.status_code == 403, header
    with_token = client.get(
        "/metrics",
        REMOTE_ADDR="127.0.0.1",
        headers={"X-Forwarded-For": "203.0.113.9", "Authorization": "Bearer s3cret"},
    )
    assert with_token.status_code == 200
