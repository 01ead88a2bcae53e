"""Review-screen benchmark: server time of the review page and of an accept, and the number
of SQL queries for 10 versus 100 fixes.

Run from the repository root:  .venv/bin/python bench/review_bench.py [--runs N]

It uses a throwaway SQLite database (var/bench.sqlite3, recreated each run) and Django's test
client, so the figures are server time without network or browser. Targets (issue 20): the
page at 100 fixes <= 40 ms and <= 12 queries, not growing with the number of fixes; an
accept <= 8 ms and <= 6 queries. Queries count everything the request runs, the session and
the user included; the first accept also claims the analysis (an UPDATE and its audit
event), later ones find it claimed. The accept is timed with an htmx request, as the page
sends it; each is undone before the next.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DB = ROOT / "var" / "bench.sqlite3"

PAGE_TARGET_MS = 40.0
ACCEPT_TARGET_MS = 8.0
QUERY_TARGET = 12
ACCEPT_QUERY_TARGET = 6


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    DB.parent.mkdir(exist_ok=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{DB}{suffix}").unlink(missing_ok=True)
    os.environ["REDLINE_DEBUG"] = "1"
    os.environ["DATABASE_URL"] = f"sqlite:///{DB}"
    os.environ.setdefault("REDLINE_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
    os.environ.setdefault("REDLINE_LOG_LEVEL", "WARNING")
    os.environ["REDLINE_TASKS_EAGER"] = "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "project.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


def build(fix_count: int, reviewer: Any) -> Any:
    """An analysis in review: one validated revision with `fix_count` findings and fixes,
    two tool calls and one evidence excerpt per fix."""
    from analyses.models import Analysis, Evidence, Revision
    from validation.models import Attempt, Finding, Fix, ToolCall

    lines = ["# Segment review\n"]
    lines += [f"Segment {i} revenue was ${i + 1000}.5M in the year.\n" for i in range(fix_count)]
    body = "\n".join(lines)
    analysis = Analysis.objects.create(
        title=f"Bench {fix_count} fixes", query="Segment revenue?", status="in_review"
    )
    Evidence.objects.create(
        analysis=analysis,
        source_ref="segments",
        content_json={f"segment_{i}": i + 1000.7 for i in range(fix_count)},
    )
    revision = Revision.objects.create(analysis=analysis, number=1, body=body)
    attempt = Attempt.objects.create(
        analysis=analysis,
        revision=revision,
        number=1,
        status="done",
        decision="REVISE",
        confidence=0.6,
        checks={"claims_supported": False, "no_hallucinations": True},
        timings={"total_ms": 12.0},
        markdown="## 7. Validation (Attempt 1)\n\n**Decision:** REVISE\n",
    )
    for i in range(fix_count):
        find = f"${i + 1000}.5M"
        start = body.index(find)
        finding = Finding.objects.create(
            attempt=attempt,
            check_name="claims_supported",
            kind="close_but_wrong",
            severity="major",
            message=f"{find} is close to segment_{i} but not equal.",
            start=start,
            end=start + len(find),
            text=find,
        )
        fix = Fix.objects.create(
            attempt=attempt,
            revision=revision,
            finding=finding,
            kind="close_but_wrong",
            find=find,
            replace=f"${i + 1000}.7M",
            proposed_replace=f"${i + 1000}.7M",
            verified_with=f"evidence: segment_{i} = {i + 1000}.7",
            confidence=0.5 + (i % 50) / 100,
            offset=start,
            evidence=[{"source_ref": "segments", "label": f"segment_{i}", "excerpt": "…"}],
        )
        ToolCall.objects.create(
            attempt=attempt,
            fix=fix,
            tool="evidence_search",
            input={"query": f"segment {i}"},
            output=f"segment_{i}: {i + 1000}.7",
        )
        ToolCall.objects.create(
            attempt=attempt,
            fix=fix,
            tool="calculator",
            input={"expression": f"{i + 1000}.7 * 1"},
            output=f"{i + 1000}.7",
        )
    return analysis


def timed(call: Any, cpu: list[float] | None = None) -> tuple[float, Any]:
    """Wall milliseconds of `call` (and its CPU milliseconds appended to `cpu`: the server's
    own work, without the disk's fsync waits or other processes' turns on the cores)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    result = call()
    if cpu is not None:
        cpu.append((time.process_time() - start_cpu) * 1000)
    return (time.perf_counter() - start) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="timed requests per measure")
    args = parser.parse_args()
    setup_django()

    from django.contrib.auth.models import Group, User
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from validation.models import Fix

    reviewer = User.objects.create_user("bench-reviewer", password=None)
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    client = Client()
    client.force_login(reviewer)
    hx: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}

    results: dict[int, dict[str, float]] = {}
    for fix_count in (10, 100):
        analysis = build(fix_count, reviewer)
        page_url = reverse("analysis_review", args=[analysis.pk])
        fix = Fix.objects.filter(revision__analysis=analysis).order_by("offset").first()
        assert fix is not None
        accept_url = reverse("fix_accept", args=[analysis.pk, fix.pk])
        undo_url = reverse("fix_undo", args=[analysis.pk, fix.pk])

        for _ in range(3):  # warm up: templates, content types, policy row
            client.get(page_url)
        reset_queries()  # a full query log (9,000 entries: migrate fills it) captures nothing
        with CaptureQueriesContext(connection) as page_queries:
            response = client.get(page_url)
        assert response.status_code == 200, response.status_code
        page_query_count = len(page_queries.captured_queries)  # now: the log moves on
        assert response.content.count(b'<article id="fix-') == fix_count

        page_ms: list[float] = []
        page_cpu: list[float] = []
        for _ in range(args.runs):
            ms, response = timed(lambda url=page_url: client.get(url), page_cpu)
            assert response.status_code == 200
            page_ms.append(ms)

        accept_ms: list[float] = []
        accept_cpu: list[float] = []
        accept_query_counts = []
        for run in range(args.runs + 2):
            if run < 2:  # the first claims the analysis, the second finds it claimed
                reset_queries()
                with CaptureQueriesContext(connection) as accept_queries:
                    response = client.post(accept_url, **hx)
                accept_query_counts.append(len(accept_queries.captured_queries))
            else:
                ms, response = timed(lambda url=accept_url: client.post(url, **hx), accept_cpu)
                accept_ms.append(ms)
            assert response.status_code == 200, response.content[:300]
            assert client.post(undo_url, **hx).status_code == 200

        results[fix_count] = {
            "page_ms": statistics.median(page_ms),
            "page_cpu": statistics.median(page_cpu),
            "page_queries": page_query_count,
            "accept_ms": statistics.median(accept_ms),
            "accept_cpu": statistics.median(accept_cpu),
            "first_accept_queries": accept_query_counts[0],
            "accept_queries": accept_query_counts[1],
        }

    print(f"review page benchmark ({args.runs} runs each, SQLite, django.test.Client)")
    header = (
        "fixes",
        "page median",
        "page queries",
        "accept median",
        "accept queries",
        "(first, claiming)",
    )
    widths = (6, 12, 13, 14, 15, 18)
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)))
    for fix_count, row in results.items():
        print(
            f"{fix_count:>6} {row['page_ms']:>9.1f} ms {row['page_queries']:>13} "
            f"{row['accept_ms']:>11.1f} ms {row['accept_queries']:>15} "
            f"{row['first_accept_queries']:>18}"
        )
    small, large = results[10], results[100]
    print(
        "CPU medians (the process' own time, without fsync waits): "
        + "; ".join(
            f"{n} fixes: page {row['page_cpu']:.1f} ms, accept {row['accept_cpu']:.1f} ms"
            for n, row in results.items()
        )
    )
    print(
        f"page time ratio 100/10 fixes: {large['page_ms'] / small['page_ms']:.2f}; "
        f"page queries 10 vs 100: {small['page_queries']} vs {large['page_queries']} "
        f"({'constant' if small['page_queries'] == large['page_queries'] else 'GROWS'})"
    )
    verdicts = [
        ("page (100 fixes)", large["page_ms"], PAGE_TARGET_MS, "ms"),
        ("accept (100 fixes)", large["accept_ms"], ACCEPT_TARGET_MS, "ms"),
        ("queries per page", large["page_queries"], QUERY_TARGET, ""),
        ("queries per accept", large["accept_queries"], ACCEPT_QUERY_TARGET, ""),
    ]
    for label, value, target, unit in verdicts:
        ok = "ok" if value <= target else "OVER TARGET"
        print(f"target {label}: {value:.1f}{unit} <= {target:g}{unit}: {ok}")


if __name__ == "__main__":
    main()
