"""A scripted Redline API on a real loopback HTTP server, for the client's unit tests.

Each route answers from a script: a list of (status, body, headers) taken in turn, the last
one repeated. Every request is recorded (method, path, headers, body), so a test can say
what the client sent.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# The ports this branch's servers may use (tests that run in parallel take the next free one).
PORTS = range(18600, 18700)

Answer = tuple[int, Any, dict[str, str]]


def free_port_in_range() -> int:
    """A port of PORTS that nothing listens on now."""
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedApi:
    url: str
    routes: dict[tuple[str, str], list[Answer]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)

    def on(self, method: str, path: str, *answers: Answer) -> None:
        self.routes[(method, path)] = list(answers)

    def answer(self, method: str, path: str) -> Answer:
        script = self.routes.get((method, path))
        if not script:
            return 404, {"message": f"no route {method} {path}", "field": None}, {}
        return script.pop(0) if len(script) > 1 else script[0]

    def requests(self, method: str, path: str) -> list[Seen]:
        return [item for item in self.seen if (item.method, item.path) == (method, path)]


def _handler(api: ScriptedApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            api.seen.append(Seen(self.command, self.path, dict(self.headers.items()), body))
            status, payload, headers = api.answer(self.command, self.path)
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send_response(status)
            content_type = "text/markdown" if isinstance(payload, str) else "application/json"
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture
def api() -> Iterator[ScriptedApi]:
    scripted = ScriptedApi(url="")
    for port in PORTS:
        try:
            server = _Server(("127.0.0.1", port), _handler(scripted))
        except OSError:
            continue
        break
    else:
        raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")
    scripted.url = f"http://127.0.0.1:{port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield scripted
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
