"""The production stack of one test or bench run: gunicorn and a Celery worker (with beat)
over a PostgreSQL, a broker Redis and a rate-cache Redis of its own (tests/support/servers.py),
so that any of them can be stopped, killed or restarted at will. Never the machine's services.

The worker is started as ``deploy/redline-worker.service`` starts it, and :meth:`Stack.
supervise` stands in for systemd where a test needs it: like the unit's ``Restart=always``
with ``RestartSec``, it starts the same command again, a moment after the worker exited.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tests.support.net import free_port
from tests.support.servers import PostgresServer, RedisServer
from tests.support.worker import wait_until

T = TypeVar("T")
BASE_DIR = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BUNDLE: dict[str, Any] = {
    "query": "What were ACME's owner earnings in 2024?",
    "body": "Owner earnings were $14.8B [acme] in 2024.\n\nFINAL DECISION: WATCH\n",
    "evidence": [{"source_ref": "acme", "content": {"owner_earnings": 14_800_000_000}}],
}
# deploy/redline-worker.service: RestartSec.
RESTART_SECONDS = 2.0


@dataclass
class Answer:
    status_code: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def request(
    port: int,
    method: str,
    path: str,
    *,
    body: bytes | Iterator[bytes] | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> Answer:
    """One HTTP request with the standard library (an iterator body is sent chunked)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        chunked = body is not None and not isinstance(body, bytes)
        connection.request(method, path, body=body, headers=headers or {}, encode_chunked=chunked)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, text)
    finally:
        connection.close()


def worker_command(queue: str, concurrency: int = 4) -> list[str]:
    """The command of deploy/redline-worker.service (beat is a unit of its own)."""
    return [
        str(BIN / "celery"),
        "-A",
        "project",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "-Q",
        queue,
        "--loglevel=INFO",
    ]


@dataclass
class Stack:
    """gunicorn and a worker over our own PostgreSQL, broker Redis and rate-cache Redis."""

    directory: Path
    database: PostgresServer
    broker: RedisServer
    cache: RedisServer
    lease_seconds: int = 300
    web_port: int = field(default_factory=free_port)
    queue: str = field(default_factory=lambda: f"redline-stack-{uuid.uuid4().hex[:8]}")
    token: str = ""
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    acknowledged: list[int] = field(default_factory=list)
    worker_env: dict[str, str] = field(default_factory=dict)
    extra_env: dict[str, str] = field(default_factory=dict)  # for every process of the stack
    worker_starts: int = 0
    _supervising: threading.Event = field(default_factory=threading.Event)
    _supervisor: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": self.database.url("redline"),
            "CELERY_BROKER_URL": self.broker.url(0),
            "REDLINE_CACHE_URL": self.cache.url(0),
            "REDLINE_QUEUE": self.queue,
            "REDLINE_SECRET_KEY": "stack-test-secret-key-0123456789abcdef0123456789",
            "REDLINE_DEBUG": "0",
            "REDLINE_HTTPS": "0",
            "REDLINE_ALLOWED_HOSTS": "127.0.0.1",
            "REDLINE_TASKS_EAGER": "0",
            "REDLINE_MANIFEST_STATIC": "0",
            "REDLINE_ATTEMPT_LEASE_SECONDS": str(self.lease_seconds),
            "REDLINE_SWEEP_INTERVAL_SECONDS": str(self.lease_seconds),
            "REDLINE_DB_CONNECT_TIMEOUT": "2",
            "REDLINE_LOG_FORMAT": "plain",
            "REDLINE_LOG_LEVEL": "INFO",
            "REDLINE_BIND": f"127.0.0.1:{self.web_port}",
            "REDLINE_WEB_WORKERS": "1",
            "REDLINE_WEB_THREADS": "4",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    # -- set-up -------------------------------------------------------------------------

    def start_servers(self) -> None:
        self.database.init()
        self.database.start()
        self.database.create_database("redline")
        self.broker.start()
        self.cache.start()
        self.manage("migrate", "--noinput")
        self.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User; User.objects.create_user('pipeline')",
        )
        self.token = self.manage("api_token", "create", "pipeline", "--scope", "write")

    def start_web(self) -> None:
        self.spawn(
            "web", str(BIN / "gunicorn"), "-c", "python:project.gunicorn_conf", "project.wsgi"
        )
        wait_until(self.up, what="gunicorn to answer /readyz")

    def start_worker(self, **env: str) -> None:
        """Start the worker (again: its log goes on in the same file) and wait until ready."""
        self.worker_env = env
        self._spawn_worker()
        wait_until(lambda: self.worker_ready_count() >= self.worker_starts, what="the worker")

    def _spawn_worker(self) -> None:
        self.worker_starts += 1
        self.spawn(
            "worker",
            *worker_command(self.queue),
            env=self.worker_env,
        )

    def start_beat(self) -> None:
        """The scheduler of deploy/redline-beat.service (it sends the sweeper's runs)."""
        schedule = self.directory / "beat-schedule"
        self.spawn("beat", str(BIN / "celery"), "-A", "project", "beat", f"--schedule={schedule}")

    def restart_broker(self, down_seconds: float) -> None:
        """``redis-cli shutdown nosave`` (Redis exits and keeps nothing), then start it again
        on the same port after `down_seconds`."""
        assert self.broker.process is not None
        subprocess.run(
            ["redis-cli", "-p", str(self.broker.port), "shutdown", "nosave"],
            capture_output=True,
            timeout=30,
        )
        self.broker.process.wait(timeout=30)
        self.broker.process = None
        time.sleep(down_seconds)
        self.broker.start()

    def worker_ready_count(self) -> int:
        return self.log("worker").count(" ready.")

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [str(BIN / "python"), "manage.py", *args],
            cwd=BASE_DIR,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout.strip()

    def spawn(self, name: str, *command: str, env: dict[str, str] | None = None) -> None:
        log = (self.directory / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            list(command),
            cwd=BASE_DIR,
            env={**self.env(), **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self, name: str) -> str:
        try:
            return (self.directory / f"{name}.log").read_text(errors="replace")
        except FileNotFoundError:
            return ""

    # -- the supervisor's part ----------------------------------------------------------

    def supervise(self) -> None:
        """Stand in for systemd (deploy/redline-worker.service, ``Restart=always``,
        ``RestartSec=2``): whenever the worker process has exited, for whatever reason,
        start the same command again two seconds later. Nothing else."""
        self._supervising.set()

        def watch() -> None:
            while self._supervising.is_set():
                worker = self.processes.get("worker")
                if worker is not None and worker.poll() is not None:
                    time.sleep(RESTART_SECONDS)
                    if self._supervising.is_set():
                        self._spawn_worker()
                time.sleep(0.2)

        self._supervisor = threading.Thread(target=watch, name="supervisor", daemon=True)
        self._supervisor.start()

    def kill_worker(self) -> None:
        """kill -9 the worker's whole process group (main process, pool, beat)."""
        worker = self.processes["worker"]
        with suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=20)

    # -- the client's part --------------------------------------------------------------

    def call(self, method: str, path: str, body: Any = None, timeout: float = 30) -> Answer:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        return request(self.web_port, method, path, body=data, headers=headers, timeout=timeout)

    def ingest(self, tag: str) -> Answer:
        bundle = {**BUNDLE, "title": f"stack {tag}"}
        response = self.call("POST", "/api/v1/analyses", bundle)
        if response.status_code == 201:
            with self._lock:
                self.acknowledged.append(response.json()["id"])
        return response

    def ready(self) -> Answer:
        return request(self.web_port, "GET", "/readyz")

    def up(self) -> bool:
        try:
            return self.ready().status_code == 200
        except OSError:  # not listening yet
            return False

    def attempt_status(self, analysis_id: int) -> str:
        response = self.call("GET", f"/api/v1/analyses/{analysis_id}")
        attempts = response.json()["attempts"] if response.status_code == 200 else []
        return str(attempts[-1]["status"]) if attempts else ""

    def validated(self, analysis_id: int) -> bool:
        return self.attempt_status(analysis_id) in ("done", "errored")

    def sql(self, query: str) -> list[tuple[Any, ...]]:
        """Rows of one query on the stack's database (the attempts table is the truth)."""
        import psycopg

        with psycopg.connect(self.database.url("redline"), connect_timeout=5) as connection:
            return list(connection.execute(query.encode()).fetchall())

    def attempt_statuses(self) -> dict[int, list[str]]:
        """Each analysis' attempts' statuses, by analysis id."""
        statuses: dict[int, list[str]] = {}
        for analysis_id, status in self.sql(
            "SELECT analysis_id, status FROM validation_attempt ORDER BY analysis_id, number"
        ):
            statuses.setdefault(int(analysis_id), []).append(str(status))
        return statuses

    def unvalidated(self) -> list[int]:
        """Acknowledged analyses whose attempt is not done yet."""
        statuses = self.attempt_statuses()
        with self._lock:
            acknowledged = list(self.acknowledged)
        return [pk for pk in acknowledged if statuses.get(pk, [""])[-1] != "done"]

    # -- teardown -----------------------------------------------------------------------

    def stop(self) -> None:
        self._supervising.clear()
        if self._supervisor is not None:
            self._supervisor.join(timeout=RESTART_SECONDS + 5)
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)

    def stop_servers(self) -> None:
        self.broker.stop()
        self.cache.stop()
        try:
            self.database.stop()
        finally:
            self.database.remove()


class Load:
    """Ingests at a steady rate from a background thread until stopped; every answer is kept
    (a status code, or the error of a request that got none)."""

    def __init__(self, stack: Stack, *, per_second: float, limit: int | None = None) -> None:
        self.stack = stack
        self.interval = 1.0 / per_second
        self.limit = limit
        self.answers: list[int | str] = []
        self.not_json: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load", daemon=True)

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def wait(self, timeout: float) -> None:
        """Until the limit is reached (a load with a limit)."""
        self._thread.join(timeout=timeout)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for answer in self.answers:
            counts[str(answer)] = counts.get(str(answer), 0) + 1
        return counts

    def _run(self) -> None:
        sent = 0
        next_at = time.monotonic()
        while not self._stop.is_set() and (self.limit is None or sent < self.limit):
            try:
                answer = self.stack.ingest(f"load {sent}")
                self.answers.append(answer.status_code)
                if not answer.headers.get("content-type", "").startswith("application/json"):
                    self.not_json.append(answer.text[:200])
            except OSError as error:
                self.answers.append(type(error).__name__)
            sent += 1
            next_at += self.interval
            self._stop.wait(max(0.0, next_at - time.monotonic()))


def until(predicate: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    return wait_until(predicate, what=what, timeout=timeout)
