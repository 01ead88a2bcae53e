"""A real Celery worker process for integration tests.

The worker runs ``celery -A project worker --pool=prefork`` (with the embedded beat that
runs the sweeper) in its own process group, against the broker this test run uses
(``CELERY_BROKER_URL``: the filesystem broker locally, Redis in CI) and the pytest-django
*test* database, on a queue of its own so that nothing else consumes its messages.

The test process must send to that queue instead of running tasks eagerly:
:func:`sending_to` switches the Celery app for the duration of a test.

Use with ``@pytest.mark.django_db(transaction=True)`` so that the worker sees committed rows
(the groups and the policy row are re-created after each flush: validation/roles.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from django.conf import settings
from django.db import connection

T = TypeVar("T")

READY_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
LOG_TAIL = 12_000


def new_queue_name() -> str:
    return f"redline-test-{uuid.uuid4().hex[:12]}"


def test_database_url() -> str:
    """DATABASE_URL of the database pytest-django created for this run."""
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(params['NAME']).resolve()}"
    if connection.vendor == "postgresql":
        user = quote(params.get("USER") or "postgres", safe="")
        password = params.get("PASSWORD") or ""
        auth = f"{user}:{quote(password, safe='')}" if password else user
        host = params.get("HOST") or "127.0.0.1"
        port = params.get("PORT") or 5432
        return f"postgres://{auth}@{host}:{port}/{quote(params['NAME'], safe='')}"
    raise ValueError(
        f"integration tests run on SQLite or PostgreSQL, not {connection.vendor}: "
        "set DATABASE_URL to one of them"
    )


@dataclass
class Worker:
    """One worker process (a process group: the main process and its pool children)."""

    name: str
    queue: str
    process: subprocess.Popen[bytes]
    log_path: Path
    env: dict[str, str] = field(repr=False)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self) -> str:
        text = self.log()
        return text[-LOG_TAIL:] if len(text) > LOG_TAIL else text

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        # "celery@host ready." is logged once the consumer is up and the pool has forked.
        wait_until(
            lambda: " ready." in self.log() or not self.running,
            timeout=timeout,
            what=f"worker {self.name} to be ready",
            workers=[self],
        )
        if not self.running:
            raise AssertionError(
                f"worker {self.name} exited with {self.process.returncode} during start-up\n"
                f"--- worker log ---\n{self.log_tail()}"
            )

    def kill(self) -> None:
        """SIGKILL the whole worker at once (main process and pool), as a crash would."""
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self) -> None:
        """Warm shutdown (SIGTERM to the main process, which stops its pool and beat);
        SIGKILL to the whole group for whatever is left after STOP_TIMEOUT."""
        if self.running:
            with suppress(ProcessLookupError):
                self.process.terminate()
            with suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_TIMEOUT)
        # Pool children outlive a killed main process only briefly; make sure none stays.
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_TIMEOUT)


def start_worker(
    *,
    queue: str,
    log_dir: Path,
    lease_seconds: int = 120,
    sweep_seconds: int = 60,
    debug_delay_seconds: int = 0,
    beat: bool = True,
    name: str | None = None,
    wait: bool = True,
    consume: Sequence[str] = (),
    extra_env: dict[str, str] | None = None,
) -> Worker:
    """A worker sending to `queue` and consuming it (or the queues in `consume`), with
    `extra_env` on top of the test settings."""
    name = name or f"w{uuid.uuid4().hex[:6]}"
    log_path = log_dir / f"worker-{name}.log"
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDLINE_TASKS_EAGER": "0",
        "REDLINE_QUEUE": queue,
        "REDLINE_ATTEMPT_LEASE_SECONDS": str(lease_seconds),
        "REDLINE_SWEEP_INTERVAL_SECONDS": str(sweep_seconds),
        "REDLINE_TASK_DEBUG_DELAY_SECONDS": str(debug_delay_seconds),
        "REDLINE_LOG_FORMAT": "plain",
        "REDLINE_LOG_LEVEL": "INFO",
        # Close database connections after each task: the test database is dropped at the end.
        "REDLINE_DB_CONN_MAX_AGE": "0",
        "PYTHONUNBUFFERED": "1",
        **(extra_env or {}),
    }
    celery = Path(sys.executable).with_name("celery")
    command = [
        str(celery),
        "-A",
        "project",
        "worker",
        "--pool=prefork",
        "--concurrency=1",
        "-Q",
        ",".join(consume or [queue]),
        "-n",
        f"{name}-{queue}@%h",
        "--loglevel=INFO",
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
    ]
    if beat:
        command += ["-B", f"--schedule={log_dir / f'beat-{name}'}"]
    # No remote control: a test worker would leave its pidbox binding behind in the broker.
    command += ["--", "worker.enable_remote_control=false"]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so that killpg reaches the pool
        )
    worker = Worker(name=name, queue=queue, process=process, log_path=log_path, env=env)
    if wait:
        try:
            worker.wait_ready()
        except BaseException:
            worker.stop()
            raise
    return worker


def wait_until(
    predicate: Callable[[], T | None],
    *,
    timeout: float = 60.0,
    what: str,
    workers: Sequence[Worker] = (),
    interval: float = 0.2,
) -> T:
    """Poll `predicate` until it returns something truthy; fail clearly after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            logs = "\n".join(
                f"--- worker {worker.name} log (tail) ---\n{worker.log_tail()}"
                for worker in workers
            )
            raise AssertionError(f"Timed out after {timeout:.0f}s waiting for {what}.\n{logs}")
        time.sleep(interval)


@contextmanager
def sending_to(queue: str) -> Iterator[None]:
    """Make this process send tasks to `queue` through the broker instead of running them."""
    from project.celery import app

    conf = app.conf
    saved = (conf.task_always_eager, conf.task_default_queue)
    saved_settings = (settings.REDLINE_TASKS_EAGER, settings.CELERY_TASK_DEFAULT_QUEUE)
    _override(conf, always_eager=False, default_queue=queue)
    settings.REDLINE_TASKS_EAGER = False
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    try:
        yield
    finally:
        _override(conf, always_eager=saved[0], default_queue=saved[1])
        settings.REDLINE_TASKS_EAGER, settings.CELERY_TASK_DEFAULT_QUEUE = saved_settings
        purge_queue(queue)


def _override(conf: Any, *, always_eager: bool, default_queue: str) -> None:
    """Set both spellings: the app reads its configuration from Django's settings under the
    CELERY_ namespace, and Celery 5.6 answers the namespaced key before a plain one set later
    (``conf.task_always_eager = False`` alone would read back True)."""
    conf.task_always_eager = always_eager
    conf.task_default_queue = default_queue
    conf["CELERY_TASK_ALWAYS_EAGER"] = always_eager
    conf["CELERY_TASK_DEFAULT_QUEUE"] = default_queue


def purge_queue(queue: str) -> None:
    """Drop what is left in a test queue so the broker does not collect dead messages."""
    from project.celery import app

    with suppress(Exception), app.connection_for_write() as conn:
        channel: Any = conn.default_channel  # a transport channel: the stubs type the abstract one
        channel.queue_purge(queue)
        channel.queue_delete(queue)
    # The filesystem broker keeps one exchange table per queue name on disk.
    control = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("control_folder")
    if settings.CELERY_BROKER_URL.startswith("filesystem://") and control:
        (Path(str(control)) / f"{queue}.exchange").unlink(missing_ok=True)
