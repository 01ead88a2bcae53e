"""A loopback webhook receiver for tests: a real HTTP server on 127.0.0.1 (in a thread of the
test process) that records every POST and answers as a test scripts it: a status, or a hang.

It also holds the receiver's side of the signature: ``signature_verifies`` is the check
docs/pipelines.md shows a pipeline author."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The ports this project's helpers may use for receivers.
PORTS = range(18500, 18600)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def event(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.body)
        return data


@dataclass
class Receiver:
    port: int
    # What to answer, in order; the last one stays. An int is a status; "hang" waits
    # `hang_seconds` before answering 200.
    script: list[int | str] = field(default_factory=lambda: [200])
    hang_seconds: float = 30.0
    received: list[Received] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def next_answer(self) -> int | str:
        with self._lock:
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def record(self, item: Received) -> None:
        with self._lock:
            self.received.append(item)

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return [item.event for item in self.received]


def signature_verifies(secret: str, header: str, body: bytes, tolerance: float = 300) -> bool:
    """The receiver's check: a `v1=` equals the HMAC-SHA256 of "<t>.<body>" with `secret`,
    and `t` is recent (a replayed old delivery fails)."""
    parts = [part.split("=", 1) for part in header.split(",") if "=" in part]
    timestamp = next((value for key, value in parts if key == "t"), "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False
    expected = hmac.new(
        secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256
    ).hexdigest()
    return any(key == "v1" and hmac.compare_digest(value, expected) for key, value in parts)


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@contextmanager
def webhook_receiver(
    script: list[int | str] | None = None, hang_seconds: float = 30.0
) -> Iterator[Receiver]:
    receiver = Receiver(port=0, script=list(script or [200]), hang_seconds=hang_seconds)
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            receiver.record(Received(self.path, dict(self.headers.items()), body, time.monotonic()))
            answer = receiver.next_answer()
            if answer == "hang":
                stop.wait(receiver.hang_seconds)
                answer = 200
            self.send_response(int(answer))
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    receiver.port = _free_port()
    server = ThreadingHTTPServer(("127.0.0.1", receiver.port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
