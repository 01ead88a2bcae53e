"""Pipelines, policies and webhooks on the real thing: reports POSTed to a live HTTP server
with each pipeline's token, validated by a real Celery worker, events delivered by a second
worker (the webhook queue's own) to a loopback receiver, a worker killed mid-delivery.

Loopback receivers are allowed through REDLINE_WEBHOOK_ALLOWED_HOSTS, as an operator
would list an internal host."""

from __future__ import annotations

import copy
import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings

from analyses.models import Analysis, Pipeline
from tests.support.bundles import BUNDLE
from tests.support.receiver import Receiver, signature_verifies, webhook_receiver
from tests.support.worker import Worker, purge_queue, wait_until
from validation.models import Attempt, WebhookDelivery, WebhookEndpoint
from validation.services import (
    analysis_sign_off,
    api_token_create,
    pipeline_create,
    policy_set,
)
from validation.services.webhooks import webhook_endpoint_add

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WAIT = 90.0
TIMEOUT_SECONDS = 2  # a webhook try's timeout in these workers


@pytest.fixture
def webhook_queue(worker_queue: str) -> Iterator[str]:
    queue = f"{worker_queue}-webhooks"
    with override_settings(
        REDLINE_WEBHOOK_QUEUE=queue, REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]
    ):
        yield queue
    purge_queue(queue)


@pytest.fixture
def workers(
    start_workers: Callable[..., Worker], worker_queue: str, webhook_queue: str
) -> Callable[..., Worker]:
    """Start a validation worker (with the beat that sweeps every 2 s) or a webhook worker."""
    env = {
        "REDLINE_WEBHOOK_QUEUE": webhook_queue,
        "REDLINE_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
        "REDLINE_WEBHOOK_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
        "REDLINE_WEBHOOK_RETRY_SECONDS": "1",
    }

    def start(kind: str) -> Worker:
        if kind == "webhooks":
            return start_workers(consume=[webhook_queue], beat=False, extra_env=env)
        return start_workers(sweep_seconds=2, extra_env=env)

    return start


def _post(url: str, token: str, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(data).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status, json.loads(answer.read())


def _uncited(external_id: str) -> dict[str, Any]:
    data = copy.deepcopy(BUNDLE)
    data["body"] = data["body"].replace(" [gurufocus]", "")
    data["external_id"] = external_id
    return data


def _token(pipeline: Pipeline) -> str:
    from tests.factories import UserFactory

    user = UserFactory.create(username=f"agent-{pipeline.slug}")
    return api_token_create(user=user, scope="write", pipeline=pipeline)[1]


def _validated(analysis_id: int, workers: list[Worker]) -> Attempt:
    def done() -> Attempt | None:
        attempt = Attempt.objects.filter(analysis_id=analysis_id, status="done").first()
        analysis = Analysis.objects.get(pk=analysis_id)
        return attempt if attempt and analysis.status != "validating" else None

    return wait_until(done, timeout=WAIT, what=f"analysis {analysis_id}", workers=workers)


def _events_settle(receiver: Receiver, count: int, workers: list[Worker]) -> list[str]:
    wait_until(
        lambda: len(receiver.received) >= count,
        timeout=WAIT,
        what=f"{count} webhook requests",
        workers=workers,
    )
    time.sleep(3)  # a repeat would arrive within a sweep or two
    return [event["type"] for event in receiver.events()]


def test_two_pipelines_judge_alike_bundles_by_their_policies_and_hear_each_change_once(
    live_server: Any, workers: Callable[..., Worker], reviewer: User
) -> None:
    validation, delivery = workers("validation"), workers("webhooks")
    running = [validation, delivery]
    thesis, summaries = pipeline_create(slug="thesis"), pipeline_create(slug="summaries")
    policy_set(pipeline=thesis, assignments=["citations=claims"])
    policy_set(pipeline=summaries, assignments=["citations=none"])
    with webhook_receiver() as receiver:
        endpoint, secret = webhook_endpoint_add(pipeline=thesis, url=receiver.url)
        url = f"{live_server.url}/api/v1/analyses"
        status, strict = _post(url, _token(thesis), _uncited("run-1"))
        assert status == 201 and strict["pipeline"] == "thesis"
        _, lenient = _post(url, _token(summaries), _uncited("run-1"))

        strict_attempt = _validated(strict["id"], running)
        lenient_attempt = _validated(lenient["id"], running)
        assert strict_attempt.decision == "REVISE"
        assert lenient_attempt.decision == "APPROVE"
        assert strict_attempt.policy_settings["citations"] == "claims"
        assert lenient_attempt.policy_settings["citations"] == "none"

        types = _events_settle(receiver, 2, running)
        assert types == ["analysis.validated", "analysis.in_review"]
        assert receiver.events()[0]["data"]["failed_checks"] == ["source_metadata_present"]

        analysis_sign_off(
            analysis=Analysis.objects.get(pk=strict["id"]),
            user=reviewer,
            comment="Sources are named in the evidence.",
        )
        types = _events_settle(receiver, 3, running)

    assert types == ["analysis.validated", "analysis.in_review", "analysis.approved"]
    approved = receiver.events()[-1]
    assert approved["data"]["export_url"] == f"/api/v1/analyses/{strict['id']}/export"
    for item in receiver.received:
        assert signature_verifies(secret, item.headers["Redline-Signature"], item.body)
    assert WebhookDelivery.objects.filter(endpoint=endpoint, status="delivered").count() == 3


def test_a_receiver_that_answers_500_then_200_gets_the_event_again(
    live_server: Any, workers: Callable[..., Worker]
) -> None:
    running = [workers("validation"), workers("webhooks")]
    thesis = pipeline_create(slug="thesis")
    with webhook_receiver(script=[500, 200]) as receiver:
        webhook_endpoint_add(pipeline=thesis, url=receiver.url, events=["analysis.in_review"])
        _post(f"{live_server.url}/api/v1/analyses", _token(thesis), _uncited("run-1"))
        delivery = wait_until(
            lambda: WebhookDelivery.objects.filter(status="delivered").first(),
            timeout=WAIT,
            what="the delivery",
            workers=running,
        )

    assert [(t.number, t.status_code) for t in delivery.tries.all()] == [(1, 500), (2, 200)]
    first, second = receiver.received
    assert first.event["id"] == second.event["id"]
    log = running[1].log()
    assert "try 1: answered 500" in log and "try 2: delivered (200)" in log


def test_a_hanging_receiver_delays_no_validation(
    live_server: Any, workers: Callable[..., Worker]
) -> None:
    running = [workers("validation"), workers("webhooks")]
    thesis = pipeline_create(slug="thesis")
    with webhook_receiver(script=["hang"], hang_seconds=60) as receiver:
        webhook_endpoint_add(pipeline=thesis, url=receiver.url)
        token = _token(thesis)
        ids = [
            _post(f"{live_server.url}/api/v1/analyses", token, _uncited(f"run-{n}"))[1]["id"]
            for n in range(4)
        ]
        for analysis_id in ids:
            _validated(analysis_id, running)
        # Every analysis was validated while its receiver still held the first request.
        assert receiver.received and not WebhookDelivery.objects.filter(status="delivered").exists()
        wait_until(
            lambda: WebhookDelivery.objects.filter(last_error__contains="timed out").exists(),
            timeout=WAIT,
            what="a try to time out",
            workers=running,
        )


def test_a_worker_killed_during_a_delivery_leads_to_a_delivery_after_restart(
    live_server: Any, workers: Callable[..., Worker]
) -> None:
    validation = workers("validation")
    doomed = workers("webhooks")
    thesis = pipeline_create(slug="thesis")
    with webhook_receiver(script=["hang", 200], hang_seconds=60) as receiver:
        webhook_endpoint_add(pipeline=thesis, url=receiver.url, events=["analysis.in_review"])
        _post(f"{live_server.url}/api/v1/analyses", _token(thesis), _uncited("run-1"))
        wait_until(lambda: receiver.received, timeout=WAIT, what="the first try", workers=[doomed])
        doomed.kill()  # kill -9 while its POST waits for an answer
        assert WebhookDelivery.objects.get().status == "pending"

        again = workers("webhooks")
        delivery = wait_until(
            lambda: WebhookDelivery.objects.filter(status="delivered").first(),
            timeout=WAIT,
            what="the delivery after the restart",
            workers=[validation, again],
        )

    assert delivery.attempts == 2 and len(receiver.received) == 2
    assert receiver.received[0].body == receiver.received[1].body


def test_a_metadata_url_is_refused_at_delivery_and_nothing_is_sent(
    live_server: Any, workers: Callable[..., Worker]
) -> None:
    running = [workers("validation"), workers("webhooks")]
    thesis = pipeline_create(slug="thesis")
    # A row written past the service (an old row, a hand-made one): the worker checks again.
    WebhookEndpoint.objects.create(
        pipeline=thesis, url="http://169.254.169.254/latest/meta-data/", secret="whsec_x"
    )
    _post(f"{live_server.url}/api/v1/analyses", _token(thesis), _uncited("run-1"))

    delivery = wait_until(
        lambda: WebhookDelivery.objects.filter(attempts__gte=1, run_token="").first(),
        timeout=WAIT,
        what="a refused try",
        workers=running,
    )
    assert delivery.status == "pending" and delivery.last_status_code is None
    assert "metadata" in delivery.last_error or "link-local" in delivery.last_error
    assert settings.REDLINE_WEBHOOK_ALLOWED_HOSTS == ["127.0.0.1"]
