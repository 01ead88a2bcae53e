"""``submit``: post a bundle to ``/api/v1/analyses`` and follow the analysis by polling.

Without ``wait`` it stops when validation ends (the analysis is in review, or already
final); with ``wait`` it stops when the analysis is approved, rejected or failed, and an
approved report comes back with its export (JSON and Markdown). Posting is idempotent on the
bundle's ``external_id``: sending the same bundle again follows the analysis already there.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from redline_client.errors import BadInput, TimedOut, Unreachable
from redline_client.results import (
    APPROVED,
    FINAL_STATUSES,
    VALIDATING,
    AnalysisState,
    Approved,
    Outcome,
    SubmitResult,
    Verdict,
)
from redline_client.transport import Transport

DEFAULT_TIMEOUT_S = 600.0  # validation of one report takes seconds; a queue may hold many
DEFAULT_WAIT_TIMEOUT_S = 86_400.0  # a person signs off; that may take a working day
MAX_BUNDLE_BYTES = 64 * 1024 * 1024  # larger than any server limit: it would refuse it (413)
FIRST_POLL_S = 0.5
API = "/api/v1"

BundleSource = Mapping[str, Any] | bytes | str | os.PathLike[str]


class Client:
    """The REST calls ``submit`` makes, for a pipeline that wants them one by one."""

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
        self.transport = Transport(
            url, token, request_timeout=request_timeout, retries=retries, sleep=sleep, clock=clock
        )
        self.sleep = sleep
        self.clock = clock

    @property
    def url(self) -> str:
        return self.transport.url

    def create(self, bundle: bytes, *, deadline: float) -> tuple[bool, dict[str, Any]]:
        """POST the bundle: (created, the analysis summary). A re-sent bundle: created False."""
        response = self.transport.request("POST", f"{API}/analyses", body=bundle, deadline=deadline)
        return response.status == 201, _object(response.json())

    def analysis(self, analysis_id: int, *, deadline: float) -> dict[str, Any]:
        """The analysis detail: status, current revision, attempts with findings and fixes."""
        response = self.transport.request("GET", f"{API}/analyses/{analysis_id}", deadline=deadline)
        return _object(response.json())

    def export(self, analysis_id: int, *, deadline: float) -> Approved:
        """An approved report: its export as JSON and as Markdown."""
        path = f"{API}/analyses/{analysis_id}/export"
        data = _object(self.transport.request("GET", path, deadline=deadline).json())
        markdown = self.transport.request(
            "GET", f"{path}?format=markdown", accept="text/markdown", deadline=deadline
        ).body.decode("utf-8", "replace")
        revision = data.get("revision")
        body = data.get("body")
        return Approved(
            revision=revision if isinstance(revision, int) else 0,
            body=body if isinstance(body, str) else "",
            markdown=markdown,
            export=data,
        )

    def follow(
        self,
        analysis_id: int,
        *,
        wait: bool,
        deadline: float,
        timeout: float,
        poll_interval: float,
    ) -> dict[str, Any]:
        """Poll the analysis until it stops (see ``submit``); its last detail."""
        pause = min(FIRST_POLL_S, poll_interval)
        goal = "approved, rejected or failed" if wait else "validated"
        status: object = None
        while True:
            try:
                detail = self.analysis(analysis_id, deadline=deadline)
            except TimedOut:
                if status is None:
                    raise
                # The deadline ran out during a poll: the wait timed out at the last status.
                raise _not_done(analysis_id, goal, timeout, status) from None
            status = detail.get("status")
            if status in FINAL_STATUSES or (not wait and status != VALIDATING):
                return detail
            left = deadline - self.clock()
            if left <= pause:
                self.sleep(max(left, 0.0))
                raise _not_done(analysis_id, goal, timeout, status)
            self.sleep(pause)
            pause = min(pause * 1.5, poll_interval)


def _not_done(analysis_id: int, goal: str, timeout: float, status: object) -> TimedOut:
    return TimedOut(
        f"analysis {analysis_id} was not {goal} within {timeout:g} s "
        f"(it is {status}); it goes on on the server",
        analysis_id,
    )


def submit(
    bundle: BundleSource,
    *,
    url: str,
    token: str,
    wait: bool = False,
    timeout: float | None = None,
    poll_interval: float = 5.0,
    client: Client | None = None,
) -> SubmitResult:
    """Send `bundle` (a path, JSON bytes or a mapping) to the Redline at `url` and follow it.

    ``wait=False``: returns once validation ends (outcome ``in_review``, or a final status).
    ``wait=True``: returns once the analysis is ``approved`` (with ``result.approved``),
    ``rejected`` or ``failed``. `timeout` (seconds) bounds the whole call; by default
    ``DEFAULT_TIMEOUT_S``, or ``DEFAULT_WAIT_TIMEOUT_S`` with `wait`.

    Raises BadInput or Refused (exit code 2), TimedOut (3), Unreachable (4).
    """
    if timeout is None:
        timeout = DEFAULT_WAIT_TIMEOUT_S if wait else DEFAULT_TIMEOUT_S
    if not timeout > 0:
        raise BadInput(f"the timeout must be a positive number of seconds, not {timeout!r}")
    if not poll_interval > 0:
        raise BadInput(f"the poll interval must be positive, not {poll_interval!r}")
    data = bundle_bytes(bundle)
    client = client or Client(url, token)
    deadline = client.clock() + timeout
    created, summary = client.create(data, deadline=deadline)
    analysis_id = summary.get("id")
    if not isinstance(analysis_id, int):
        raise Unreachable("the server's answer names no analysis id")
    detail = client.follow(
        analysis_id, wait=wait, deadline=deadline, timeout=timeout, poll_interval=poll_interval
    )
    state = AnalysisState.from_api(detail)
    approved = client.export(analysis_id, deadline=deadline) if state.status == APPROVED else None
    return SubmitResult(
        analysis=state,
        created=created,
        outcome=cast(Outcome, state.status),
        verdict=Verdict.latest(detail),
        approved=approved,
    )


def bundle_bytes(bundle: BundleSource) -> bytes:
    """The bundle as JSON bytes, checked only as far as the client must: readable, UTF-8,
    one JSON object. Its fields are the server's to judge (one set of rules, there)."""
    if isinstance(bundle, Mapping):
        try:
            return json.dumps(bundle, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as error:
            raise BadInput(f"the bundle cannot be written as JSON: {error}") from None
    if isinstance(bundle, bytes):
        data, where = bundle, "the bundle"
    else:
        data, where = _read_file(Path(bundle)), str(bundle)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadInput(f"{where} is not UTF-8 (byte offset {error.start})") from None
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise BadInput(f"{where} is not valid JSON: nested too deeply") from None
    except ValueError as error:
        raise BadInput(f"{where} is not valid JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise BadInput(f"{where} must hold one JSON object (a bundle), not {_kind(parsed)}")
    return text.encode("utf-8")


def _read_file(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as error:
        raise BadInput(f"cannot open {path}: {error.strerror or error}") from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise BadInput(f"{path} is larger than {MAX_BUNDLE_BYTES} bytes")
    return data


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else type(value).__name__


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Unreachable("the server answered something other than a JSON object")
    return value
