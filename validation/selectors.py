"""Reads: the queries behind the queue and the review screen.

Every relation a template touches is loaded here, up front, so a page runs a fixed number
of queries however many fixes, findings or tool calls an attempt has. What the templates
show is built from these rows in ``validation.web.presenters``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import (
    Count,
    F,
    IntegerField,
    Min,
    Model,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.utils import timezone

from analyses.models import Analysis, Evidence, Pipeline, Revision
from validation.models import Attempt, AuditEvent, Finding, Fix, ToolCall
from validation.permissions import analyses_for_user

QUEUE_PAGE_SIZE = 25

AnyUser = User | AnonymousUser


def _count(model: type[Model], fk: str = "analysis") -> Coalesce:
    """A correlated COUNT subquery, so the counts ride along with the analysis row."""
    counted = (
        model._default_manager.filter(**{fk: OuterRef("pk")})
        .order_by()
        .values(fk)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


# ---------------------------------------------------------------- queue


@dataclass(frozen=True)
class QueueFilters:
    status: str = ""
    decision: str = ""
    mine: bool = False
    q: str = ""
    pipeline: str = ""  # a pipeline's slug

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> QueueFilters:
        """Filters from a GET query dict; unknown values are ignored, not errors."""
        status = params.get("status", "")
        decision = params.get("decision", "")
        return cls(
            status=status if status in Analysis.Status.values else "",
            decision=decision if decision in Attempt.Decision.values else "",
            mine=params.get("mine") in ("1", "on", "true"),
            q=params.get("q", "").strip()[:200],
            pipeline=params.get("pipeline", "").strip()[:50],
        )

    def as_params(self, **overrides: object) -> dict[str, str]:
        values = {
            "status": self.status,
            "decision": self.decision,
            "q": self.q,
            "pipeline": self.pipeline,
        }
        values["mine"] = "1" if self.mine else ""
        values.update({k: str(v) for k, v in overrides.items()})
        return {k: v for k, v in values.items() if v}


def _latest_attempt(field_name: str, *, done_only: bool = False) -> Subquery:
    attempts = Attempt.objects.filter(analysis=OuterRef("pk"))
    if done_only:
        attempts = attempts.filter(status=Attempt.Status.DONE)
    return Subquery(attempts.order_by("-number").values(field_name)[:1])


def queue_annotate(queryset: QuerySet[Analysis]) -> QuerySet[Analysis]:
    """What a queue row shows: the validator's last verdict and the live attempt status."""
    return queryset.select_related("claimed_by", "pipeline").annotate(
        verdict=_latest_attempt("decision", done_only=True),
        verdict_confidence=_latest_attempt("confidence", done_only=True),
        verdict_checks=_latest_attempt("checks", done_only=True),
        attempt_status=_latest_attempt("status"),
        attempt_number=_latest_attempt("number"),
    )


def queue_analyses(*, user: AnyUser, filters: QueueFilters) -> QuerySet[Analysis]:
    analyses = _queue_base(user=user, filters=filters)
    if filters.status:
        analyses = analyses.filter(status=filters.status)
    return queue_annotate(analyses).order_by("-created_at", "-id")


def _queue_base(*, user: AnyUser, filters: QueueFilters) -> QuerySet[Analysis]:
    analyses = analyses_for_user(user)
    if filters.q:
        analyses = analyses.filter(Q(title__icontains=filters.q) | Q(query__icontains=filters.q))
    if filters.pipeline:
        analyses = analyses.filter(pipeline__slug=filters.pipeline)
    if filters.mine and isinstance(user, User):
        analyses = analyses.filter(claimed_by=user, claimed_until__gt=timezone.now())
    if filters.decision:
        analyses = analyses.alias(
            verdict_filter=_latest_attempt("decision", done_only=True)
        ).filter(verdict_filter=filters.decision)
    return analyses


def queue_status_counts(*, user: AnyUser, filters: QueueFilters) -> list[tuple[str, str, int]]:
    """(status, label, count) for every status, under every filter but the status one."""
    rows = (
        _queue_base(user=user, filters=filters).order_by().values("status").annotate(n=Count("pk"))
    )
    counts = {row["status"]: row["n"] for row in rows}
    return [(value, label, counts.get(value, 0)) for value, label in Analysis.Status.choices]


def analysis_queue_row(*, analysis_id: int, user: AnyUser) -> Analysis | None:
    return queue_annotate(analyses_for_user(user)).filter(pk=analysis_id).first()


def pipeline_choices() -> list[tuple[str, str]]:
    """(slug, name) of every pipeline, for the queue's and the dashboard's filter."""
    return list(Pipeline.objects.order_by("slug").values_list("slug", "name"))


def in_review_count() -> int:
    """The number in the top bar's queue link."""
    return Analysis.objects.filter(status=Analysis.Status.IN_REVIEW).count()


# ---------------------------------------------------------------- fixes


@dataclass
class FixCounts:
    accepted: int = 0
    rejected: int = 0
    proposed: int = 0
    applied: int = 0
    conflict: int = 0
    stale: int = 0
    bulk_candidates: int = 0
    carried: int = 0  # rejections carried over from an earlier revision (among `rejected`)

    @property
    def total(self) -> int:
        return (
            self.accepted
            + self.rejected
            + self.proposed
            + self.applied
            + self.conflict
            + self.stale
        )


def fix_counts(*, revision_id: int, threshold: float) -> FixCounts:
    """The footer counters in one aggregate query (for htmx responses)."""
    statuses = {status: Count("pk", filter=Q(status=status)) for status in Fix.Status.values}
    row = Fix.objects.filter(revision_id=revision_id).aggregate(
        **statuses,
        bulk=Count(
            "pk",
            filter=Q(status=Fix.Status.PROPOSED, confidence__gte=threshold, verified=True)
            & ~Q(edit_check=Fix.EditCheck.UNVERIFIED),
        ),
        carried=Count("pk", filter=Q(status=Fix.Status.REJECTED, carried_from__isnull=False)),
    )
    counts = FixCounts(**{status: row[status] for status in Fix.Status.values})
    counts.bulk_candidates = row["bulk"]
    counts.carried = row["carried"]
    return counts


def _fix_queryset() -> QuerySet[Fix]:
    return Fix.objects.select_related("reviewer", "author").prefetch_related(
        Prefetch("tool_calls", queryset=ToolCall.objects.order_by("id"))
    )


def fixes_of_revision(revision: Revision) -> tuple[list[Fix], dict[int, list[ToolCall]]]:
    """The fixes of one revision in report order, with their reviewers, and their tool
    calls by fix id (two queries; grouped here rather than by prefetch_related, whose
    per-fix querysets cost more than the rows on a page of a hundred cards)."""
    fixes = list(
        Fix.objects.filter(revision=revision)
        .select_related("reviewer", "author")
        .order_by("offset", "id")
    )
    calls: dict[int, list[ToolCall]] = {}
    for call in ToolCall.objects.filter(fix__revision=revision).order_by("id"):
        if call.fix_id is not None:
            calls.setdefault(call.fix_id, []).append(call)
    return fixes, calls


def fix_with_number(*, fix_id: int, analysis: Analysis) -> tuple[Fix, int]:
    """One fix (with its revision and the number of the revision it was applied in) and its
    number on its revision's list of cards."""
    fix = (
        _fix_queryset()
        .select_related("revision")
        .annotate(applied_in_number=F("applied_in__number"))
        .get(pk=fix_id, revision__analysis=analysis)
    )
    number = (
        Fix.objects.filter(revision_id=fix.revision_id)
        .filter(Q(offset__lt=fix.offset) | Q(offset=fix.offset, id__lt=fix.pk))
        .count()
        + 1
    )
    return fix, number


def get_fix_for_analysis(*, analysis: Analysis, fix_id: int) -> Fix | None:
    return Fix.objects.filter(pk=fix_id, revision__analysis=analysis).first()


# ---------------------------------------------------------------- review page


def review_analysis_queryset() -> QuerySet[Analysis]:
    return Analysis.objects.select_related("claimed_by", "submitter", "pipeline").annotate(
        evidence_count=_count(Evidence), audit_count=_count(AuditEvent)
    )


# What the header and the buttons need of an attempt; the attempts tab loads them whole.
_ATTEMPT_STATE_FIELDS = (
    "id",
    "analysis_id",
    "revision_id",
    "number",
    "loop_kind",
    "status",
    "decision",
    "confidence",
    "checks",
    "check_reasons",
    "issues",
    "timings",
    "error",
    "queued_at",
    "started_at",
    "finished_at",
)


def revisions_of(analysis: Analysis, *, bodies: bool) -> list[Revision]:
    revisions = Revision.objects.filter(analysis=analysis).order_by("number")
    return list(revisions if bodies else revisions.defer("body"))


def attempts_of(analysis: Analysis, *, full: bool) -> list[Attempt]:
    """The analysis' attempts in order, each with ``llm_status`` and ``llm_error`` (the LLM
    path's outcome, read out of its ``llm`` record by the database)."""
    attempts = (
        Attempt.objects.filter(analysis=analysis)
        .annotate(llm_status=KT("llm__status"), llm_error=KT("llm__error"))
        .order_by("number")
    )
    return list(attempts if full else attempts.only(*_ATTEMPT_STATE_FIELDS))


def revision_body(*, analysis: Analysis, number: int) -> str | None:
    return (
        Revision.objects.filter(analysis=analysis, number=number)
        .values_list("body", flat=True)
        .first()
    )


def findings_of(attempt: Attempt) -> list[Finding]:
    return list(Finding.objects.filter(attempt=attempt).order_by("start", "id"))


def evidence_of(analysis: Analysis) -> list[Evidence]:
    return list(Evidence.objects.filter(analysis=analysis).order_by("id"))


def audit_events_of(analysis: Analysis) -> QuerySet[AuditEvent]:
    """Newest first, with their actors."""
    return (
        AuditEvent.objects.filter(analysis=analysis)
        .select_related("actor")
        .order_by("-created_at", "-id")
    )


FINAL_ACTIONS = {
    Analysis.Status.APPROVED: AuditEvent.Action.APPROVED,
    Analysis.Status.REJECTED: AuditEvent.Action.REJECTED,
    Analysis.Status.FAILED: AuditEvent.Action.FAILED,
}


def final_event_of(analysis: Analysis) -> AuditEvent | None:
    """The audit record of a closed analysis' last word (sign-off, reject, failure): who,
    when, why. No query for an open analysis."""
    action = FINAL_ACTIONS.get(Analysis.Status(analysis.status)) if not analysis.is_open else None
    if action is None:
        return None
    return (
        AuditEvent.objects.filter(analysis=analysis, action=action)
        .select_related("actor")
        .order_by("-created_at", "-id")
        .first()
    )


# ---------------------------------------------------------------- the queue


@dataclass(frozen=True)
class QueueState:
    queued: int
    oldest_wait_seconds: float
    stalled: bool


def queue_state(*, now: datetime | None = None) -> QueueState:
    """How many attempts wait, for how long, and whether workers have stopped taking them.

    Stalled: attempts are queued, the oldest has waited longer than
    ``REDLINE_QUEUE_STALL_SECONDS``, and no attempt was started within that time. An empty
    queue, or a long one whose workers keep starting attempts, is healthy; a queue nobody
    takes from is not (every worker dead, or cut off from the broker). ``/readyz`` and the
    ``redline_queue_stalled`` metric report it."""
    now = now or timezone.now()
    window = timedelta(seconds=settings.REDLINE_QUEUE_STALL_SECONDS)
    waiting = Attempt.objects.filter(status=Attempt.Status.QUEUED).aggregate(
        oldest=Min("queued_at")
    )
    oldest: datetime | None = waiting["oldest"]
    if oldest is None:
        return QueueState(queued=0, oldest_wait_seconds=0.0, stalled=False)
    queued = Attempt.objects.filter(status=Attempt.Status.QUEUED).count()
    wait = (now - oldest).total_seconds()
    stalled = False
    if oldest < now - window:
        # Any start within the window means some worker is taking work (validation_attempt_
        # started_idx answers this without reading the table).
        stalled = not Attempt.objects.filter(started_at__gte=now - window).exists()
    return QueueState(queued=queued, oldest_wait_seconds=wait, stalled=stalled)
