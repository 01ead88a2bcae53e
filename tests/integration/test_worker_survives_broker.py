"""A worker survives its broker (issue 27, point 1), on the production stack of
tests/support/stack.py: gunicorn, a Celery worker as deploy/redline-worker.service runs it
(prefork, concurrency 4, gossip, mingle and remote control on) and beat as
deploy/redline-beat.service runs it, over a PostgreSQL and a Redis of the test's own.

Under 8 ingests a second, Redis is shut down without saving (it comes back empty: every
wake-up it held is gone) and started again. The worker process must live through it, and
every acknowledged analysis must be validated within a minute of the broker's return, with
nobody's help and long before a lease (300 s) could let the sweeper find them.

Then the worker is killed (kill -9) under load. No systemd here: ``Stack.supervise`` does
what the unit's ``Restart=always`` does (start the same command again after ``RestartSec``),
and nothing more; every acknowledged analysis is validated once the lease of the runs that
died with the worker has passed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.servers import PostgresServer, RedisServer, servers_available
from tests.support.stack import Load, Stack, until

pytestmark = pytest.mark.integration

INGESTS_PER_SECOND = 8


@contextmanager
def running_stack(directory: Path, *, lease_seconds: int) -> Iterator[Stack]:
    missing = servers_available()
    if missing:
        pytest.skip(missing)
    stack = Stack(
        directory=directory,
        database=PostgresServer(),
        broker=RedisServer(directory),
        cache=RedisServer(directory),
        lease_seconds=lease_seconds,
    )
    try:
        stack.start_servers()
        stack.start_web()
        stack.start_worker()
        stack.start_beat()
        yield stack
    finally:
        stack.stop()
        stack.stop_servers()


def test_the_worker_lives_through_a_redis_restart_under_load(tmp_path: Path) -> None:
    with (
        running_stack(tmp_path, lease_seconds=300) as stack,
        Load(stack, per_second=INGESTS_PER_SECOND) as load,
    ):
        until(lambda: len(stack.acknowledged) >= 40, "ingests before the restart")
        worker = stack.processes["worker"]

        stack.restart_broker(down_seconds=1.0)
        back = time.monotonic()
        time.sleep(8)  # the load goes on against the new, empty Redis
        load.stop()

        assert worker.poll() is None, stack.log("worker")[-6000:]
        assert "Unrecoverable error" not in stack.log("worker")
        assert set(load.counts()) == {"201"}, load.counts()
        until(lambda: not stack.unvalidated(), "every acknowledged analysis", timeout=60)
        recovery = time.monotonic() - back
        statuses = stack.attempt_statuses()

    print(f"{len(stack.acknowledged)} ingests; all validated {recovery:.1f} s after Redis")
    assert recovery < 60
    assert "The broker restarted: re-sent the wake-ups" in stack.log("worker")
    # Each analysis has one attempt, validated once.
    assert sorted(statuses) == sorted(stack.acknowledged)
    assert all(attempts == ["done"] for attempts in statuses.values())


def test_a_killed_worker_is_restarted_by_its_supervisor_and_loses_nothing(
    tmp_path: Path,
) -> None:
    lease = 20
    with running_stack(tmp_path, lease_seconds=lease) as stack:
        stack.supervise()  # systemd's Restart=always, RestartSec=2: nothing else
        with Load(stack, per_second=INGESTS_PER_SECOND) as load:
            until(lambda: len(stack.acknowledged) >= 40, "ingests before the kill")
            stack.kill_worker()
            until(lambda: stack.worker_ready_count() >= 2, "the supervisor's new worker")
            time.sleep(4)
        assert set(load.counts()) == {"201"}, load.counts()
        # What the dead worker held (its runs and prefetched wake-ups) waits for its lease;
        # the sweeper (beat, every `lease` seconds here) re-sends it.
        until(lambda: not stack.unvalidated(), "every acknowledged analysis", timeout=4 * lease)
        statuses = stack.attempt_statuses()

    assert stack.worker_starts == 2
    assert sorted(statuses) == sorted(stack.acknowledged)
    assert all(attempts == ["done"] for attempts in statuses.values())
