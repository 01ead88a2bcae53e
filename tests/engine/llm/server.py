"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol and
replays scripted answers: the LLM path's tests talk to it through the real `openai` client
over a real socket -- no patched client.

    script = [status(429, headers={"Retry-After": "1"}), reply('{"decision": ...}')]
    with ScriptedLLM(script) as llm:
        settings = LLMSettings(base_url=llm.base_url)
        ...
        llm.requests  # the JSON bodies received, in order

A script item is a :class:`Step` (``reply``, ``tool_calls``, ``status``, ``stall``) or a
callable taking the request body and returning a Step. When the script runs out, the
``fallback`` (if any) answers; else the server returns 500 "script exhausted".
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    status: int = 200
    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # raw JSON body for an error status
    delay_s: float = 0.0
    prompt_tokens: int = 50
    completion_tokens: int = 20


def reply(content: str, **kwargs: Any) -> Step:
    return Step(content=content, **kwargs)


def tool_calls(*calls: tuple[str, dict[str, Any]], content: str | None = None) -> Step:
    return Step(
        content=content,
        tool_calls=[
            {
                "id": f"call_{index}_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for index, (name, arguments) in enumerate(calls)
        ],
    )


def status(
    code: int, message: str = "scripted error", headers: dict[str, str] | None = None
) -> Step:
    return Step(
        status=code,
        headers=headers or {},
        body={"error": {"message": message, "type": "scripted", "code": code}},
    )


def stall(seconds: float, then: Step | None = None) -> Step:
    step = then or reply("{}")
    return Step(**{**step.__dict__, "delay_s": seconds})


ScriptItem = Step | Callable[[dict[str, Any]], Step]


class ScriptedLLM:
    def __init__(
        self, script: Sequence[ScriptItem] = (), *, fallback: ScriptItem | None = None
    ) -> None:
        self.script: list[ScriptItem] = list(script)
        self.fallback = fallback
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(request)
            item = self.script.pop(0) if self.script else self.fallback
        if item is None:
            return status(500, "script exhausted")
        return item(request) if callable(item) else item

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    request = json.loads(raw or b"{}")
                except ValueError:
                    request = {"__invalid__": raw.decode("utf-8", "replace")}
                owner.paths.append(self.path)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                step = owner._next(request)
                if step.delay_s:
                    time.sleep(step.delay_s)
                if step.status != 200:
                    self._send(step.status, step.body or {}, step.headers)
                    return
                message: dict[str, Any] = {"role": "assistant", "content": step.content}
                if step.tool_calls:
                    message["tool_calls"] = step.tool_calls
                body = {
                    "id": f"chatcmpl-{len(owner.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": request.get("model", "scripted"),
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if step.tool_calls else "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": step.prompt_tokens,
                        "completion_tokens": step.completion_tokens,
                        "total_tokens": step.prompt_tokens + step.completion_tokens,
                    },
                }
                self._send(200, body, step.headers)

            def _send(self, code: int, body: Any, headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (for the unreachable-endpoint tests)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
