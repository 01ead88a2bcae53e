"""Webhooks, against a real loopback HTTP receiver: signed deliveries of each state change,
retries that are recorded, rotation, the outbound rule, the sweeper.

Tasks are eager here: a delivery runs in the test process once the transaction commits.
tests/integration/test_webhooks_worker.py runs the same against a real worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from analyses.models import Analysis
from redline_errors import InvalidInput
from tests.support.bundles import BUNDLE
from tests.support.receiver import Receiver, signature_verifies, webhook_receiver
from validation.models import WebhookDelivery, WebhookEndpoint
from validation.services import (
    analysis_reject,
    analysis_sign_off,
    analysis_submit,
    pipeline_create,
)
from validation.services.webhooks import (
    sweep_webhook_deliveries,
    webhook_deliver,
    webhook_endpoint_add,
    webhook_redeliver,
    webhook_secret_rotate,
)

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with (
        webhook_receiver() as server,
        override_settings(REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]),
    ):
        yield server


def _endpoint(url: str, events: list[str] | None = None) -> tuple[WebhookEndpoint, str]:
    pipeline = pipeline_create(slug="thesis")
    return webhook_endpoint_add(pipeline=pipeline, url=url, events=events or [])


def test_each_state_change_is_one_signed_event(
    receiver: Receiver, reviewer: User, django_capture_on_commit_callbacks: Capture
) -> None:
    endpoint, secret = _endpoint(receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline).analysis
    with django_capture_on_commit_callbacks(execute=True):
        analysis_sign_off(analysis=Analysis.objects.get(pk=analysis.pk), user=reviewer)

    events = receiver.events()
    assert [event["type"] for event in events] == [
        "analysis.validated",
        "analysis.in_review",
        "analysis.approved",
    ]
    validated, _, approved = events
    assert validated["data"]["decision"] == "APPROVE"
    assert validated["data"]["confidence"] == 1.0
    assert validated["data"]["failed_checks"] == []
    assert approved["data"]["export_url"] == f"/api/v1/analyses/{analysis.pk}/export"
    assert approved["data"]["analysis"]["status"] == "approved"
    assert {event["pipeline"] for event in events} == {"thesis"}
    assert len({event["id"] for event in events}) == 3
    for item in receiver.received:
        assert signature_verifies(secret, item.headers["Redline-Signature"], item.body)
        assert not signature_verifies("whsec_other", item.headers["Redline-Signature"], item.body)
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_an_endpoint_hears_only_its_events(
    receiver: Receiver, reviewer: User, django_capture_on_commit_callbacks: Capture
) -> None:
    endpoint, _ = _endpoint(receiver.url, events=["analysis.rejected"])
    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline).analysis
    with django_capture_on_commit_callbacks(execute=True):
        analysis_reject(analysis=analysis, user=reviewer, comment="Wrong company.")

    assert [event["type"] for event in receiver.events()] == ["analysis.rejected"]
    assert receiver.events()[0]["data"]["comment"] == "Wrong company."


def test_another_pipelines_analyses_are_never_sent(
    receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    _endpoint(receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        analysis_submit(data=BUNDLE, submitter=None)  # the default pipeline

    assert receiver.received == []
    assert not WebhookDelivery.objects.exists()


def test_a_failed_try_is_recorded_and_tried_again_with_the_same_event(
    reviewer: User, django_capture_on_commit_callbacks: Capture
) -> None:
    with (
        webhook_receiver(script=[500, 200]) as receiver,
        override_settings(REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]),
    ):
        endpoint, secret = _endpoint(receiver.url, events=["analysis.in_review"])
        with django_capture_on_commit_callbacks(execute=True):
            analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)
        delivery = WebhookDelivery.objects.get()
        assert delivery.status == "pending" and delivery.attempts == 1
        assert delivery.last_status_code == 500 and delivery.last_error == "answered 500"
        assert delivery.next_attempt_at > timezone.now()

        # Not due yet: a duplicate message does nothing.
        webhook_deliver(delivery_id=delivery.pk)
        assert len(receiver.received) == 1
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        webhook_deliver(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 2
    assert [(t.number, t.status_code) for t in delivery.tries.all()] == [(1, 500), (2, 200)]
    first, second = receiver.received
    assert first.body == second.body  # the same event id: the receiver can ignore a repeat
    assert signature_verifies(secret, second.headers["Redline-Signature"], second.body)


def test_a_delivery_is_given_up_after_a_day(
    receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    receiver.script = [503]
    endpoint, _ = _endpoint(receiver.url, events=["analysis.in_review"])
    with django_capture_on_commit_callbacks(execute=True):
        analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        created_at=timezone.now() - timedelta(hours=23, minutes=59, seconds=55),
        next_attempt_at=timezone.now(),
    )

    webhook_deliver(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 2


def test_a_redirect_is_a_failed_delivery_never_followed(
    receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    receiver.script = [302]
    endpoint, _ = _endpoint(receiver.url, events=["analysis.in_review"])
    with django_capture_on_commit_callbacks(execute=True):
        analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)

    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and "redirect" in delivery.last_error
    assert len(receiver.received) == 1


def test_after_a_rotation_both_secrets_sign_for_a_day(
    receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    endpoint, old = _endpoint(receiver.url, events=["analysis.in_review"])
    new = webhook_secret_rotate(endpoint=endpoint)
    with django_capture_on_commit_callbacks(execute=True):
        analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)

    (item,) = receiver.received
    header = item.headers["Redline-Signature"]
    assert header.count("v1=") == 2
    assert signature_verifies(new, header, item.body)
    assert signature_verifies(old, header, item.body)

    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        previous_secret_until=timezone.now() - timedelta(seconds=1)
    )
    delivery = WebhookDelivery.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        webhook_redeliver(delivery=delivery)
    header = receiver.received[-1].headers["Redline-Signature"]
    assert header.count("v1=") == 1
    assert not signature_verifies(old, header, receiver.received[-1].body)


def test_the_sweeper_sends_deliveries_whose_message_was_lost(
    receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    endpoint, _ = _endpoint(receiver.url, events=["analysis.in_review"])
    # The wake-up is lost: the commit's callbacks never run.
    with django_capture_on_commit_callbacks(execute=False):
        analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)
    assert receiver.received == []

    assert sweep_webhook_deliveries() == []  # the analysis is still validating: no event yet
    from validation.services import sweep_stale_attempts

    with django_capture_on_commit_callbacks(execute=True):
        sweep_stale_attempts(now=timezone.now() + timedelta(days=1))
    # Its validation ran now, and its event was delivered after that commit.
    assert [event["type"] for event in receiver.events()] == ["analysis.in_review"]

    WebhookDelivery.objects.update(status="pending", next_attempt_at=timezone.now())
    assert len(sweep_webhook_deliveries()) == 1
    assert len(receiver.received) == 2


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://169.254.10.1/hook",
        "http://0xa9fea9fe/",
        "http://127.0.0.1:18500/hook",
        "http://10.0.0.5/hook",
        "ftp://example.com/hook",
    ],
)
def test_link_local_metadata_and_private_urls_are_refused(url: str) -> None:
    pipeline = pipeline_create(slug="thesis")
    with pytest.raises(InvalidInput, match="refused"):
        webhook_endpoint_add(pipeline=pipeline, url=url)
    assert not WebhookEndpoint.objects.exists()


def test_listed_hosts_pass_but_metadata_never_does() -> None:
    pipeline = pipeline_create(slug="thesis")
    with override_settings(REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]):
        endpoint, secret = webhook_endpoint_add(pipeline=pipeline, url="http://127.0.0.1:1/x")
        with pytest.raises(InvalidInput):
            webhook_endpoint_add(pipeline=pipeline, url="http://169.254.169.254/")
    assert secret.startswith("whsec_") and endpoint.secret == secret


def test_unknown_events_are_refused() -> None:
    pipeline = pipeline_create(slug="thesis")
    with (
        override_settings(REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]),
        pytest.raises(InvalidInput, match=r"analysis\.validated"),
    ):
        webhook_endpoint_add(pipeline=pipeline, url="http://127.0.0.1:1/", events=["done"])
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("page", ["docs/pipelines.md", "README.md"])
def test_the_check_the_docs_show_verifies_a_real_delivery(
    page: str, receiver: Receiver, django_capture_on_commit_callbacks: Capture
) -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / page).read_text("utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the documentation's own few lines
    verify = namespace["verify"]
    endpoint, secret = _endpoint(receiver.url, events=["analysis.in_review"])
    with django_capture_on_commit_callbacks(execute=True):
        analysis_submit(data=BUNDLE, submitter=None, pipeline=endpoint.pipeline)

    (item,) = receiver.received
    header = item.headers["Redline-Signature"]
    assert verify(secret, header, item.body)
    assert not verify(secret, header, item.body + b" ")
    assert not verify("whsec_wrong", header, item.body)
