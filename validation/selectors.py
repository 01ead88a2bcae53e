"""Reads for the queue and the review screen.

The review page runs a fixed number of queries however many fixes, findings or tool calls
an attempt has: every relation the templates touch is loaded here, up front.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from analyses.models import Analysis, Evidence, Revision
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy, ToolCall
from validation.permissions import analyses_for_user
from validation.rendering import (
    DiffLine,
    Highlight,
    fix_diff,
    line_diff,
    render_markdown,
    render_report,
    safe_url,
)

QUEUE_PAGE_SIZE = 25

CHECK_LABELS: dict[str, str] = {
    "claims_supported": "claims supported",
    "no_hallucinations": "no hallucinations",
    "query_addressed": "query addressed",
    "coherent_format": "coherent format",
    "source_metadata_present": "source metadata",
}

TABS = ("report", "evidence", "revisions", "attempts", "audit")

OPEN_ATTEMPT = (Attempt.Status.QUEUED, Attempt.Status.RUNNING)


# ---------------------------------------------------------------- shared bits


@dataclass(frozen=True)
class Claim:
    holder: str
    mine: bool
    minutes_left: int

    @property
    def label(self) -> str:
        who = "you" if self.mine else self.holder
        return f"claimed by {who} · {self.minutes_left} min left"


def claim_of(analysis: Analysis, user: Any, now: datetime | None = None) -> Claim | None:
    """The live claim on `analysis`, or None when unclaimed or expired. Needs
    ``claimed_by`` selected with the analysis (no query here)."""
    if analysis.claimed_by_id is None or analysis.claimed_until is None:
        return None
    now = now or timezone.now()
    if analysis.claimed_until <= now:
        return None
    seconds = (analysis.claimed_until - now).total_seconds()
    mine = analysis.claimed_by_id == getattr(user, "pk", None)
    if mine:
        holder = user.get_username()
    else:
        holder = analysis.claimed_by.get_username() if analysis.claimed_by else "someone"
    return Claim(
        holder=holder,
        mine=mine,
        minutes_left=max(1, int((seconds + 59) // 60)),
    )


def _count(model: type[Any], fk: str = "analysis") -> Coalesce:
    """A correlated COUNT subquery, so the counts ride along with the analysis row."""
    counted = (
        model.objects.filter(**{fk: OuterRef("pk")})
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

    @classmethod
    def from_query(cls, params: Any) -> QueueFilters:
        """Filters from a GET query dict; unknown values are ignored, not errors."""
        status = params.get("status", "")
        decision = params.get("decision", "")
        return cls(
            status=status if status in Analysis.Status.values else "",
            decision=decision if decision in Attempt.Decision.values else "",
            mine=params.get("mine") in ("1", "on", "true"),
            q=params.get("q", "").strip()[:200],
        )

    def as_params(self, **overrides: Any) -> dict[str, str]:
        values = {"status": self.status, "decision": self.decision, "q": self.q}
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
    return queryset.select_related("claimed_by").annotate(
        verdict=_latest_attempt("decision", done_only=True),
        verdict_confidence=_latest_attempt("confidence", done_only=True),
        attempt_status=_latest_attempt("status"),
        attempt_number=_latest_attempt("number"),
    )


def queue_analyses(
    *, user: AbstractBaseUser | AnonymousUser, filters: QueueFilters
) -> QuerySet[Analysis]:
    analyses = _queue_base(user=user, filters=filters)
    if filters.status:
        analyses = analyses.filter(status=filters.status)
    return queue_annotate(analyses).order_by("-created_at", "-id")


def _queue_base(
    *, user: AbstractBaseUser | AnonymousUser, filters: QueueFilters
) -> QuerySet[Analysis]:
    analyses = analyses_for_user(user)
    if filters.q:
        analyses = analyses.filter(Q(title__icontains=filters.q) | Q(query__icontains=filters.q))
    if filters.mine:
        analyses = analyses.filter(claimed_by=user, claimed_until__gt=timezone.now())
    if filters.decision:
        analyses = analyses.alias(
            verdict_filter=_latest_attempt("decision", done_only=True)
        ).filter(verdict_filter=filters.decision)
    return analyses


def queue_status_counts(
    *, user: AbstractBaseUser | AnonymousUser, filters: QueueFilters
) -> list[tuple[str, str, int]]:
    """(status, label, count) for every status, under every filter but the status one."""
    rows = (
        _queue_base(user=user, filters=filters).order_by().values("status").annotate(n=Count("pk"))
    )
    counts = {row["status"]: row["n"] for row in rows}
    return [(value, label, counts.get(value, 0)) for value, label in Analysis.Status.choices]


def analysis_queue_row(
    *, analysis_id: int, user: AbstractBaseUser | AnonymousUser
) -> Analysis | None:
    return queue_annotate(analyses_for_user(user)).filter(pk=analysis_id).first()


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


def fix_counts_of(fixes: Sequence[Fix], threshold: float) -> FixCounts:
    counts = FixCounts()
    for fix in fixes:
        setattr(counts, fix.status, getattr(counts, fix.status) + 1)
        if fix.status == Fix.Status.PROPOSED and fix.confidence >= threshold:
            counts.bulk_candidates += 1
    return counts


def fix_counts(*, revision_id: int, threshold: float) -> FixCounts:
    """The footer counters in one aggregate query (for htmx responses)."""
    statuses = {status: Count("pk", filter=Q(status=status)) for status in Fix.Status.values}
    row = Fix.objects.filter(revision_id=revision_id).aggregate(
        **statuses,
        bulk=Count("pk", filter=Q(status=Fix.Status.PROPOSED, confidence__gte=threshold)),
    )
    counts = FixCounts(**{status: row[status] for status in Fix.Status.values})
    counts.bulk_candidates = row["bulk"]
    return counts


@dataclass
class FixCard:
    """Everything one fix card shows."""

    fix: Fix
    number: int
    diff: SafeString
    excerpts: list[dict[str, str]]
    tool_calls: list[ToolCall]
    applied_in_number: int | None = None
    error: str = ""
    urls: dict[str, str] = field(default_factory=dict)

    @property
    def tool_summary(self) -> str:
        counts: dict[str, int] = {}
        for call in self.tool_calls:
            counts[call.tool] = counts.get(call.tool, 0) + 1
        return ", ".join(f"{tool} \u00d7{n}" for tool, n in counts.items())


def _excerpts(raw: Any) -> list[dict[str, str]]:
    items = raw if isinstance(raw, list) else []
    excerpts = []
    for item in items:
        if not isinstance(item, dict):
            continue
        excerpts.append(
            {
                "source_ref": str(item.get("source_ref") or ""),
                "label": str(item.get("label") or ""),
                "excerpt": str(item.get("excerpt") or ""),
                "url": safe_url(item.get("url")),
            }
        )
    return excerpts


FIX_ACTIONS = ("accept", "reject", "edit", "undo")
_PLACEHOLDER = 2_147_483_647


def fix_action_urls(analysis_id: int) -> dict[str, str]:
    """URL patterns of the fix actions with a placeholder id: reversing four URLs per card
    for a hundred cards costs more than rendering them."""
    return {
        action: reverse(f"fix_{action}", args=[analysis_id, _PLACEHOLDER]) for action in FIX_ACTIONS
    }


def _urls_for(fix_id: int, patterns: dict[str, str]) -> dict[str, str]:
    marker = f"/{_PLACEHOLDER}/"
    return {action: url.replace(marker, f"/{fix_id}/") for action, url in patterns.items()}


def fix_card(
    fix: Fix,
    *,
    number: int,
    body: str,
    revision_numbers: dict[int, int],
    url_patterns: dict[str, str],
    error: str = "",
) -> FixCard:
    return FixCard(
        urls=_urls_for(fix.pk, url_patterns),
        fix=fix,
        number=number,
        diff=fix_diff(body, fix.offset, fix.find, fix.replace),
        excerpts=_excerpts(fix.evidence),
        tool_calls=list(fix.tool_calls.all()),
        applied_in_number=revision_numbers.get(fix.applied_in_id) if fix.applied_in_id else None,
        error=error,
    )


def _fix_queryset() -> QuerySet[Fix]:
    return Fix.objects.select_related("reviewer").prefetch_related(
        Prefetch("tool_calls", queryset=ToolCall.objects.order_by("id"))
    )


def fix_card_for(*, fix_id: int, analysis: Analysis, error: str = "") -> FixCard:
    """One card, for an htmx response after an action on it (4 queries)."""
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
    numbers = {fix.applied_in_id: fix.applied_in_number} if fix.applied_in_id else {}
    return fix_card(
        fix,
        number=number,
        body=fix.revision.body,
        revision_numbers=numbers,
        url_patterns=fix_action_urls(analysis.pk),
        error=error,
    )


def get_fix_for_analysis(*, analysis: Analysis, fix_id: int) -> Fix | None:
    return Fix.objects.filter(pk=fix_id, revision__analysis=analysis).first()


# ---------------------------------------------------------------- review page


@dataclass(frozen=True)
class CheckResult:
    name: str
    label: str
    passed: bool


@dataclass(frozen=True)
class FindingGroup:
    check: str
    label: str
    findings: list[Finding]


@dataclass
class ReviewState:
    """What the header, footer and card buttons need: statuses, counts, permissions."""

    analysis: Analysis
    policy: Policy
    revisions: list[Revision]
    current_revision: Revision
    attempts: list[Attempt]
    current_attempt: Attempt | None  # the attempt of the current revision (may be running)
    verdict_attempt: Attempt | None  # the last finished attempt: what the header shows
    fix_revision: Revision | None  # the revision whose fixes the cards show
    counts: FixCounts
    claim: Claim | None
    reviewer: bool

    @property
    def validating(self) -> bool:
        """Validation is queued or running: the page polls its status."""
        return self.current_attempt is not None and self.current_attempt.status in OPEN_ATTEMPT

    @property
    def checks(self) -> list[CheckResult]:
        if self.verdict_attempt is None:
            return []
        raw = self.verdict_attempt.checks if isinstance(self.verdict_attempt.checks, dict) else {}
        return [
            CheckResult(name, label, bool(raw.get(name))) for name, label in CHECK_LABELS.items()
        ]

    @property
    def fixes_are_current(self) -> bool:
        return self.fix_revision is not None and self.fix_revision.pk == self.current_revision.pk

    @property
    def claimed_by_other(self) -> bool:
        return self.claim is not None and not self.claim.mine

    @property
    def can_act(self) -> bool:
        """Fix actions make sense: a reviewer, an analysis in review that nobody else holds,
        fixes of the current revision, no validation in flight. The services have the last
        word; this only decides which buttons to show."""
        return (
            self.reviewer
            and self.analysis.status == Analysis.Status.IN_REVIEW
            and self.fixes_are_current
            and not self.validating
            and not self.claimed_by_other
        )

    @property
    def can_apply(self) -> bool:
        return self.can_act and self.counts.accepted > 0

    @property
    def can_sign_off(self) -> bool:
        """As the sign-off service demands: in review, the latest attempt done, no accepted
        fix waiting to be applied."""
        return (
            self.reviewer
            and self.analysis.status == Analysis.Status.IN_REVIEW
            and self.current_attempt is not None
            and self.current_attempt.status == Attempt.Status.DONE
            and self.counts.accepted == 0
            and not self.claimed_by_other
        )

    @property
    def can_reject(self) -> bool:
        return self.reviewer and self.analysis.is_open and not self.claimed_by_other

    @property
    def can_claim(self) -> bool:
        return self.reviewer and self.analysis.is_open and self.claim is None

    @property
    def can_release(self) -> bool:
        return self.reviewer and self.claim is not None and self.claim.mine

    @property
    def errored(self) -> bool:
        attempt = self.current_attempt
        return attempt is not None and attempt.status == Attempt.Status.ERRORED

    @property
    def validated_ms(self) -> float | None:
        attempt = self.verdict_attempt
        if attempt is None:
            return None
        timings = attempt.timings if isinstance(attempt.timings, dict) else {}
        for key in ("total_ms", "total"):
            value = timings.get(key)
            if isinstance(value, int | float):
                return float(value)
        if attempt.started_at and attempt.finished_at:
            return (attempt.finished_at - attempt.started_at).total_seconds() * 1000
        return None


@dataclass
class ReviewPage(ReviewState):
    cards: list[FixCard] = field(default_factory=list)
    tab: str = "report"
    findings: list[Finding] = field(default_factory=list)
    report_html: SafeString | None = None
    finding_groups: list[FindingGroup] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    audit: list[tuple[AuditEvent, int | None]] = field(default_factory=list)
    diff_a: Revision | None = None
    diff_b: Revision | None = None
    diff_rows: list[DiffLine] = field(default_factory=list)
    attempt_records: list[tuple[Attempt, int, SafeString]] = field(default_factory=list)

    @property
    def evidence_count(self) -> int:
        return int(getattr(self.analysis, "evidence_count", 0))

    @property
    def audit_count(self) -> int:
        return int(getattr(self.analysis, "audit_count", 0))


def review_analysis_queryset() -> QuerySet[Analysis]:
    return Analysis.objects.select_related("claimed_by", "submitter").annotate(
        evidence_count=_count(Evidence), audit_count=_count(AuditEvent)
    )


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
    "timings",
    "error",
    "queued_at",
    "started_at",
    "finished_at",
)


def _state_parts(
    analysis: Analysis, *, bodies: bool, full_attempts: bool
) -> tuple[Policy, list[Revision], list[Attempt], Attempt | None, Attempt | None, Revision | None]:
    policy = Policy.load()
    revisions_qs = Revision.objects.filter(analysis=analysis).order_by("number")
    revisions = list(revisions_qs if bodies else revisions_qs.defer("body"))
    if not revisions:
        raise Revision.DoesNotExist(f"Analysis {analysis.pk} has no revision.")
    attempts_qs = Attempt.objects.filter(analysis=analysis).order_by("number")
    attempts = list(attempts_qs if full_attempts else attempts_qs.only(*_ATTEMPT_STATE_FIELDS))
    current_revision = revisions[-1]
    current_attempt = next((a for a in attempts if a.revision_id == current_revision.pk), None)
    done = [a for a in attempts if a.status == Attempt.Status.DONE]
    verdict_attempt = done[-1] if done else None
    # While the current revision is being validated, the cards show the previous
    # revision's fixes: what was just applied, and what conflicted and why.
    fix_revision: Revision | None = current_revision
    if (current_attempt is None or current_attempt.status in OPEN_ATTEMPT) and len(revisions) > 1:
        fix_revision = revisions[-2]
    return policy, revisions, attempts, current_attempt, verdict_attempt, fix_revision


def review_state(*, analysis: Analysis, user: Any, reviewer: bool) -> ReviewState:
    """The light state for htmx action responses (4 queries)."""
    policy, revisions, attempts, current_attempt, verdict_attempt, fix_revision = _state_parts(
        analysis, bodies=False, full_attempts=False
    )
    counts = (
        fix_counts(revision_id=fix_revision.pk, threshold=policy.fix_confidence_threshold)
        if fix_revision is not None
        else FixCounts()
    )
    return ReviewState(
        analysis=analysis,
        policy=policy,
        revisions=revisions,
        current_revision=revisions[-1],
        attempts=attempts,
        current_attempt=current_attempt,
        verdict_attempt=verdict_attempt,
        fix_revision=fix_revision,
        counts=counts,
        claim=claim_of(analysis, user),
        reviewer=reviewer,
    )


def review_page(
    *,
    analysis: Analysis,
    user: Any,
    reviewer: bool,
    tab: str = "report",
    diff_a: str | None = None,
    diff_b: str | None = None,
) -> ReviewPage:
    """Load the review page of `analysis` (fetched with `review_analysis_queryset`).

    Queries: policy, revisions, attempts, fixes, tool calls, plus one for the tab
    (findings, evidence or audit): constant in the number of fixes and findings.
    """
    tab = tab if tab in TABS else "report"
    policy, revisions, attempts, current_attempt, verdict_attempt, fix_revision = _state_parts(
        analysis, bodies=True, full_attempts=tab == "attempts"
    )
    revision_numbers = {revision.pk: revision.number for revision in revisions}
    fixes: list[Fix] = []
    cards: list[FixCard] = []
    if fix_revision is not None:
        fixes = list(_fix_queryset().filter(revision=fix_revision).order_by("offset", "id"))
        patterns = fix_action_urls(analysis.pk)
        cards = [
            fix_card(
                fix,
                number=index,
                body=fix_revision.body,
                revision_numbers=revision_numbers,
                url_patterns=patterns,
            )
            for index, fix in enumerate(fixes, start=1)
        ]
    page = ReviewPage(
        analysis=analysis,
        policy=policy,
        revisions=revisions,
        current_revision=revisions[-1],
        attempts=attempts,
        current_attempt=current_attempt,
        verdict_attempt=verdict_attempt,
        fix_revision=fix_revision,
        counts=fix_counts_of(fixes, policy.fix_confidence_threshold),
        claim=claim_of(analysis, user),
        reviewer=reviewer,
        cards=cards,
        tab=tab,
    )
    if tab == "report":
        _load_report(page)
    elif tab == "evidence":
        page.evidence = list(Evidence.objects.filter(analysis=analysis).order_by("id"))
    elif tab == "revisions":
        _load_revision_diff(page, diff_a, diff_b)
    elif tab == "attempts":
        page.attempt_records = [
            (
                attempt,
                revision_numbers.get(attempt.revision_id, 0),
                render_markdown(attempt.markdown),
            )
            for attempt in reversed(attempts)
        ]
    elif tab == "audit":
        events = (
            AuditEvent.objects.filter(analysis=analysis)
            .select_related("actor")
            .order_by("-created_at", "-id")
        )
        page.audit = [(event, revision_numbers.get(event.revision_id or 0)) for event in events]
    return page


def _load_report(page: ReviewPage) -> None:
    attempt = page.current_attempt
    body = page.current_revision.body
    if attempt is not None and attempt.status == Attempt.Status.DONE:
        page.findings = list(Finding.objects.filter(attempt=attempt).order_by("start", "id"))
    highlights = [
        Highlight(id=f.pk, start=f.start, end=f.end, kind=f.kind, message=f.message)
        for f in page.findings
        # A span that no longer holds its text (should not happen) is listed, not marked.
        if f.end > f.start and (not f.text or body[f.start : f.end] == f.text)
    ]
    page.report_html = render_report(body, highlights)
    groups = []
    for name, label in CHECK_LABELS.items():
        members = [f for f in page.findings if f.check_name == name]
        if members:
            groups.append(FindingGroup(name, label, members))
    page.finding_groups = groups


def _pick_revision(revisions: Sequence[Revision], raw: str | None) -> Revision | None:
    try:
        number = int(raw or "")
    except ValueError:
        return None
    return next((r for r in revisions if r.number == number), None)


def _load_revision_diff(page: ReviewPage, raw_a: str | None, raw_b: str | None) -> None:
    revisions = page.revisions
    b = _pick_revision(revisions, raw_b) or revisions[-1]
    default_a = revisions[-2] if len(revisions) > 1 else revisions[0]
    a = _pick_revision(revisions, raw_a) or default_a
    page.diff_a, page.diff_b = a, b
    page.diff_rows = line_diff(a.body, b.body)


def pretty_json(value: Any) -> str:
    """Evidence content for display: JSON pretty-printed, text as is (templates escape)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
