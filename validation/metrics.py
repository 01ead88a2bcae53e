"""Prometheus metrics. Two kinds:

- counted where they happen, in this process (attempt duration, API requests by status):
  ``prometheus_client`` metrics, which in multiprocess mode (PROMETHEUS_MULTIPROC_DIR set, as
  under gunicorn and Celery) each process writes to files the scrape aggregates;
- read from the database at scrape time (attempts by decision, LLM calls and retries, retry
  error categories, fixes by state, queue depth, the oldest queued age, whether the queue is
  stalled): the database is the source of truth, so every web process on every host reports
  the same totals.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings
from django.db.models import Count
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from validation.models import Attempt, Fix, LLMCall
from validation.selectors import queue_state

ATTEMPT_SECONDS = Histogram(
    "redline_attempt_duration_seconds",
    "Time the validation engine took for one attempt.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
API_REQUESTS = Counter(
    "redline_api_requests", "REST API requests by method and status.", ["method", "status"]
)


class DatabaseCollector(Collector):
    """Totals read from the database at scrape time."""

    def collect(self) -> Iterator[Metric]:
        attempts = CounterMetricFamily(
            "redline_attempts",
            "Validation attempts by status and decision.",
            labels=["status", "decision"],
        )
        rows = Attempt.objects.values_list("status", "decision").annotate(n=Count("id"))
        for status, decision, count in rows.order_by():
            attempts.add_metric([status, decision or "none"], count)
        yield attempts

        fixes = CounterMetricFamily(
            "redline_fixes", "Fix proposals by state and origin.", labels=["status", "origin"]
        )
        for status, origin, count in (
            Fix.objects.values_list("status", "origin").annotate(n=Count("id")).order_by()
        ):
            fixes.add_metric([status, origin], count)
        yield fixes
        reviewed = CounterMetricFamily(
            "redline_fixes_reviewed", "Fixes a person accepted or rejected.", labels=["decision"]
        )
        reviewed.add_metric(
            ["accepted"],
            Fix.objects.filter(status__in=[Fix.Status.ACCEPTED, Fix.Status.APPLIED]).count(),
        )
        # A rejection carried into a later revision is the same review: counted once.
        rejected = Fix.objects.filter(status=Fix.Status.REJECTED, carried_from__isnull=True)
        reviewed.add_metric(["rejected"], rejected.count())
        yield reviewed

        llm = CounterMetricFamily(
            "redline_llm_calls", "LLM calls by purpose and outcome.", labels=["purpose", "outcome"]
        )
        categories = CounterMetricFamily(
            "redline_llm_retry_errors",
            "Failed LLM calls (each one retried or given up) by error category.",
            labels=["category"],
        )
        by_category: dict[str, int] = {}
        for purpose, error, count in (
            LLMCall.objects.values_list("purpose", "error").annotate(n=Count("id")).order_by()
        ):
            llm.add_metric([purpose, "error" if error else "ok"], count)
            if error:
                category = error.split(":", 1)[0].strip()[:40] or "unknown"
                by_category[category] = by_category.get(category, 0) + count
        for category, count in sorted(by_category.items()):
            categories.add_metric([category], count)
        yield llm
        yield categories
        retries = CounterMetricFamily(
            "redline_llm_retries", "LLM calls beyond the first of their purpose in an attempt."
        )
        per_attempt = (
            LLMCall.objects.values("attempt_id", "purpose").annotate(n=Count("id")).order_by()
        )
        retries.add_metric([], sum(max(row["n"] - 1, 0) for row in per_attempt))
        yield retries

        state = queue_state()
        depth = GaugeMetricFamily("redline_queue_depth", "Attempts waiting for a worker.")
        depth.add_metric([], state.queued)
        yield depth
        age = GaugeMetricFamily(
            "redline_queue_oldest_age_seconds", "How long the oldest queued attempt has waited."
        )
        age.add_metric([], state.oldest_wait_seconds)
        yield age
        stalled = GaugeMetricFamily(
            "redline_queue_stalled",
            "1 while attempts are queued and no worker has started any for "
            "REDLINE_QUEUE_STALL_SECONDS; 0 otherwise (an empty queue included).",
        )
        stalled.add_metric([], 1.0 if state.stalled else 0.0)
        yield stalled


def render() -> bytes:
    """The text exposition of every metric: this process's (or, in multiprocess mode, every
    process's on this host) and the database's."""
    if settings.PROMETHEUS_MULTIPROC_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry()
        for collector in list(REGISTRY._collector_to_names):
            registry.register(collector)
    registry.register(DatabaseCollector())
    return generate_latest(registry)


def mark_process_dead(pid: int) -> None:
    """Call when a gunicorn or Celery child exits, so its live gauges are dropped."""
    if settings.PROMETHEUS_MULTIPROC_DIR:
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
