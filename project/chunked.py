"""Chunked request bodies, read within the size limit.

A client that sends ``Transfer-Encoding: chunked`` sends no ``Content-Length``; Django reads a
WSGI body only up to ``CONTENT_LENGTH``, so such a body was read as empty ("malformed JSON at
line 1 column 1"). gunicorn decodes the chunks and marks the stream ``wsgi.input_terminated``:
this WSGI middleware reads it, at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (the largest body
any request may have), and hands Django the body with its length, so every limit that reads
``CONTENT_LENGTH`` (the API's 413 before parsing) applies to it as to any other body. A
longer body is a 413 before Django sees it; a chunked body from a server that does not
terminate the stream is a 411.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class ChunkedBodies:
    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            if not environ.get("wsgi.input_terminated"):
                return _refuse(start_response, 411, "Send a Content-Length with this body.")
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            body = environ["wsgi.input"].read(limit + 1)
            if len(body) > limit:
                return _refuse(
                    start_response, 413, f"The request body is over the {limit}-byte limit."
                )
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def _refuse(start_response: StartResponse, status: int, message: str) -> list[bytes]:
    reason = {411: "Length Required", 413: "Content Too Large"}[status]
    body = json.dumps({"message": message, "field": None}).encode()
    start_response(
        f"{status} {reason}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]
