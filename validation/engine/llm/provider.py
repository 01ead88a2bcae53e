"""The chat-completions provider: one request at a time, retried when the failure is
transient, always inside the attempt's deadline, and every request recorded.

Transient: a timeout, a connection error, 429 (its ``Retry-After`` / ``retry-after-ms``
honoured) and 5xx. Waits grow as ``backoff_base_s * 2**n`` capped at ``backoff_max_s``;
a wait that would end after the deadline is not started: the request fails at once with a
:class:`ProviderError` that says so. Other statuses (400, 401, 404 ...) are not retried.

The official ``openai`` client does the HTTP (its own retries off: ``max_retries=0``), so any
OpenAI-compatible server works: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio. Its HTTP
client follows no redirect (a 3xx fails the request) and every request's address passes the
LLM profile of ``engine.outbound`` first (no link-local or metadata address, in any form).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import openai

from validation.engine.errors import EngineError
from validation.engine.llm.settings import LLMSettings
from validation.engine.outbound import OutboundRefused, Profile, refuse_request_url
from validation.engine.types import LLMCallRecord

Purpose = Literal["judge", "fixer"]
Message = dict[str, Any]

# The smallest request timeout worth sending: below it the deadline is as good as spent.
_MIN_REQUEST_S = 0.05
_RECORDED_TEXT = 50_000  # characters of a response kept in its record


class ProviderError(EngineError):
    """A request that could not be completed: the endpoint is unreachable, kept failing
    within the deadline, or refused the request. ``status_code`` when the server answered."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class Deadline:
    """A point in monotonic time that the LLM path of one attempt must end by."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.seconds = seconds
        self.at = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self.at - self._clock())

    def expired(self) -> bool:
        return self.remaining() <= 0.0


@dataclass
class ToolCallRequest:
    """A tool call the model asked for."""

    id: str
    name: str
    arguments: str


@dataclass
class ChatResult:
    content: str
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ChatClient:
    """Chat completions against ``settings.base_url``; ``records`` holds every request."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.records: list[LLMCallRecord] = []
        self._sleep = sleep
        api_key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=api_key,
            max_retries=0,  # retries are ours: they must respect the attempt's deadline
            timeout=settings.timeout_s,
            # A redirect could point anywhere (169.254.169.254): none is followed, and each
            # request's own address is checked before it is sent.
            http_client=openai.DefaultHttpxClient(
                timeout=settings.timeout_s,
                follow_redirects=False,
                event_hooks={"request": [self._check_request]},
            ),
        )

    def _check_request(self, request: Any) -> None:
        refuse_request_url(str(request.url), Profile.LLM, self.settings.allowed_hosts)

    def close(self) -> None:
        self._client.close()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: Purpose,
        deadline: Deadline,
        attempt: int = 1,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """One completion, with transport retries inside ``deadline``."""
        settings = self.settings
        request: dict[str, Any] = {
            "model": settings.model,
            "messages": list(messages),
            "max_tokens": max_tokens or settings.max_tokens,
            "temperature": settings.temperature,
        }
        if tools:
            request["tools"] = list(tools)
            request["tool_choice"] = tool_choice or "auto"
        if response_format is not None:
            request["response_format"] = response_format
        try_number = 0
        while True:
            try_number += 1
            remaining = deadline.remaining()
            if remaining < _MIN_REQUEST_S:
                raise ProviderError(
                    f"the attempt's time budget ({deadline.seconds:g} s) is spent "
                    f"before {purpose} request {try_number} could be sent"
                )
            record = LLMCallRecord(
                purpose=purpose,
                model=settings.model,
                prompt=_recordable(messages),
                attempt=attempt,
                try_number=try_number,
            )
            self.records.append(record)
            started = time.monotonic()
            request_timeout = min(settings.timeout_s, remaining)
            try:
                completion = self._client.chat.completions.create(
                    **request, timeout=request_timeout
                )
            except OutboundRefused as refused:
                record.error = f"the endpoint's URL {refused}"
                raise ProviderError(record.error) from None
            except openai.APIError as error:
                record.latency_ms = round((time.monotonic() - started) * 1000, 3)
                failure = _classify(error, request_timeout)
                record.error = failure.message
                record.status_code = failure.status_code
                if not failure.transient or try_number > settings.max_transport_retries:
                    suffix = (
                        f" (after {try_number} tries)"
                        if failure.transient and try_number > 1
                        else ""
                    )
                    raise ProviderError(
                        failure.message + suffix, status_code=failure.status_code
                    ) from None
                wait = self._backoff(try_number, failure.retry_after)
                if wait >= deadline.remaining():
                    raise ProviderError(
                        f"{failure.message}; giving up: the next try (in {wait:.1f} s) would "
                        f"end after the attempt's time budget ({deadline.seconds:g} s)",
                        status_code=failure.status_code,
                    ) from None
                self._sleep(wait)
                continue
            record.latency_ms = round((time.monotonic() - started) * 1000, 3)
            return _result(completion, record)

    def _backoff(self, try_number: int, retry_after: float | None) -> float:
        settings = self.settings
        wait = min(settings.backoff_max_s, settings.backoff_base_s * 2 ** (try_number - 1))
        if retry_after is not None:  # the server knows best, within our cap
            wait = min(max(retry_after, 0.0), max(settings.backoff_max_s, wait))
        return float(wait)


@dataclass
class _Failure:
    message: str
    transient: bool
    status_code: int | None = None
    retry_after: float | None = None


def _classify(error: openai.APIError, timeout_s: float) -> _Failure:
    if isinstance(error, openai.APITimeoutError):
        return _Failure(f"the endpoint did not answer within {timeout_s:.3g} s", True)
    if isinstance(error, openai.APIConnectionError) and isinstance(
        error.__cause__, OutboundRefused
    ):
        return _Failure(f"the endpoint's URL {error.__cause__}", False)
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error.__context__
        detail = f": {' '.join(str(cause).split())}" if cause else ""
        return _Failure(f"cannot connect to the endpoint{detail}", True)
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        detail = " ".join(str(error.message).split())[:300]
        # A 5xx that names the response_format is a refusal of the request, not a passing
        # failure (llama.cpp's Python server answers 500 to a json_schema format): asking
        # again the same way would only spend the attempt's budget.
        refused_format = "response_format" in detail
        if 300 <= status < 400:
            where = error.response.headers.get("location", "nowhere")
            detail = f"a redirect (to {where[:300]}), not followed"
        transient = status == 429 or (status >= 500 and not refused_format)
        retry_after = retry_after_seconds(error.response.headers) if transient else None
        return _Failure(
            f"HTTP {status} from the endpoint: {detail}", transient, status, retry_after
        )
    return _Failure(f"{type(error).__name__}: {error}", False)


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _result(completion: Any, record: LLMCallRecord) -> ChatResult:
    usage = getattr(completion, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    choices = getattr(completion, "choices", None) or []
    if not choices:
        record.error = "the endpoint returned no choices"
        raise ProviderError(record.error)
    choice = choices[0]
    message = choice.message
    content = message.content or ""
    calls = [
        ToolCallRequest(
            id=str(call.id or f"call_{index}"),
            name=str(call.function.name or ""),
            arguments=str(call.function.arguments or ""),
        )
        for index, call in enumerate(message.tool_calls or [])
        if getattr(call, "function", None) is not None
    ]
    record.response = content[:_RECORDED_TEXT]
    record.response_tool_calls = [
        {"id": call.id, "name": call.name, "arguments": call.arguments[:_RECORDED_TEXT]}
        for call in calls
    ]
    record.prompt_tokens = prompt_tokens
    record.completion_tokens = completion_tokens
    return ChatResult(
        content=content,
        tool_calls=calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        finish_reason=str(choice.finish_reason or ""),
    )


def _recordable(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A JSON-safe copy of the messages (they are stored as the call's prompt)."""
    copied: list[dict[str, Any]] = json.loads(json.dumps(list(messages), default=str))
    return copied
