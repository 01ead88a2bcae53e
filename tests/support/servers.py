"""Servers of a test's own, on free loopback ports, to stop and start at will: a Redis and a
PostgreSQL cluster in temporary directories. Never the machine's services.

PostgreSQL refuses to run as root: when the tests run as root, the cluster belongs to the
``postgres`` system user (``runuser``), as Debian's own clusters do.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.net import free_port
from tests.support.worker import wait_until

PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
REDIS_SERVER = shutil.which("redis-server")


def servers_available() -> str:
    """Why this machine cannot run them, or ""."""
    if REDIS_SERVER is None:
        return "redis-server is not installed"
    if not PG_BIN or not (PG_BIN[-1] / "initdb").exists():
        return "PostgreSQL's initdb is not installed (/usr/lib/postgresql/*/bin)"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser: PostgreSQL cannot start"
    return ""


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class RedisServer:
    """redis-server on a free port, keeping nothing on disk."""

    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        log = (self.directory / f"redis-{self.port}.log").open("ab")
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until(lambda: _accepts(self.port), what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)
        self.process = None
        wait_until(lambda: not _accepts(self.port), what=f"redis-server on {self.port} to stop")


@dataclass
class PostgresServer:
    """A PostgreSQL cluster of its own (initdb in a new directory under /tmp: pytest's own
    temporary directories are private to root), trust authentication on 127.0.0.1 only, no
    fsync: a test database server, fast to stop and start. ``remove()`` deletes it."""

    directory: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="redline-pg-")))
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.directory / "data"

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.directory, owner.pw_uid, owner.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.directory / "postgres.log"),
            "-w",
            "-t",
            "30",
            "start",
        )

    def stop(self) -> None:
        if not _accepts(self.port):
            return  # not running (stopped by the test itself)
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")
        wait_until(lambda: not _accepts(self.port), what=f"PostgreSQL on {self.port} to stop")

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    def create_database(self, name: str) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

    def _run(self, tool: str, *args: str) -> None:
        command = [str(PG_BIN[-1] / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=60)
