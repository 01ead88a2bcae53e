"""validate_revision: a thin task over attempt_run, safe to run twice and after a crash.

These run the real engine (tasks are eager in tests unless an integration test sends them
to a worker)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import OperationalError
from django.utils import timezone

from analyses.models import Analysis
from tests.support.review_data import analysis_in_review
from validation import services, tasks
from validation.engine.pipeline import validate
from validation.engine.types import Verdict
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy

pytestmark = pytest.mark.django_db


def _queued(**analysis_fields: Any) -> Attempt:
    analysis = analysis_in_review(
        status=Analysis.Status.VALIDATING, attempt_status=Attempt.Status.QUEUED, **analysis_fields
    )
    return Attempt.objects.get(analysis=analysis)


def _engine_verdict(attempt: Attempt) -> Verdict:
    """What the engine says of the attempt's revision, computed here in the test process."""
    return validate(services.attempt_bundle(attempt), services.engine_settings(Policy.load()))


def test_the_task_is_late_acked_rejected_on_worker_loss_and_ends_before_its_lease() -> None:
    task = tasks.validate_revision
    lease = settings.REDLINE_ATTEMPT_LEASE_SECONDS

    assert task.acks_late is True
    assert task.reject_on_worker_lost is True
    assert task.soft_time_limit < task.time_limit < lease
    assert OperationalError in task.autoretry_for
    assert task.retry_backoff and task.max_retries


def test_running_the_task_validates_the_revision_once() -> None:
    attempt = _queued()
    expected = _engine_verdict(attempt)

    tasks.validate_revision.delay(attempt.revision_id)

    attempt.refresh_from_db()
    assert attempt.status == "done"
    assert (attempt.runs, attempt.decision) == (1, expected.decision)
    assert attempt.confidence == expected.confidence
    assert attempt.markdown.startswith("## 7. Validation (Attempt 1)")
    assert Finding.objects.filter(attempt=attempt).count() == len(expected.findings)
    assert Fix.objects.filter(attempt=attempt).count() == len(expected.fixes)
    analysis = Analysis.objects.get(pk=attempt.analysis_id)
    assert analysis.status != Analysis.Status.VALIDATING
    assert AuditEvent.objects.filter(analysis=analysis, action="validated").count() == 1


def test_running_it_twice_changes_nothing_the_second_time() -> None:
    attempt = _queued()
    tasks.validate_revision.delay(attempt.revision_id)
    findings = list(Finding.objects.values_list("pk", flat=True))

    returned = services.attempt_run(revision_id=attempt.revision_id)

    assert returned is not None
    assert (returned.status, returned.runs) == ("done", 1)
    assert list(Finding.objects.values_list("pk", flat=True)) == findings
    assert Attempt.objects.filter(analysis_id=attempt.analysis_id).count() == 1


def test_a_run_under_another_runs_live_lease_is_left_alone() -> None:
    attempt = _queued()
    lease = timezone.now() + timedelta(seconds=60)
    Attempt.objects.filter(pk=attempt.pk).update(
        status="running", run_token="other", runs=1, lease_expires_at=lease
    )

    returned = services.attempt_run(revision_id=attempt.revision_id)

    assert returned is not None
    assert (returned.status, returned.run_token, returned.runs) == ("running", "other", 1)
    assert not Finding.objects.exists()


def test_a_run_whose_lease_expired_is_taken_over_and_completed() -> None:
    attempt = _queued()
    Attempt.objects.filter(pk=attempt.pk).update(
        status="running",
        run_token="dead",
        runs=1,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )

    returned = services.attempt_run(revision_id=attempt.revision_id)

    assert returned is not None
    assert returned.status == "done"
    assert returned.runs == 2
    assert returned.run_token not in ("", "dead")


def test_an_attempt_lost_too_often_is_given_up_as_errored() -> None:
    attempt = _queued()
    Attempt.objects.filter(pk=attempt.pk).update(runs=services.MAX_RUNS)

    returned = services.attempt_run(revision_id=attempt.revision_id)

    assert returned is not None
    assert returned.status == "errored"
    assert returned.error.startswith("Validation did not finish in 3 runs")
    assert Analysis.objects.get(pk=attempt.analysis_id).status == Analysis.Status.IN_REVIEW


def test_an_engine_failure_errors_the_attempt_readably_and_a_person_sees_it(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempt = _queued()

    def engine_bug(*args: object, **kwargs: object) -> Verdict:
        raise ArithmeticError("a bug in the engine")

    # What ingest accepts the engine validates (tests/hostile): a failure here is a bug.
    monkeypatch.setattr("validation.engine.pipeline.validate", engine_bug)
    services.attempt_run(revision_id=attempt.revision_id)

    attempt.refresh_from_db()
    assert attempt.status == "errored"
    assert attempt.error == "Validation failed: ArithmeticError: a bug in the engine"
    analysis = Analysis.objects.get(pk=attempt.analysis_id)
    assert analysis.status == Analysis.Status.IN_REVIEW
    event = AuditEvent.objects.get(analysis=analysis, action="validated")
    assert event.data == {"attempt": 1, "status": "errored"}

    # ... and a reviewer can re-run it once the cause is fixed.
    monkeypatch.undo()
    services.analysis_revalidate(analysis=analysis, user=reviewer)
    services.attempt_run(revision_id=attempt.revision_id)
    attempt.refresh_from_db()
    assert (attempt.status, attempt.runs, attempt.error) == ("done", 1, "")


def test_a_revision_without_an_attempt_is_nothing_to_run() -> None:
    assert services.attempt_run(revision_id=987_654) is None


def test_what_ingest_accepts_with_100_fields_and_a_decision_in_the_report_is_validated(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # 100 fields is the most a bundle may send; the report's FINAL DECISION and numeric
    # labels are fields too, read at ingest: the worker's bundle has more than 100.
    data = {
        "query": "Is ACME a buy?",
        "body": "Intrinsic value: $195. Margin of safety: 10%.\n\nFINAL DECISION: WATCH\n",
        "fields": {f"f{i}": i for i in range(100)},
    }
    with django_capture_on_commit_callbacks(execute=True):
        analysis = services.analysis_submit(data=data, submitter=None).analysis

    assert len(analysis.bundle_fields()) == 103
    attempt = Attempt.objects.get(analysis=analysis)
    assert attempt.status == "done", attempt.error
    assert attempt.decision
