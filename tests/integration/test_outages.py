"""Outages (issue 19), on the production stack: gunicorn, a real Celery worker on Redis, and
PostgreSQL — servers of this test's own on free ports (tests/support/servers.py), so that it
can stop the broker, the rate cache and the database in turn. Never the machine's.

While one is down, every API answer is a success or a JSON 503 (never an HTML 500),
/readyz names the dependency that is down (and answers 503 only while the database is),
an ingest whose analysis committed is acknowledged (201), and once everything is back every
acknowledged analysis is validated — an ingest the broker refused within seconds, not a
lease (here 300 s) later.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from tests.support.servers import PostgresServer, RedisServer, servers_available
from tests.support.stack import BIN, BUNDLE, Answer, Stack, request
from tests.support.worker import wait_until

T = TypeVar("T")

pytestmark = pytest.mark.integration

LEASE_SECONDS = 300  # and the sweeper's interval: only the immediate re-send can beat them


def _until(predicate: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    return wait_until(predicate, what=what, timeout=timeout)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    missing = servers_available()
    if missing:
        pytest.skip(missing)
    directory = tmp_path_factory.mktemp("outages")
    database = PostgresServer()
    broker, cache = RedisServer(directory), RedisServer(directory)
    running = Stack(
        directory=directory,
        database=database,
        broker=broker,
        cache=cache,
        lease_seconds=LEASE_SECONDS,
    )
    try:
        database.init()
        database.start()
        database.create_database("redline")
        broker.start()
        cache.start()
        running.manage("migrate", "--noinput")
        running.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User; User.objects.create_user('pipeline')",
        )
        running.token = running.manage("api_token", "create", "pipeline", "--scope", "write")
        running.spawn(
            "web", str(BIN / "gunicorn"), "-c", "python:project.gunicorn_conf", "project.wsgi"
        )
        running.spawn(
            "worker",
            str(BIN / "celery"),
            "-A",
            "project",
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            "-Q",
            running.queue,
            "--loglevel=INFO",
            # Remote control stays on, as in production: its subscription is the socket on
            # which an idle worker notices a Redis restart (a worker whose one prefetch slot
            # holds a message it could not ack would otherwise never read the broker again).
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
            # Each validation takes a second, so the broker can be stopped under a running
            # one, whose acknowledgement then fails (acks_late).
            env={"REDLINE_TASK_DEBUG_DELAY_SECONDS": "1"},
        )
        _until(running.up, "gunicorn to answer /readyz")
        _until(lambda: " ready." in running.log("worker"), "the worker to be ready")
        yield running
    finally:
        running.stop()
        broker.stop()
        cache.stop()
        try:
            database.stop()
        finally:
            database.remove()


def _json(response: Answer) -> Any:
    assert response.headers["content-type"].startswith("application/json"), response.text[:500]
    return response.json()


def test_a_chunked_body_is_read_by_gunicorn_within_the_limit(stack: Stack) -> None:
    body = json.dumps({**BUNDLE, "title": "chunked"}).encode()

    headers = {"Authorization": f"Bearer {stack.token}", "Content-Type": "application/json"}
    # An iterator body goes out with Transfer-Encoding: chunked and no Content-Length.
    response = request(
        stack.web_port,
        "POST",
        "/api/v1/analyses",
        body=iter([body[:40], body[40:]]),
        headers=headers,
    )
    too_big = request(
        stack.web_port,
        "POST",
        "/api/v1/analyses",
        body=iter([b" " * 4_000_000] * 2),
        headers=headers,
    )

    assert response.status_code == 201, response.text
    stack.acknowledged.append(response.json()["id"])
    assert too_big.status_code == 413
    assert "limit" in _json(too_big)["message"]


def test_outages_answer_json_and_lose_no_acknowledged_analysis(stack: Stack) -> None:
    assert _json(stack.ready()) == {
        "status": "ok",
        "checks": {"database": "ok", "broker": "ok", "rate_cache": "ok", "workers": "ok"},
    }
    assert stack.ingest("before").status_code == 201
    running = stack.acknowledged[-1]
    _until(lambda: stack.attempt_status(running) == "running", "a validation to be running")

    # The broker, stopped under a running validation: ingest is acknowledged, and validated
    # as soon as the broker is back.
    stack.broker.stop()
    ready = stack.ready()
    assert (ready.status_code, _json(ready)["status"]) == (200, "degraded")
    assert _json(ready)["checks"]["broker"] == "down"
    refused = [stack.ingest(f"broker down {n}") for n in range(3)]
    assert [r.status_code for r in refused] == [201, 201, 201]
    assert stack.call("GET", "/api/v1/analyses").status_code == 200
    during = stack.acknowledged[-3:]
    stack.broker.start()
    back = time.monotonic()
    _until(lambda: all(stack.validated(pk) for pk in during), "validation after the broker")
    recovery = time.monotonic() - back
    print(f"validated {recovery:.1f} s after the broker came back (lease {LEASE_SECONDS} s)")
    assert recovery < LEASE_SECONDS / 5
    assert "it is sent again as soon as the broker is back" in stack.log("web")

    # The rate cache: each process counts on its own and says so; the API keeps serving.
    stack.cache.stop()
    ready = stack.ready()
    assert (ready.status_code, _json(ready)["checks"]["rate_cache"]) == (200, "down")
    assert stack.ingest("cache down").status_code == 201
    assert stack.call("GET", "/api/v1/analyses").status_code == 200
    assert "rate cache (REDLINE_CACHE_URL) is unreachable" in stack.log("web")
    stack.cache.start()
    _until(lambda: _json(stack.ready())["checks"]["rate_cache"] == "ok", "the cache")

    # The database, stopped under a running validation: nothing can be served, and every
    # answer says so in JSON, with Retry-After; the run hands its attempt back once it can.
    assert stack.ingest("database stops").status_code == 201
    running = stack.acknowledged[-1]
    _until(lambda: stack.attempt_status(running) == "running", "a validation to be running")
    stack.database.stop()
    ready = stack.ready()
    assert ready.status_code == 503
    assert _json(ready) == {
        "status": "unavailable",
        "checks": {"database": "down", "broker": "ok", "rate_cache": "ok", "workers": "unknown"},
    }
    for response in (
        stack.call("GET", "/api/v1/analyses"),
        stack.call("GET", f"/api/v1/analyses/{stack.acknowledged[0]}"),
        stack.ingest("database down"),
    ):
        assert response.status_code == 503
        assert _json(response)["message"].startswith("The database is unavailable")
        assert response.headers["retry-after"] == "5"
    stack.database.start()
    _until(lambda: stack.ready().status_code == 200, "the database")

    assert stack.ingest("after").status_code == 201
    _until(
        lambda: all(stack.validated(pk) for pk in stack.acknowledged),
        "every acknowledged analysis to be validated",
    )
    for pk in stack.acknowledged:
        attempts = stack.call("GET", f"/api/v1/analyses/{pk}").json()["attempts"]
        assert [a["status"] for a in attempts] == ["done"], (pk, attempts)
