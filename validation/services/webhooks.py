"""Webhooks: a pipeline's endpoints, the events its analyses raise, and their delivery.

``webhook_emit`` is called inside the transaction of a state change: it writes one delivery
row per listening endpoint and wakes a worker once the transaction commits, on the webhook
queue (``REDLINE_WEBHOOK_QUEUE``), so no request or validation ever waits for a receiver.
``webhook_deliver`` (the ``deliver_webhook`` task's body) claims a due delivery with a
compare-and-swap, POSTs it through the outbound rule's webhook profile
(``validation.engine.outbound``: the checked address, no redirects, a short timeout) and
records the try. A failure is tried again with exponential backoff until a day has passed.
The delivery row is the job: ``sweep_webhook_deliveries`` re-sends deliveries that are due
and were not taken (a lost message, a worker killed mid-try), so delivery is at least once
and a receiver must use the event id to ignore a repeat.

Signature: ``Redline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`` with
the endpoint's secret; for a day after a rotation a second ``v1=`` signs with the old one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import KombuError

from analyses.models import Analysis, Pipeline
from redline_errors import InvalidInput
from validation.engine.outbound import (
    OutboundError,
    OutboundRefused,
    Profile,
    check_url,
    post_json,
    url_problem,
)
from validation.engine.types import CHECK_NAMES
from validation.models import (
    WEBHOOK_EVENTS,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "Redline-Signature"
SECRET_PREFIX = "whsec_"
# Deliveries are tried again for this long after the event; then they are given up.
RETRY_WINDOW = timedelta(days=1)
# After a rotation the old secret signs too, for this long.
ROTATION_OVERLAP = timedelta(days=1)
MAX_BACKOFF_SECONDS = 3600.0
# What a publish raises when the broker is down (kombu wraps the transport's errors).
_BROKER_ERRORS = (KombuError, OSError)


# ---------------------------------------------------------------- endpoints


def webhook_url_problem(url: str) -> str:
    """Why webhooks must not go to `url` (the outbound rule's webhook profile), or ""."""
    return url_problem(url, Profile.WEBHOOK, settings.REDLINE_WEBHOOK_ALLOWED_HOSTS)


def webhook_events_parse(events: Iterable[str]) -> list[str]:
    """The event names, checked (empty: every event)."""
    names = [name.strip() for name in events if name.strip()]
    unknown = [name for name in names if name not in WEBHOOK_EVENTS]
    if unknown:
        raise InvalidInput(
            f"Unknown event {unknown[0][:60]!r}; the events are {', '.join(WEBHOOK_EVENTS)}."
        )
    return list(dict.fromkeys(names))


@transaction.atomic
def webhook_endpoint_add(
    *, pipeline: Pipeline, url: str, events: Iterable[str] = ()
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint for `pipeline`; returns it and its secret (shown to the person once)."""
    url = url.strip()
    if len(url) > 2000:
        raise InvalidInput("A webhook URL has at most 2000 characters.")
    problem = webhook_url_problem(url)
    if problem:
        raise InvalidInput(f"This webhook URL is refused: {problem}.")
    secret = _new_secret()
    endpoint = WebhookEndpoint.objects.create(
        pipeline=pipeline, url=url, secret=secret, events=webhook_events_parse(events)
    )
    return endpoint, secret


@transaction.atomic
def webhook_secret_rotate(*, endpoint: WebhookEndpoint) -> str:
    """A new secret for `endpoint`; the old one signs as well for a day. Returns the new one."""
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    secret = _new_secret()
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_until = timezone.now() + ROTATION_OVERLAP
    endpoint.secret = secret
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_until"])
    return secret


def _new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def webhook_signature(body: bytes, secrets_: Iterable[str], timestamp: int) -> str:
    """The ``Redline-Signature`` value: ``t=<timestamp>`` and one ``v1=`` per secret."""
    signed = str(timestamp).encode() + b"." + body
    parts = [f"t={timestamp}"]
    parts += [
        "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest() for secret in secrets_
    ]
    return ",".join(parts)


def _signing_secrets(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    keys = [endpoint.secret]
    until = endpoint.previous_secret_until
    if endpoint.previous_secret and until is not None and now < until:
        keys.append(endpoint.previous_secret)
    return keys


# ---------------------------------------------------------------- events


def analysis_summary(analysis: Analysis) -> dict[str, Any]:
    """What every event says of its analysis."""
    return {
        "id": analysis.pk,
        "url": f"/api/v1/analyses/{analysis.pk}",
        "external_id": analysis.external_id,
        "title": analysis.title,
        "status": analysis.status,
        "needs_new_input": analysis.needs_new_input,
        "decision": analysis.decision,
        "conviction": analysis.conviction,
        "revise_loops": analysis.revise_loops,
        "retry_loops": analysis.retry_loops,
    }


def webhook_emit(analysis: Analysis, event_type: str, data: Mapping[str, Any] | None = None) -> int:
    """Record `event_type` for `analysis` for every active endpoint of its pipeline that
    listens to it, and send them once the transaction commits. Returns how many."""
    if event_type not in WEBHOOK_EVENTS:
        raise ValueError(f"unknown webhook event {event_type!r}")
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(
            pipeline_id=analysis.pipeline_id, active=True
        )
        if endpoint.listens_to(event_type)
    ]
    if not endpoints:
        return 0
    now = timezone.now()
    event_id = uuid.uuid4()
    pipeline = Pipeline.objects.filter(pk=analysis.pipeline_id).values_list("slug", flat=True)
    body = json.dumps(
        {
            "id": str(event_id),
            "type": event_type,
            "created_at": now.isoformat(),
            "pipeline": pipeline.first(),
            "data": {"analysis": analysis_summary(analysis), **(data or {})},
        },
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                endpoint=endpoint,
                event_id=event_id,
                event_type=event_type,
                analysis=analysis,
                body=body,
                next_attempt_at=now,
            )
            for endpoint in endpoints
        ]
    )
    for delivery in deliveries:
        transaction.on_commit(partial(send_delivery, delivery.pk))
    return len(deliveries)


# ---------------------------------------------------------------- delivery


def _lease() -> timedelta:
    # A try ends within its timeout; past this, the worker that took it is gone.
    return timedelta(seconds=settings.REDLINE_WEBHOOK_TIMEOUT_SECONDS * 2 + 5)


def backoff(tries: int) -> timedelta:
    """How long after try `tries` (1, 2, ...) failed the next one is due: doubling from
    ``REDLINE_WEBHOOK_RETRY_SECONDS``, at most an hour."""
    base = float(settings.REDLINE_WEBHOOK_RETRY_SECONDS)
    return timedelta(seconds=min(base * 2 ** max(tries - 1, 0), MAX_BACKOFF_SECONDS))


def send_delivery(delivery_id: int, countdown: float = 0.0) -> None:
    """Wake a webhook worker for `delivery_id`. A broker that is down loses nothing: the row
    stays due and the sweeper sends it."""
    from validation.tasks import deliver_webhook  # the tasks module imports this one

    try:
        deliver_webhook.apply_async(
            (delivery_id,), queue=settings.REDLINE_WEBHOOK_QUEUE, countdown=countdown
        )
    except _BROKER_ERRORS as error:
        logger.warning("The broker refused webhook delivery %s (%s).", delivery_id, error)


def webhook_deliver(*, delivery_id: int) -> WebhookDelivery | None:
    """Try `delivery_id` once if it is due (the ``deliver_webhook`` task's body).

    A compare-and-swap claims it (a duplicate message finds it not due and leaves); the try
    runs outside any transaction; its outcome is written only while the claim still holds."""
    now = timezone.now()
    token = uuid.uuid4().hex
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now
    ).update(run_token=token, next_attempt_at=now + _lease(), attempts=F("attempts") + 1)
    if claimed != 1:
        return WebhookDelivery.objects.filter(pk=delivery_id).first()
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    started = timezone.now()
    status_code: int | None = None
    clock = time.perf_counter()
    try:
        if not endpoint.active:
            raise OutboundRefused("the endpoint is inactive")
        target = check_url(endpoint.url, Profile.WEBHOOK, settings.REDLINE_WEBHOOK_ALLOWED_HOSTS)
        body = delivery.body.encode("utf-8")
        signature = webhook_signature(
            body, _signing_secrets(endpoint, started), int(started.timestamp())
        )
        answer = post_json(
            target,
            body,
            {
                SIGNATURE_HEADER: signature,
                "Redline-Event": delivery.event_type,
                "Redline-Event-Id": str(delivery.event_id),
            },
            timeout=float(settings.REDLINE_WEBHOOK_TIMEOUT_SECONDS),
        )
        status_code, error = answer.status, answer.failure()
    except (OutboundRefused, OutboundError) as problem:
        error = str(problem)
    latency_ms = (time.perf_counter() - clock) * 1000
    return _record_try(delivery, token, started, status_code, latency_ms, error)


@transaction.atomic
def _record_try(
    delivery: WebhookDelivery,
    token: str,
    started: datetime,
    status_code: int | None,
    latency_ms: float,
    error: str,
) -> WebhookDelivery:
    now = timezone.now()
    WebhookAttempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        started_at=started,
        status_code=status_code,
        latency_ms=round(latency_ms, 1),
        error=error[:2000],
    )
    values: dict[str, Any] = {
        "run_token": "",
        "last_status_code": status_code,
        "last_latency_ms": round(latency_ms, 1),
        "last_error": error[:2000],
    }
    retry_in: timedelta | None = None
    if not error:
        values.update(status=WebhookDelivery.Status.DELIVERED, delivered_at=now)
    elif now + backoff(delivery.attempts) > delivery.created_at + RETRY_WINDOW:
        values["status"] = WebhookDelivery.Status.FAILED
    else:
        retry_in = backoff(delivery.attempts)
        values["next_attempt_at"] = now + retry_in
    # Only the try that still holds the claim writes its outcome.
    WebhookDelivery.objects.filter(pk=delivery.pk, run_token=token).update(**values)
    log = logger.info if not error else logger.warning
    log(
        "Webhook %s %s to %s, try %s: %s (%.0f ms).",
        delivery.event_type,
        delivery.event_id,
        delivery.endpoint.url,
        delivery.attempts,
        error or f"delivered ({status_code})",
        latency_ms,
        extra={"delivery_id": delivery.pk, "status_code": status_code},
    )
    if retry_in is not None:
        transaction.on_commit(
            partial(send_delivery, delivery.pk, countdown=retry_in.total_seconds())
        )
    delivery.refresh_from_db()
    return delivery


@transaction.atomic
def webhook_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery again now (the admin's "redeliver"): the same event id and body, a
    new retry window."""
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDelivery.Status.PENDING, next_attempt_at=now, run_token="", created_at=now
    )
    transaction.on_commit(partial(send_delivery, delivery.pk))
    delivery.refresh_from_db()
    return delivery


def sweep_webhook_deliveries(*, now: datetime | None = None) -> list[int]:
    """Re-send deliveries that are due and were not taken (a lost message, a worker killed
    during a try, the broker down); return their ids."""
    now = now or timezone.now()
    due = list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:1000]
    )
    for delivery_id in due:
        send_delivery(delivery_id)
    if due:
        logger.info("Re-sent %s due webhook deliveries.", len(due))
    return due


# ---------------------------------------------------------------- what the services raise


def emit_after_validation(analysis: Analysis, attempt: Any) -> None:
    """``analysis.validated`` with the verdict (the failed checks by name, as in the verdict's
    ``checks``), then the status the analysis moved to."""
    checks = attempt.checks if isinstance(attempt.checks, dict) else {}
    webhook_emit(
        analysis,
        "analysis.validated",
        {
            "attempt": attempt.number,
            "decision": attempt.decision,
            "confidence": attempt.confidence,
            "failed_checks": [name for name in CHECK_NAMES if checks.get(name) is False],
        },
    )
    emit_status(analysis)


def emit_status(analysis: Analysis, data: Mapping[str, Any] | None = None) -> None:
    """The event of the status `analysis` has just moved to (none for validating)."""
    extra = dict(data or {})
    if analysis.status == Analysis.Status.APPROVED:
        extra["export_url"] = f"/api/v1/analyses/{analysis.pk}/export"
    event = {
        Analysis.Status.IN_REVIEW: "analysis.in_review",
        Analysis.Status.APPROVED: "analysis.approved",
        Analysis.Status.REJECTED: "analysis.rejected",
        Analysis.Status.FAILED: "analysis.failed",
    }.get(Analysis.Status(analysis.status))
    if event is not None:
        webhook_emit(analysis, event, extra)
