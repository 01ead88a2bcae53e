"""Jobs: the Attempt row, not the broker message, is the source of truth.

``attempt_enqueue`` records a queued attempt and sends a wake-up after commit; ``attempt_run``
(the body of the ``validate_revision`` task) claims the attempt with a compare-and-swap, runs
the engine and persists the verdict (``outcomes``) only while its claim still holds, so
duplicate and redelivered messages change nothing; ``sweep_stale_attempts`` re-sends
attempts whose message was lost.

This module and ``validation.tasks`` know each other: tasks import services inside their
bodies, and services send tasks once the transaction commits. That is the one back edge
inside ``validation`` (see tests/project/test_dependencies.py)."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from kombu.exceptions import KombuError

from analyses.models import Analysis, Revision
from redline_errors import IllegalTransition
from validation.engine.types import Bundle, EngineSettings, Verdict
from validation.metrics import ATTEMPT_SECONDS
from validation.models import Attempt, AuditEvent, Fix, Policy
from validation.services._shared import IN_REVIEW, Status, audit, lock_analysis, require_status
from validation.services.claims import claim_for_action
from validation.services.llm import llm_run, llm_settings
from validation.services.outcomes import attempt_error, attempt_record_verdict

logger = logging.getLogger(__name__)

# What publishing a task raises when the broker is down (kombu wraps the transport's errors).
BROKER_ERRORS = (KombuError, OSError)
# While the broker is down, refused wake-ups are tried again this often (seconds).
RESEND_INTERVAL = 1.0
# How long a run that the database failed keeps trying to hand its attempt back (seconds).
RELEASE_WAIT = 30.0

# A run lost this many times (worker killed, time limit) is given up as errored rather than
# re-run forever; a reviewer can still re-validate it.
MAX_RUNS = 3


def _lease() -> timedelta:
    return timedelta(seconds=settings.REDLINE_ATTEMPT_LEASE_SECONDS)


@transaction.atomic
def attempt_enqueue(*, revision: Revision, loop_kind: str = Attempt.LoopKind.INITIAL) -> Attempt:
    """Record a queued attempt for `revision` and wake a worker once the transaction commits.

    The attempt row, not the broker message, is the source of truth: a lost message is
    re-sent by the sweeper once `lease_expires_at` (here: the deadline to start) has passed.
    Enqueuing the same revision twice returns the existing attempt.
    """
    existing = Attempt.objects.filter(revision=revision).first()
    if existing is not None:
        return existing
    number = (
        Attempt.objects.filter(analysis_id=revision.analysis_id).aggregate(n=Max("number"))["n"]
        or 0
    ) + 1
    return attempt_create(revision=revision, number=number, loop_kind=loop_kind)


def attempt_create(
    *, revision: Revision, number: int, loop_kind: str = Attempt.LoopKind.INITIAL
) -> Attempt:
    """Insert attempt `number` for `revision` (queued) and wake a worker after commit.

    ``attempt_enqueue`` finds the number; ingest calls this directly with 1, since a new
    analysis has no attempt yet (two queries fewer per ingest). Call it inside a transaction.
    """
    attempt = Attempt.objects.create(
        analysis_id=revision.analysis_id,
        revision=revision,
        number=number,
        loop_kind=loop_kind,
        lease_expires_at=timezone.now() + _lease(),
    )
    transaction.on_commit(partial(send_validation, revision.pk))
    return attempt


def send_validation(revision_id: int) -> None:
    """Wake a worker for `revision_id` (after the commit that queued its attempt).

    A broker that is down does not undo what committed: the request that queued the attempt
    still succeeds, the attempt is marked due (any sweep re-sends it), and this process sends
    the wake-up again as soon as the broker takes it (``_UNSENT``), not a lease later."""
    try:
        _publish(revision_id)
    except BROKER_ERRORS as error:
        logger.warning(
            "The broker refused the wake-up of revision %s (%s); it is sent again as soon as "
            "the broker is back.",
            revision_id,
            error,
        )
        _mark_due(revision_id)
        _UNSENT.add(revision_id)


def _publish(revision_id: int) -> None:
    from validation.tasks import validate_revision  # the tasks module imports this one

    validate_revision.delay(revision_id)


def _mark_due(revision_id: int) -> None:
    """Make the queued attempt stale at once, so the next sweep (or a worker that connects)
    re-sends it even if this process dies before the broker is back."""
    try:
        Attempt.objects.filter(revision_id=revision_id, status=Attempt.Status.QUEUED).update(
            lease_expires_at=timezone.now()
        )
    except DatabaseError:  # the database too: the lease set at enqueue still stands
        logger.warning("Could not mark the attempt of revision %s due.", revision_id)


class _UnsentWakeups:
    """Wake-ups the broker refused, sent again by one background thread of this process:
    every RESEND_INTERVAL seconds while the broker is down, all of them once it answers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: set[int] = set()
        self._thread: threading.Thread | None = None

    def add(self, revision_id: int) -> None:
        with self._lock:
            self._pending.add(revision_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="redline-resend", daemon=True
                )
                self._thread.start()

    def pending(self) -> set[int]:
        with self._lock:
            return set(self._pending)

    def _run(self) -> None:
        while True:
            time.sleep(RESEND_INTERVAL)
            with self._lock:
                if not self._pending:
                    self._thread = None
                    return
                batch = sorted(self._pending)
            for revision_id in batch:
                try:
                    _publish(revision_id)
                except BROKER_ERRORS:
                    break  # still down: wait and try again
                except Exception:  # never let the thread die with wake-ups pending
                    logger.exception("Re-sending the wake-up of revision %s failed.", revision_id)
                    break
                with self._lock:
                    self._pending.discard(revision_id)
                logger.info("Sent the wake-up of revision %s after a broker outage.", revision_id)


_UNSENT = _UnsentWakeups()


def attempt_run(*, revision_id: int) -> Attempt | None:
    """Run the validator on `revision_id`'s queued attempt; the body of `validate_revision`.

    Idempotent: returns without doing anything when the attempt is done or errored, or is
    running under another run's live lease. Returns None when the revision has no attempt.
    Not atomic on purpose: the claim must be committed (visible to other workers) before the
    engine runs, and the results are written in their own transaction.
    """
    # Claim first (one UPDATE by revision), read after: a finished or foreign-held attempt
    # costs one query more, a claimable one (every message but duplicates) one query less.
    token = _attempt_claim(revision_id)
    if token is None:
        attempt = Attempt.objects.filter(revision_id=revision_id).first()
        if attempt is None:
            logger.warning("No attempt for revision %s: nothing to run.", revision_id)
        elif attempt.status not in (Attempt.Status.DONE, Attempt.Status.ERRORED):
            logger.info("Attempt %s is not claimable (%s): skipped.", attempt.pk, attempt.status)
        return attempt
    started = time.monotonic()  # the task's soft time limit counts from about here
    try:
        attempt = Attempt.objects.select_related("analysis", "revision").get(
            revision_id=revision_id
        )
        if attempt.runs > MAX_RUNS:
            attempt_error(
                attempt_id=attempt.pk,
                run_token=token,
                message=(
                    f"Validation did not finish in {MAX_RUNS} runs: each run was lost (worker "
                    "stopped or over its time limit). Re-validate to try again."
                ),
            )
            attempt.refresh_from_db()
            return attempt
        delay = settings.REDLINE_TASK_DEBUG_DELAY_SECONDS
        if delay:  # test seam: the crash-recovery integration test kills the worker here
            time.sleep(delay)
        # Once per run, the analysis' pipeline's (or the default): the engine, the LLM path
        # and loop control; the attempt records which one judged it and its settings.
        policy = Policy.for_pipeline(attempt.analysis.pipeline_id)
        try:
            verdict, markdown, elapsed_ms = _engine_run(attempt, policy, task_started=started)
        except (OperationalError, InterfaceError):
            raise  # the database, not the report: retried below
        except Exception as exc:  # any engine failure becomes a readable errored attempt
            logger.exception(
                "Validation of revision %s failed.",
                revision_id,
                extra={"analysis_id": attempt.analysis_id, "attempt_id": attempt.pk},
            )
            attempt_error(
                attempt_id=attempt.pk,
                run_token=token,
                message=f"Validation failed: {type(exc).__name__}: {exc}",
            )
        else:
            # An LLM path that errored (no valid judge answer, endpoint down) leaves the
            # engine's verdict, never APPROVE, with the LLM's error on it (verdict.llm): the
            # engine's findings and fixes are recorded and reviewable like any others.
            wrote = attempt_record_verdict(
                attempt_id=attempt.pk,
                run_token=token,
                verdict=verdict,
                markdown=markdown,
                elapsed_ms=elapsed_ms,
                attempt=attempt,
                policy=policy,
            )
            ATTEMPT_SECONDS.observe(elapsed_ms / 1000)
            logger.info(
                "Attempt %s of analysis %s: %s (%.0f ms).",
                attempt.number,
                attempt.analysis_id,
                verdict.decision,
                elapsed_ms,
                extra={
                    "analysis_id": attempt.analysis_id,
                    "attempt_id": attempt.pk,
                    "revision_id": revision_id,
                    "decision": verdict.decision,
                    "duration_ms": round(elapsed_ms, 1),
                },
            )
            if wrote and verdict.llm is None:
                # attempt_record_verdict brought the attempt up to date; its analysis (read
                # before the run) is dropped, to be read afresh if asked for.
                Attempt._meta.get_field("analysis").delete_cached_value(attempt)
                return attempt
    except (OperationalError, InterfaceError):
        # A transient database error: hand the attempt back so the task's retry can claim it
        # at once instead of waiting for the lease to run out.
        _attempt_release(revision_id=revision_id, run_token=token)
        raise
    attempt.refresh_from_db()
    return attempt


def _attempt_claim(revision_id: int) -> str | None:
    """Move the revision's attempt (one per revision) to running under a new run token; None
    if there is none, it is finished, or another run holds it."""
    now = timezone.now()
    token = uuid.uuid4().hex
    # Compare-and-swap: of two workers holding the same message (a duplicate, a redelivery,
    # a sweeper re-send) exactly one moves the attempt; the other updates 0 rows and leaves.
    claimed = (
        Attempt.objects.filter(revision_id=revision_id)
        .filter(
            Q(status=Attempt.Status.QUEUED)
            | Q(status=Attempt.Status.RUNNING, lease_expires_at__lt=now)
        )
        .update(
            status=Attempt.Status.RUNNING,
            run_token=token,
            lease_expires_at=now + _lease(),
            started_at=now,
            runs=F("runs") + 1,
        )
    )
    return token if claimed == 1 else None


def _attempt_release(*, revision_id: int, run_token: str) -> None:
    """Hand a running attempt back (queued) so that the task's retry can claim it at once.

    The database that failed the run is usually back within seconds (a restart, a
    failover): the release is tried for up to RELEASE_WAIT seconds, each time on a new
    connection. If it never succeeds, the attempt stays running under its lease, and the
    sweeper re-sends it once the lease has passed."""
    waited, pause = 0.0, 0.25
    while True:
        try:
            Attempt.objects.filter(
                revision_id=revision_id, run_token=run_token, status=Attempt.Status.RUNNING
            ).update(
                status=Attempt.Status.QUEUED,
                run_token="",
                lease_expires_at=timezone.now() + _lease(),
            )
            return
        except DatabaseError:
            connection.close()  # a broken connection is not reused for the next try
            if waited >= RELEASE_WAIT:
                logger.warning(
                    "Could not release the attempt of revision %s; the sweeper will.",
                    revision_id,
                )
                return
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, 4.0)


def engine_settings(policy: Policy) -> EngineSettings:
    """The part of the admin Policy the engine needs."""
    return policy.engine_settings()


def attempt_bundle(attempt: Attempt) -> Bundle:
    """The engine's input for one attempt: its revision's body and the analysis' evidence.

    Built without the input rules (``model_construct``): ingest applied them to what the
    client sent, and what the analysis has stored since is not a client's input to refuse.
    Its fields are the sent ones plus those read from the report, so 100 sent fields and a
    ``FINAL DECISION:`` line are 101, one over the limit on what a bundle may send."""
    analysis = attempt.analysis
    evidence = [item.as_item() for item in analysis.evidence.order_by("id")]
    return Bundle.model_construct(
        query=analysis.query,
        goals=list(analysis.goals or []),
        title=analysis.title,
        body=attempt.revision.body,
        fields=analysis.bundle_fields(),
        evidence=evidence,
    )


def _engine_run(
    attempt: Attempt, policy: Policy, *, task_started: float
) -> tuple[Verdict, str, float]:
    """The deterministic engine, then (with an endpoint configured) the LLM path on its
    verdict; ``task_started`` (monotonic) is when the task began, for the LLM path's budget."""
    from validation.engine.pipeline import validate  # the pipeline is heavy; load it where it runs
    from validation.engine.report import render_attempt_markdown

    bundle = attempt_bundle(attempt)
    started = time.perf_counter()
    settings_ = engine_settings(policy)
    verdict = validate(bundle, settings_)
    llm = llm_settings(policy)
    if llm is not None:
        from validation.tasks import SOFT_TIME_LIMIT  # the task <-> service edge, at use

        verdict = llm_run(
            bundle, verdict, settings_, llm, soft_limit_s=SOFT_TIME_LIMIT, started=task_started
        ).verdict
    elapsed_ms = (time.perf_counter() - started) * 1000
    markdown = render_attempt_markdown(verdict, attempt.number)
    return verdict, markdown, elapsed_ms


def sweep_stale_attempts(*, now: datetime | None = None) -> list[int]:
    """Re-send `validate_revision` for attempts whose message was lost; return their revisions.

    Lost means: queued past its start deadline, or running past its lease (the worker died,
    and the filesystem broker does not redeliver what a killed worker had taken). Each one is
    put back to queued with a new deadline, so a backlog is not re-sent on every sweep.
    """
    now = now or timezone.now()
    stale = Attempt.objects.filter(
        Q(status__in=[Attempt.Status.QUEUED, Attempt.Status.RUNNING], lease_expires_at__lt=now)
        | Q(
            status=Attempt.Status.QUEUED,
            lease_expires_at__isnull=True,
            queued_at__lt=now - _lease(),
        )
    ).values_list("pk", "revision_id", "status", "lease_expires_at", "run_token")
    revision_ids: list[int] = []
    for attempt_id, revision_id, status, deadline, run_token in stale:
        with transaction.atomic():
            # Compare-and-swap on what we read: a worker that claimed the attempt meanwhile,
            # or another sweeper, has changed the row and we leave it alone.
            requeued = Attempt.objects.filter(
                pk=attempt_id, status=status, run_token=run_token, lease_expires_at=deadline
            ).update(
                status=Attempt.Status.QUEUED,
                run_token="",
                lease_expires_at=now + _lease(),
            )
            if requeued == 1:
                revision_ids.append(revision_id)
                transaction.on_commit(partial(send_validation, revision_id))
    if revision_ids:
        logger.warning("Re-sent validation of revisions %s (message lost).", revision_ids)
    return revision_ids


@transaction.atomic
def analysis_revalidate(*, analysis: Analysis, user: User) -> Attempt:
    """Re-run the current revision's attempt (same attempt row, runs reset): an errored one,
    or a done one whose LLM path errored while none of its fixes has been decided (its
    findings and fixes go; the LLM calls of the earlier run stay as its record)."""
    now = timezone.now()
    analysis = lock_analysis(analysis)
    require_status(analysis, IN_REVIEW, "be re-validated")
    claim_for_action(analysis, user, now)
    attempt = analysis.attempts.order_by("-number").first()
    llm_errored = (
        attempt is not None
        and attempt.status == Attempt.Status.DONE
        and isinstance(attempt.llm, dict)
        and attempt.llm.get("status") == "errored"
    )
    if attempt is None or (attempt.status != Attempt.Status.ERRORED and not llm_errored):
        state = f"attempt {attempt.number} is {attempt.status}" if attempt else "it has none"
        raise IllegalTransition(
            f"Only an errored attempt, or one whose LLM path errored, can be re-run ({state})."
        )
    previous_error = attempt.error or (attempt.llm.get("error", "") if llm_errored else "")
    if llm_errored:
        decided = attempt.fixes.exclude(status=Fix.Status.PROPOSED).exclude(
            status=Fix.Status.REJECTED, carried_from__isnull=False
        )
        if decided.exists():
            raise IllegalTransition(
                "Fixes of this attempt were already decided: re-validating would discard "
                "those decisions. Apply them or sign off instead."
            )
        # The re-run records its own; findings and fixes go (tool calls with them).
        attempt.tool_calls.all().delete()
        attempt.fixes.all().delete()
        attempt.findings.all().delete()
    Attempt.objects.filter(pk=attempt.pk).update(
        status=Attempt.Status.QUEUED,
        decision="",
        error="",
        run_token="",
        runs=0,
        queued_at=now,
        started_at=None,
        finished_at=None,
        lease_expires_at=now + _lease(),
    )
    analysis.status = Status.VALIDATING
    analysis.save()
    audit(
        analysis,
        AuditEvent.Action.VALIDATED,
        actor=user,
        revision_id=attempt.revision_id,
        comment=(
            "Re-validation requested after the LLM path errored."
            if llm_errored
            else "Re-validation requested after an error."
        ),
        data={"attempt": attempt.number, "requeued": True, "previous_error": previous_error},
    )
    transaction.on_commit(partial(send_validation, attempt.revision_id))
    attempt.refresh_from_db()
    return attempt
