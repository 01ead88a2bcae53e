"""Fault bench (issue 27): the production stack under steady ingest, through three faults, with
no person in the loop. Not part of the test suite (it takes about five minutes).

Run from the repository root:  .venv/bin/python bench/faults.py [--ingests N] [--rate R]

The stack is tests/support/stack.py's: gunicorn, a Celery worker and beat as deploy/ runs
them, a PostgreSQL, a broker Redis and a rate-cache Redis of the bench's own (initdb and
redis-server in temporary directories, on free loopback ports; REDLINE_TEST_PORTS keeps them
in a range). The worker is supervised as deploy/redline-worker.service would supervise it
(``Restart=always``, ``RestartSec=2``: started again two seconds after it exits).

While N ingests (1,500) go in at R a second (8), at a fifth, two fifths and three fifths of
the run: the worker is killed (kill -9 of its process group), Redis is shut down without
saving and started again a second later, PostgreSQL is stopped (fast) and started again five
seconds later. Then the bench waits until every acknowledged analysis is validated, or until
the recovery limit (the lease and two sweeps past the last fault) has passed, and counts:

- acknowledged: 201 answers; refused: JSON 503 answers (the client is told to retry);
  other answers (an HTML page, no answer at all) are listed;
- lost: acknowledged analyses missing from the database;
- duplicated: ingests stored more than once, analyses with more than one attempt, and
  analyses stored although their ingest was refused;
- stuck: acknowledged analyses whose attempt is not done when the recovery limit passes
  (errored ones are counted apart).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.servers import PostgresServer, RedisServer, servers_available  # noqa: E402
from tests.support.stack import Load, Stack  # noqa: E402

LEASE_SECONDS = 60  # the sweeper runs every quarter of it
SWEEP_SECONDS = 15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ingests", type=int, default=1500)
    parser.add_argument("--rate", type=float, default=8.0, help="ingests a second")
    args = parser.parse_args()
    missing = servers_available()
    if missing:
        print(f"cannot run: {missing}")
        return 2

    directory = Path(tempfile.mkdtemp(prefix="redline-faults-"))
    stack = Stack(
        directory=directory,
        database=PostgresServer(),
        broker=RedisServer(directory),
        cache=RedisServer(directory),
        lease_seconds=LEASE_SECONDS,
    )
    stack.extra_env = {"REDLINE_SWEEP_INTERVAL_SECONDS": str(SWEEP_SECONDS)}
    try:
        stack.start_servers()
        stack.start_web()
        stack.start_worker()
        stack.start_beat()
        stack.supervise()
        figures = run(stack, ingests=args.ingests, rate=args.rate)
    finally:
        stack.stop()
        stack.stop_servers()
    for name, value in figures.items():
        print(f"{name:>34}: {value}")
    print(f"logs: {directory}")
    ok = figures["lost"] == figures["duplicated"] == figures["stuck after recovery"] == 0
    if ok:
        shutil.rmtree(directory, ignore_errors=True)
    return 0 if ok else 1


def run(stack: Stack, *, ingests: int, rate: float) -> dict[str, object]:
    duration = ingests / rate
    faults: list[tuple[str, float]] = []
    started = time.monotonic()

    def at(fraction: float) -> None:
        time.sleep(max(0.0, started + duration * fraction - time.monotonic()))

    with Load(stack, per_second=rate, limit=ingests) as load:
        at(0.2)
        faults.append(("worker kill -9", time.monotonic() - started))
        stack.kill_worker()
        at(0.4)
        faults.append(("Redis shutdown nosave, 1 s", time.monotonic() - started))
        stack.restart_broker(down_seconds=1.0)
        at(0.6)
        faults.append(("PostgreSQL stop, 5 s", time.monotonic() - started))
        stack.database.stop()
        time.sleep(5)
        stack.database.start()
        load.wait(timeout=duration + 120)
    load_seconds = time.monotonic() - started

    limit = time.monotonic() + LEASE_SECONDS + 2 * SWEEP_SECONDS + 30
    while stack.unvalidated() and time.monotonic() < limit:
        time.sleep(2)
    recovered = time.monotonic() - started - load_seconds

    answers = load.counts()
    refused = answers.get("503", 0)
    titles = Counter(str(title) for (title,) in stack.sql("SELECT title FROM analyses_analysis"))
    statuses = stack.attempt_statuses()
    acknowledged = set(stack.acknowledged)
    stuck = [pk for pk in acknowledged if statuses.get(pk, [""])[-1] not in ("done", "errored")]
    errored = [pk for pk in acknowledged if statuses.get(pk, [""])[-1] == "errored"]
    stored_twice = sum(n - 1 for n in titles.values() if n > 1)
    two_attempts = sum(1 for attempts in statuses.values() if len(attempts) > 1)
    stored_unacknowledged = len(set(statuses) - acknowledged)
    return {
        "ingests sent": sum(answers.values()),
        "answers": dict(sorted(answers.items())),
        "answers that were not JSON": len(load.not_json),
        "faults (s into the run)": ", ".join(f"{name} at {t:.0f}" for name, t in faults),
        "load took (s)": round(load_seconds, 1),
        "worker starts": stack.worker_starts,
        "acknowledged (201)": len(acknowledged),
        "refused (JSON 503, retry)": refused,
        "lost": len(acknowledged - set(statuses)),
        "duplicated": stored_twice + two_attempts,
        "stored though not acknowledged": stored_unacknowledged,
        "stuck after recovery": len(stuck),
        "errored": len(errored),
        "all validated (s after the load)": round(recovered, 1),
    }


if __name__ == "__main__":
    raise SystemExit(main())
