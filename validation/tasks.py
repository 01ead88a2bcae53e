"""Celery tasks: thin, take ids, call a service, safe to run twice."""

from celery import shared_task

from validation import services


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def validate_revision(revision_id: int) -> None:
    services.attempt_run(revision_id=revision_id)
