"""Celery tasks: thin, take ids, call a service, safe to run twice."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

_LEASE = float(settings.REDLINE_ATTEMPT_LEASE_SECONDS)
# Both limits end a run before its lease does, so a lease never expires under a live run and
# the sweeper never hands an attempt that is still running to a second worker.
HARD_TIME_LIMIT = max(_LEASE * 0.9, 2.0)
SOFT_TIME_LIMIT = max(_LEASE * 0.8, 1.0)

# A database that is briefly away (restart, failover, SQLite busy) is worth waiting for.
_TRANSIENT = (OperationalError, InterfaceError)


# celery-types types the time limits as int; Celery takes float seconds, and a short test lease
# needs them: ignore that one overload mismatch (and the decorator it leaves untyped).
@shared_task(  # type: ignore[call-overload, untyped-decorator]
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=HARD_TIME_LIMIT,
    autoretry_for=_TRANSIENT,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
)
def validate_revision(revision_id: int) -> None:
    from validation.services import attempt_run  # services send this task: import at use

    attempt_run(revision_id=revision_id)


@shared_task(
    ignore_result=True,
    autoretry_for=_TRANSIENT,
    retry_backoff=2,
    max_retries=3,
    soft_time_limit=60,
    time_limit=90,
)
def sweep_stale_attempts() -> None:
    from validation.services import sweep_stale_attempts

    sweep_stale_attempts()


@shared_task(ignore_result=True, autoretry_for=_TRANSIENT, retry_backoff=2, max_retries=3)
def resend_queued_attempts() -> None:
    from validation.services import attempts_resend_queued

    attempts_resend_queued()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=settings.REDLINE_WEBHOOK_TIMEOUT_SECONDS * 2 + 2,
    time_limit=settings.REDLINE_WEBHOOK_TIMEOUT_SECONDS * 2 + 4,
    autoretry_for=_TRANSIENT,
    retry_backoff=2,
    max_retries=3,
)
def deliver_webhook(delivery_id: int) -> None:
    from validation.services.webhooks import webhook_deliver  # it sends this task

    webhook_deliver(delivery_id=delivery_id)


@shared_task(
    ignore_result=True,
    autoretry_for=_TRANSIENT,
    retry_backoff=2,
    max_retries=3,
    soft_time_limit=60,
    time_limit=90,
)
def sweep_webhook_deliveries() -> None:
    from validation.services.webhooks import sweep_webhook_deliveries

    sweep_webhook_deliveries()


def sweep_when_a_worker_connects() -> None:
    """Sent each time a worker's consumer connects to the broker: when the worker starts, and
    when the broker is back after an outage (project.celery's ``SweepOnConnect`` step).

    A worker killed outright takes its in-flight and prefetched messages with it (the
    filesystem broker never redelivers them), and a broker that was down refused the
    wake-ups of what was ingested meanwhile (marked due): sweep as soon as a worker can
    take work, rather than one beat interval later."""
    sweep_stale_attempts.delay()
    sweep_webhook_deliveries.delay()
