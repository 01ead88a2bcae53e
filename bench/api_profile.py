"""Where one ingest and one validation spend their time: server time and SQL queries.

Run from the repository root against a database of its own (it migrates it and adds rows)::

    createdb -h 127.0.0.1 -U postgres redline_api_profile
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/redline_api_profile \\
        .venv/bin/python bench/api_profile.py [--count 50] [--queries] [--cprofile]
    dropdb -h 127.0.0.1 -U postgres redline_api_profile

Ingest: `--count` TAT-QA bundles POSTed through Django's test client to /api/v1/analyses
(the whole request: middleware, token, parse, writes, response), median time and queries per
request. Validation: the same analyses' first attempts run by ``attempt_run`` in this process
(what a Celery worker does), split into the engine and everything else (claim, reads,
persistence). `--queries` prints the SQL of one of each; `--cprofile` the top functions.
It prints figures; nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "evaldata" / "tatqa-dev.jsonl"


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("REDLINE_SECRET_KEY", "profile-only-secret-key-0123456789abcdef")
    os.environ.setdefault("REDLINE_HTTPS", "0")
    os.environ.setdefault("REDLINE_ALLOWED_HOSTS", "testserver,127.0.0.1")
    os.environ.setdefault("REDLINE_LOG_LEVEL", "WARNING")
    os.environ["REDLINE_TASKS_EAGER"] = "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "project.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


def payloads(count: int, run: str) -> list[bytes]:
    out = []
    with DATA.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number == count:
                break
            bundle = json.loads(line)["bundle"]
            bundle["external_id"] = f"{run}-{bundle.pop('id')}"
            out.append(json.dumps(bundle).encode("utf-8"))
    return out


class Measured:
    """Wall time, CPU of this process and SQL queries of each call; one cProfile over all."""

    def __init__(self, profile: bool) -> None:
        self.profile = profile
        self.profiler = cProfile.Profile()
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.queries: list[int] = []
        self.last_queries: list[dict[str, Any]] = []

    def record(self, action: Callable[[], Any]) -> Any:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            start, start_cpu = time.perf_counter(), time.process_time()
            if self.profile:
                self.profiler.enable()
            result = action()
            self.profiler.disable()
            self.times.append((time.perf_counter() - start) * 1000)
            self.cpu.append((time.process_time() - start_cpu) * 1000)
        self.queries.append(len(captured.captured_queries))
        self.last_queries = captured.captured_queries
        return result

    def median_ms(self) -> float:
        return statistics.median(self.times)

    def timing(self) -> str:
        return (
            f"median {self.median_ms():.2f} ms "
            f"(CPU of this process {statistics.median(self.cpu):.2f} ms)"
        )

    def query_counts(self) -> str:
        counts = self.queries
        return f"{statistics.median(counts):.0f} (min {min(counts)}, max {max(counts)})"


def show_queries(title: str, queries: list[dict[str, Any]]) -> None:
    print(f"\n{title}: {len(queries)} queries")
    for query in queries:
        print(f"  {query['time']:>6}s  {query['sql'][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--queries", action="store_true", help="print the SQL of one of each")
    parser.add_argument("--cprofile", action="store_true", help="print the top functions")
    parser.add_argument("--sort", default="cumulative", help="cProfile order (tottime, ...)")
    parser.add_argument("--only", help="cProfile: only functions whose path matches this regex")
    args = parser.parse_args()
    setup_django()
    from django.contrib.auth.models import User
    from django.db.models import Count
    from django.test import Client

    from validation import services
    from validation.engine import pipeline
    from validation.models import Attempt, Policy
    from validation.services import jobs

    jobs.send_validation = lambda revision_id: None  # no broker
    policy = Policy.load()
    policy.allow_validator_only_approval, policy.citations = True, "none"
    policy.save()
    user, _ = User.objects.get_or_create(username="bench-profile")
    _, raw = services.api_token_create(user=user, scope="write")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    bodies = payloads(args.count + 1, f"profile-{int(time.time())}")

    def ingest(body: bytes) -> int:
        response = client.post("/api/v1/analyses", body, content_type="application/json")
        assert response.status_code == 201, response.content[:300]
        return int(json.loads(response.content)["id"])

    ids = [ingest(bodies[0])]  # warm-up (imports, schema, first connection)
    ingests = Measured(args.cprofile)
    for body in bodies[1:]:
        ids.append(ingests.record(partial(ingest, body)))
    print(
        f"ingest ({len(ingests.times)} requests, test client): {ingests.timing()}, "
        f"queries {ingests.query_counts()}"
    )
    if args.queries:
        show_queries("one ingest", ingests.last_queries)
    if args.cprofile:
        pstats.Stats(ingests.profiler).sort_stats(args.sort).print_stats(args.only or "", 25)

    # Validation: what the task body does, with the engine timed on its own.
    engine_ms: list[float] = []
    real_validate = pipeline.validate

    def timed_validate(*a: Any, **k: Any) -> Any:
        start = time.perf_counter()
        try:
            return real_validate(*a, **k)
        finally:
            engine_ms.append((time.perf_counter() - start) * 1000)

    pipeline.validate = timed_validate
    revisions = list(
        Attempt.objects.filter(analysis_id__in=ids)
        .order_by("id")
        .values_list("revision_id", flat=True)
    )
    services.attempt_run(revision_id=revisions[0])  # warm-up (engine imports)
    engine_ms.clear()
    attempts = Measured(args.cprofile)
    for revision_id in revisions[1:]:
        attempts.record(partial(services.attempt_run, revision_id=revision_id))
    engine = statistics.median(engine_ms)
    total = attempts.median_ms()
    decisions = dict(
        Attempt.objects.filter(revision_id__in=revisions)
        .values_list("decision")
        .annotate(n=Count("id"))
    )
    print(
        f"validation ({len(attempts.times)} attempts): {attempts.timing()}, of which engine "
        f"{engine:.2f} ms, the rest {total - engine:.2f} ms; queries "
        f"{attempts.query_counts()}; decisions {decisions}"
    )
    if args.queries:
        show_queries("one validation", attempts.last_queries)
    if args.cprofile:
        pstats.Stats(attempts.profiler).sort_stats(args.sort).print_stats(args.only or "", 30)


if __name__ == "__main__":
    main()
