from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.worker import Worker, start_worker


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """Attach the log of every worker a failed test started to its report."""
    outcome = yield
    report = outcome.get_result()
    workers: list[Worker] = getattr(item, "_redline_workers", [])
    if report.failed:
        for worker in workers:
            report.sections.append((f"worker {worker.name} log", worker.log_tail()))


@pytest.fixture
def start_workers(
    request: pytest.FixtureRequest, worker_queue: str, tmp_path: Path
) -> Iterator[Callable[..., Worker]]:
    """Start real Celery workers on the test's queue; every one is stopped at teardown."""
    started: list[Worker] = []
    request.node._redline_workers = started

    def start(**options: Any) -> Worker:
        worker = start_worker(queue=worker_queue, log_dir=tmp_path, wait=False, **options)
        started.append(worker)
        worker.wait_ready()
        return worker

    yield start
    for worker in started:
        worker.stop()
