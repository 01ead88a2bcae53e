"""Validation in a real Celery worker process (prefork pool, embedded beat running the
sweeper) against the configured broker and the test database: the filesystem broker and
SQLite locally, Redis and PostgreSQL in CI.

DESIGN, Storage and jobs: the local run needs no server and still runs validation in a
separate worker process; a task is idempotent and safe to redeliver after a worker crash.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis
from redline_errors import LoopLimitReached, NothingToApply
from tests.support.worker import Worker, wait_until
from validation import services
from validation.engine.pipeline import validate
from validation.engine.types import Verdict
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy
from validation.services import analysis_submit
from validation.tasks import validate_revision

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

WAIT = 60.0

BUNDLE: dict[str, Any] = {
    "title": "Novo Nordisk (NVO) quick screen",
    "query": "Is Novo Nordisk (NVO) a buy? Show owner earnings.",
    "body": (
        "# NVO quick screen\n\n"
        "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B [gurufocus].\n\n"
        "Novo Nordisk holds a strong position in its market with 42% margins [gurufocus].\n\n"
        "**FINAL DECISION: WATCH**\n**FINAL CONVICTION: MODERATE**\n"
    ),
    "evidence": [
        {
            "source_ref": "gurufocus",
            "kind": "tool_output",
            "url": "https://www.gurufocus.com/stock/NVO/financials",
            "content": {"operating_cash_flow": 15500000000, "capex": 700000000},
        }
    ],
}


def _ingest(**changes: Any) -> Analysis:
    bundle = copy.deepcopy(BUNDLE)
    bundle.update(changes)
    return analysis_submit(data=bundle, submitter=None).analysis


def _expected(attempt: Attempt) -> Verdict:
    """What the engine says of this attempt's revision, computed in the test process."""
    return validate(services.attempt_bundle(attempt), services.engine_settings(Policy.load()))


def _finished(analysis: Analysis, number: int, workers: list[Worker]) -> Attempt:
    """Wait until attempt `number` is done or errored and the analysis has moved on."""

    def finished() -> Attempt | None:
        attempt = Attempt.objects.filter(analysis=analysis, number=number).first()
        if attempt is None or attempt.status not in ("done", "errored"):
            return None
        return attempt

    attempt = wait_until(
        finished, timeout=WAIT, what=f"attempt {number} of analysis {analysis.pk}", workers=workers
    )
    assert attempt.status == "done", f"attempt {number} errored: {attempt.error}"
    analysis.refresh_from_db()
    return attempt


def _succeeded(worker: Worker) -> int:
    pattern = r"Task validation\.tasks\.validate_revision\[[\w-]+\] succeeded"
    return len(re.findall(pattern, worker.log()))


def test_an_ingested_analysis_is_validated_once_by_a_worker(
    start_workers: Callable[..., Worker],
) -> None:
    worker = start_workers()

    analysis = _ingest()
    attempt = _finished(analysis, 1, [worker])

    expected = _expected(attempt)
    assert (attempt.decision, attempt.confidence, attempt.runs) == (
        expected.decision,
        expected.confidence,
        1,
    )
    assert Attempt.objects.filter(analysis=analysis).count() == 1
    assert Finding.objects.filter(attempt=attempt).count() == len(expected.findings)
    assert Fix.objects.filter(attempt=attempt).count() == len(expected.fixes)
    assert analysis.status != Analysis.Status.VALIDATING
    wait_until(lambda: _succeeded(worker) == 1, timeout=WAIT, what="the task", workers=[worker])


def test_duplicate_messages_create_no_second_attempt_and_no_duplicate_findings(
    start_workers: Callable[..., Worker],
) -> None:
    worker = start_workers()
    analysis = _ingest()
    revision = analysis.revisions.get()

    validate_revision.delay(revision.pk)  # the same message twice more, as a redelivery would
    validate_revision.delay(revision.pk)

    wait_until(
        lambda: _succeeded(worker) == 3, timeout=WAIT, what="all three messages", workers=[worker]
    )
    attempt = _finished(analysis, 1, [worker])
    expected = _expected(attempt)
    assert Attempt.objects.filter(analysis=analysis).count() == 1
    assert attempt.runs == 1
    assert Finding.objects.filter(attempt=attempt).count() == len(expected.findings)
    assert Fix.objects.filter(attempt=attempt).count() == len(expected.fixes)
    assert AuditEvent.objects.filter(analysis=analysis, action="validated").count() == 1


def test_a_worker_killed_mid_task_is_recovered_by_the_next_one_exactly_once(
    start_workers: Callable[..., Worker],
) -> None:
    lease = 6  # seconds; the task's hard limit is 90% of it, and the delay below fits
    first = start_workers(lease_seconds=lease, sweep_seconds=1, debug_delay_seconds=4)
    analysis = _ingest()

    running = wait_until(
        lambda: Attempt.objects.filter(analysis=analysis, status="running").first(),
        timeout=WAIT,
        what="the first worker to start the attempt",
        workers=[first],
    )
    first.kill()  # SIGKILL to the whole process group: main process and pool child
    running.refresh_from_db()
    assert (running.status, running.runs) == ("running", 1)  # lost mid-task

    second = start_workers(lease_seconds=lease, sweep_seconds=1)
    attempt = _finished(analysis, 1, [first, second])

    expected = _expected(attempt)
    assert attempt.runs == 2  # the killed run, then the recovery
    assert Attempt.objects.filter(analysis=analysis).count() == 1
    assert Finding.objects.filter(attempt=attempt).count() == len(expected.findings)
    assert Fix.objects.filter(attempt=attempt).count() == len(expected.fixes)
    assert AuditEvent.objects.filter(analysis=analysis, action="validated").count() == 1
    assert "Re-sent validation of revisions" in second.log()


def test_at_the_revise_limit_the_analysis_stays_in_review_for_a_persons_last_word(
    start_workers: Callable[..., Worker], reviewer: User
) -> None:
    # Issue 11 changed this on purpose: past a limit the analysis no longer fails; it stays
    # in review, no new revision can be made, and a person signs off or rejects.
    Policy.objects.filter(pk=1).update(max_revise_loops=1)
    worker = start_workers()
    analysis = _ingest()

    first = _finished(analysis, 1, [worker])
    assert first.decision == "REVISE", first.issues
    assert (analysis.status, analysis.revise_loops) == ("in_review", 0)  # none used yet

    # The only REVISE loop: the reviewer accepts the proposed fixes and applies them.
    accepted = services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=0.0)
    assert accepted, "the engine proposed no fix for the wrong owner earnings"
    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    assert outcome.revision is not None
    second = _finished(analysis, 2, [worker])
    assert (second.loop_kind, second.decision) == ("revise", "REVISE"), second.issues

    assert (analysis.status, analysis.revise_loops) == ("in_review", 1)
    limit = AuditEvent.objects.get(analysis=analysis, action="loop_limit")
    assert limit.comment.startswith("REVISE loop limit reached (1 of 1 used)")
    assert not AuditEvent.objects.filter(analysis=analysis, action="failed").exists()
    # Past the limit the validator's fixes are not applied (a reviewer's own still would be);
    # with none accepted, there is nothing to apply at all.
    more = services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=0.0)
    with pytest.raises(LoopLimitReached if more else NothingToApply):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    services.analysis_sign_off(
        analysis=analysis, user=reviewer, comment="Checked by hand.", override=True
    )
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.APPROVED


def test_at_the_retry_limit_the_analysis_stays_in_review_without_asking_for_input(
    start_workers: Callable[..., Worker], reviewer: User
) -> None:
    worker = start_workers()
    # Numeric claims and no evidence at all: the approach is wrong, not the wording (RETRY).
    analysis = _ingest(evidence=[])

    first = _finished(analysis, 1, [worker])
    assert first.decision == "RETRY", first.issues
    assert (analysis.status, analysis.retry_loops, analysis.needs_new_input) == (
        "in_review",
        0,
        True,
    )
    assert first.suggested_fixes

    body = BUNDLE["body"].replace("strong position", "leading position")
    services.analysis_submit_draft(analysis=analysis, user=None, body=body)
    second = _finished(analysis, 2, [worker])

    assert (second.loop_kind, second.decision) == ("retry", "RETRY")
    assert (analysis.status, analysis.retry_loops) == ("in_review", 1)
    assert analysis.needs_new_input is False
    limit = AuditEvent.objects.get(analysis=analysis, action="loop_limit")
    assert limit.comment.startswith("RETRY loop limit reached (1 of 1 used)")
    with pytest.raises(LoopLimitReached):
        services.analysis_submit_draft(analysis=analysis, user=None, body=body + "\n")
    services.analysis_reject(analysis=analysis, user=reviewer, comment="No evidence.")
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.REJECTED
