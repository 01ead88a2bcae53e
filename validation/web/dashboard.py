"""The dashboard: how validation is going, for reviewers and admins.

``dashboard_data`` reads the numbers (JSON the page's charts are drawn from, by
static/js/dashboard.js); the two views are thin.
"""

from __future__ import annotations

import statistics
from datetime import timedelta
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Min, OuterRef, Q, Subquery
from django.db.models.functions import TruncDate
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from analyses.models import Analysis
from validation.models import Attempt, AuditEvent, Fix
from validation.permissions import require_reviewer
from validation.selectors import pipeline_choices

DAYS = 30
OLDEST = 10
_DECIDED = [Fix.Status.ACCEPTED, Fix.Status.APPLIED, Fix.Status.REJECTED]


def _acceptance(group: str, pipeline: str) -> list[dict[str, Any]]:
    fixes = Fix.objects.filter(status__in=_DECIDED)
    if pipeline:
        fixes = fixes.filter(revision__analysis__pipeline__slug=pipeline)
    rows = (
        fixes
        # A rejection carried into a later revision is the same review: counted once.
        .exclude(status=Fix.Status.REJECTED, carried_from__isnull=False)
        .values(group)
        .annotate(
            accepted=Count("id", filter=~Q(status=Fix.Status.REJECTED)),
            rejected=Count("id", filter=Q(status=Fix.Status.REJECTED)),
        )
        .order_by(group)
    )
    return [
        {
            "label": row[group],
            "accepted": row["accepted"],
            "rejected": row["rejected"],
            "rate": row["accepted"] / (row["accepted"] + row["rejected"]),
        }
        for row in rows
    ]


def dashboard_data(*, now: Any = None, pipeline: str = "") -> dict[str, Any]:
    """The dashboard's numbers, of one pipeline's analyses when `pipeline` (a slug) is given."""
    now = now or timezone.now()
    since = now - timedelta(days=DAYS)
    analyses = Analysis.objects.all()
    done = Attempt.objects.filter(status=Attempt.Status.DONE)
    if pipeline:
        analyses = analyses.filter(pipeline__slug=pipeline)
        done = done.filter(analysis__pipeline__slug=pipeline)
    per_day: dict[str, dict[str, int]] = {}
    for row in (
        done.filter(finished_at__gte=since)
        .annotate(day=TruncDate("finished_at"))
        .values("day", "decision")
        .annotate(n=Count("id"))
        .order_by("day")
    ):
        per_day.setdefault(row["day"].isoformat(), {})[row["decision"]] = row["n"]
    buckets = [0] * 10
    for confidence in done.exclude(confidence__isnull=True).values_list("confidence", flat=True):
        buckets[min(int((confidence or 0.0) * 10), 9)] += 1
    approvals = AuditEvent.objects.filter(
        analysis=OuterRef("pk"), action=AuditEvent.Action.APPROVED
    ).order_by("id")
    approved = analyses.filter(status=Analysis.Status.APPROVED).annotate(
        approved_at=Subquery(approvals.values("created_at")[:1])
    )
    hours = [
        (row.approved_at - row.created_at).total_seconds() / 3600
        for row in approved.only("created_at")
        if row.approved_at
    ]
    loops = (
        analyses.values("status", "revise_loops", "retry_loops")
        .annotate(n=Count("id"))
        .order_by("status", "revise_loops", "retry_loops")
    )
    waiting = (
        analyses.filter(status__in=[Analysis.Status.VALIDATING, Analysis.Status.IN_REVIEW])
        .annotate(since=Min("revisions__created_at"))
        .order_by("created_at")[:OLDEST]
    )
    return {
        "decisions_by_day": [{"day": day, **counts} for day, counts in per_day.items()],
        "confidence_histogram": [
            {"label": f"{i / 10:.1f}-{(i + 1) / 10:.1f}", "count": n} for i, n in enumerate(buckets)
        ],
        "fix_acceptance_by_origin": _acceptance("origin", pipeline),
        "fix_acceptance_by_kind": _acceptance("kind", pipeline),
        "loop_outcomes": [
            {
                "label": f"{row['status']} · REVISE {row['revise_loops']} · RETRY "
                f"{row['retry_loops']}",
                "count": row["n"],
            }
            for row in loops
        ],
        "median_hours_to_approval": statistics.median(hours) if hours else None,
        "approved": len(hours),
        "oldest_waiting": [
            {
                "id": analysis.pk,
                "title": str(analysis),
                "status": analysis.status,
                "age_hours": (now - analysis.created_at).total_seconds() / 3600,
                "url": reverse("analysis_review", args=[analysis.pk]),
            }
            for analysis in waiting
        ],
    }


@require_GET
@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    require_reviewer(request)
    pipeline = _pipeline_param(request)
    context = {"days": DAYS, "pipeline": pipeline, "pipeline_choices": pipeline_choices()}
    return render(request, "validation/dashboard.html", context)


@require_GET
@login_required
def dashboard_json(request: HttpRequest) -> JsonResponse:
    require_reviewer(request)
    return JsonResponse(dashboard_data(pipeline=_pipeline_param(request)))


def _pipeline_param(request: HttpRequest) -> str:
    return request.GET.get("pipeline", "").strip()[:50]
