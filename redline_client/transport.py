"""HTTP for the client, on the standard library: one request, its retries, its errors.

- A connection that fails (refused, reset, DNS, a socket timeout) and a 500, 502 or 504 are
  tried again, ``retries`` times with a doubling pause, then ``Unreachable``. A POST is
  tried again only when it never reached the server (connecting or sending failed).
- 429 and 503 are the server asking to come back later: the client waits ``Retry-After``
  (at most ``MAX_RETRY_AFTER_S``) and asks again until the deadline, then ``TimedOut``.
- Any other 4xx is a ``Refused`` with the server's JSON message. A redirect is refused
  too: following it would send the token to wherever it points.
- Nothing waits past the deadline: each request's socket timeout is cut to what is left.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from typing import Any

from redline_client.errors import BadInput, Refused, TimedOut, Unreachable

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_RETRY_AFTER_S = 30.0
RETRIED_STATUSES = frozenset({500, 502, 504})
LATER_STATUSES = frozenset({429, 503})
USER_AGENT = "redline-client/1"


@dataclass(frozen=True)
class Response:
    status: int
    headers: Message
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise Unreachable(
                f"the server answered {self.status} with something that is not JSON"
            ) from None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx comes back as an HTTPError, refused below


def base_url(url: str) -> str:
    """The server's root URL, checked: http(s), a host, no query or fragment."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadInput(f"--url must be an http:// or https:// address, not {url[:200]!r}")
    if parts.query or parts.fragment:
        raise BadInput(f"--url must be the server's address without ?query or #fragment: {url!r}")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


class Transport:
    """Requests to one server with one token, within a deadline set by the caller."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        request_timeout: float = 30.0,
        retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not token.strip() or any(ch in token for ch in "\r\n\0"):
            raise BadInput("--token must be an API token (manage.py api_token create)")
        self.url = base_url(url)
        self._token = token.strip()
        self._request_timeout = request_timeout
        self._retries = retries
        self._sleep = sleep
        self._clock = clock
        self._opener = urllib.request.build_opener(_NoRedirect)

    def request(
        self,
        method: str,
        path: str,
        *,
        deadline: float,
        body: bytes | None = None,
        accept: str = "application/json",
    ) -> Response:
        failures = 0
        while True:
            left = deadline - self._clock()
            if left <= 0:
                raise TimedOut(f"no answer to {method} {path} before the timeout")
            try:
                response = self._send(method, path, body, accept, min(self._request_timeout, left))
            except (OSError, http.client.HTTPException) as error:
                failures += 1
                if failures > self._retries or (body is not None and not _unsent(error)):
                    raise Unreachable(f"cannot reach {self.url}: {_describe(error)}") from None
                self._pause(0.5 * 2 ** (failures - 1), deadline)
                continue
            if response.status in LATER_STATUSES:
                self._pause(_retry_after(response.headers), deadline, what=path)
                continue
            if response.status in RETRIED_STATUSES:
                failures += 1
                if failures > self._retries:
                    raise Unreachable(
                        f"{self.url} kept failing: {response.status} {_message(response)}"
                    )
                self._pause(0.5 * 2 ** (failures - 1), deadline)
                continue
            if 300 <= response.status < 400:
                where = response.headers.get("Location", "elsewhere")
                raise Refused(
                    response.status,
                    f"it redirects to {where}; give --url as the server's final address",
                )
            if response.status >= 400:
                data = _error_json(response)
                raise Refused(response.status, data[0], data[1])
            return response

    def _send(
        self, method: str, path: str, body: bytes | None, accept: str, timeout: float
    ) -> Response:
        request = urllib.request.Request(
            self.url + path,
            data=body,
            method=method,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": accept,
                "User-Agent": USER_AGENT,
                **({"Content-Type": "application/json"} if body is not None else {}),
            },
        )
        try:
            with self._opener.open(request, timeout=timeout) as answer:
                return Response(answer.status, answer.headers, _read(answer))
        except urllib.error.HTTPError as error:
            with error:
                return Response(error.code, error.headers, _read(error))

    def _pause(self, seconds: float, deadline: float, what: str = "") -> None:
        left = deadline - self._clock()
        if seconds >= left:
            self._sleep(max(left, 0.0))
            suffix = f" for {what}" if what else ""
            raise TimedOut(f"the server asked to wait{suffix} past the timeout")
        self._sleep(seconds)


def _unsent(error: BaseException) -> bool:
    """urllib wraps what fails while connecting or sending in URLError: the server never
    had the whole request. A failure after that (no answer, a reset) may follow a request
    the server did carry out, so a POST is not sent twice."""
    return isinstance(error, urllib.error.URLError)


def _read(answer: Any) -> bytes:
    data: bytes = answer.read(MAX_RESPONSE_BYTES + 1)
    if len(data) > MAX_RESPONSE_BYTES:
        raise Unreachable(f"the server's answer is larger than {MAX_RESPONSE_BYTES} bytes")
    return data


def _retry_after(headers: Message) -> float:
    try:
        seconds = float(headers.get("Retry-After", "2"))
    except ValueError:
        seconds = 2.0
    return min(max(seconds, 0.1), MAX_RETRY_AFTER_S)


def _message(response: Response) -> str:
    return _error_json(response)[0]


def _error_json(response: Response) -> tuple[str, str | None]:
    """The server's ``{"message", "field"}``, or the start of whatever it sent."""
    try:
        data = json.loads(response.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        field = data.get("field")
        return data["message"], field if isinstance(field, str) else None
    text = " ".join(response.body[:300].decode("utf-8", "replace").split())
    return text or http.client.responses.get(response.status, "error"), None


def _describe(error: BaseException) -> str:
    if isinstance(error, urllib.error.URLError) and not isinstance(error.reason, str):
        error = error.reason if isinstance(error.reason, BaseException) else error
    if isinstance(error, socket.timeout | TimeoutError):
        return "the connection timed out"
    text = " ".join(str(error).split())
    return text or type(error).__name__
