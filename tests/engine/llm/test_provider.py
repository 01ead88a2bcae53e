"""The provider against a real loopback server: records, timeouts, 429 with Retry-After,
5xx with capped exponential backoff, and a clear error inside the attempt's budget."""

from __future__ import annotations

import time

import pytest

from tests.engine.llm.helpers import engine_verdict, fast_settings, judge_json, nvo
from tests.engine.llm.server import ScriptedLLM, free_port, reply, stall, status
from validation.engine.llm import (
    ChatClient,
    Deadline,
    LLMConfigError,
    ProviderError,
    RetryMetrics,
    run_llm_path,
)
from validation.engine.llm.provider import retry_after_seconds
from validation.engine.llm.settings import settings_from_env
from validation.engine.types import EngineSettings

MESSAGES = [{"role": "user", "content": "hello"}]


class Sleeps:
    """Records the waits instead of sleeping them (the server is real; the clock is not)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_a_call_is_recorded_with_prompt_response_tokens_and_latency() -> None:
    with ScriptedLLM([reply("hi there", prompt_tokens=12, completion_tokens=3)]) as llm:
        client = ChatClient(fast_settings(llm.base_url))
        result = client.complete(MESSAGES, purpose="judge", deadline=Deadline(10))

    assert result.content == "hi there"
    assert result.tokens == 15
    (record,) = client.records
    assert record.purpose == "judge"
    assert record.model == "scripted"
    assert record.prompt == MESSAGES
    assert record.response == "hi there"
    assert (record.prompt_tokens, record.completion_tokens) == (12, 3)
    assert record.latency_ms > 0
    assert record.error == ""
    assert llm.requests[0]["messages"] == MESSAGES
    assert llm.requests[0]["model"] == "scripted"


def test_429_honours_retry_after_then_succeeds() -> None:
    sleeps = Sleeps()
    script = [status(429, "slow down", headers={"Retry-After": "0.04"}), reply("ok")]
    with ScriptedLLM(script) as llm:
        client = ChatClient(fast_settings(llm.base_url), sleep=sleeps)
        result = client.complete(MESSAGES, purpose="judge", deadline=Deadline(10))

    assert result.content == "ok"
    assert sleeps.waits == [0.04]
    first, second = client.records
    assert first.status_code == 429
    assert "HTTP 429" in first.error
    assert (first.try_number, second.try_number) == (1, 2)
    assert second.error == ""


def test_5xx_backs_off_exponentially_with_a_cap_then_fails_clearly() -> None:
    sleeps = Sleeps()
    script = [status(500), status(502), status(503), status(500)]
    settings = fast_settings(
        "http://unused", backoff_base_s=0.01, backoff_max_s=0.03, max_transport_retries=3
    )
    with ScriptedLLM(script) as llm:
        client = ChatClient(settings.model_copy(update={"base_url": llm.base_url}), sleep=sleeps)
        with pytest.raises(ProviderError) as raised:
            client.complete(MESSAGES, purpose="judge", deadline=Deadline(10))

    assert sleeps.waits == [0.01, 0.02, 0.03]  # doubled, then capped
    assert len(llm.requests) == 4
    assert raised.value.status_code == 500
    assert "HTTP 500" in str(raised.value)
    assert "after 4 tries" in str(raised.value)
    assert [record.status_code for record in client.records] == [500, 502, 503, 500]


def test_a_client_error_is_not_retried() -> None:
    with ScriptedLLM([status(400, "bad request"), reply("never")]) as llm:
        client = ChatClient(fast_settings(llm.base_url))
        with pytest.raises(ProviderError, match="HTTP 400"):
            client.complete(MESSAGES, purpose="judge", deadline=Deadline(10))
    assert len(llm.requests) == 1


def test_a_timeout_is_retried_then_reported() -> None:
    settings_ = fast_settings("http://x", timeout_s=0.2, max_transport_retries=1)
    with ScriptedLLM([stall(1.0), stall(1.0)]) as llm:
        client = ChatClient(settings_.model_copy(update={"base_url": llm.base_url}))
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"did not answer within 0.2 s"):
            client.complete(MESSAGES, purpose="judge", deadline=Deadline(10))
        elapsed = time.monotonic() - started

    assert len(client.records) == 2
    assert elapsed < 5


def test_a_retry_after_beyond_the_attempt_budget_fails_at_once_with_a_clear_error() -> None:
    sleeps = Sleeps()
    settings_ = fast_settings("http://x", backoff_max_s=30)
    with ScriptedLLM([status(503, headers={"Retry-After": "20"}), reply("late")]) as llm:
        client = ChatClient(settings_.model_copy(update={"base_url": llm.base_url}), sleep=sleeps)
        with pytest.raises(ProviderError) as raised:
            client.complete(MESSAGES, purpose="judge", deadline=Deadline(2))

    assert sleeps.waits == []
    assert "time budget (2 s)" in str(raised.value)
    assert len(llm.requests) == 1


def test_each_request_timeout_is_cut_to_what_the_deadline_leaves() -> None:
    settings_ = fast_settings("http://x", timeout_s=30, max_transport_retries=0)
    with ScriptedLLM([stall(2.0)]) as llm:
        client = ChatClient(settings_.model_copy(update={"base_url": llm.base_url}))
        started = time.monotonic()
        with pytest.raises(ProviderError, match="did not answer"):
            client.complete(MESSAGES, purpose="judge", deadline=Deadline(0.3))
    assert time.monotonic() - started < 1.5


def test_an_unreachable_endpoint_is_a_provider_error() -> None:
    settings_ = fast_settings(f"http://127.0.0.1:{free_port()}/v1", max_transport_retries=1)
    client = ChatClient(settings_)
    with pytest.raises(ProviderError, match="cannot connect"):
        client.complete(MESSAGES, purpose="judge", deadline=Deadline(5))
    assert len(client.records) == 2


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_settings_come_from_the_environment() -> None:
    assert settings_from_env({}) is None
    settings = settings_from_env(
        {
            "REDLINE_LLM_BASE_URL": "http://127.0.0.1:8088/v1",
            "REDLINE_LLM_MODEL": "smollm2",
            "REDLINE_LLM_API_KEY": "sk-secret",
            "REDLINE_LLM_TIMEOUT": "12.5",
            "REDLINE_LLM_MAX_TOKENS": "256",
            "REDLINE_LLM_TEMPERATURE": "0.2",
            "REDLINE_LLM_RETRY_MAX_ATTEMPTS": "2",
        }
    )
    assert settings is not None
    assert settings.model == "smollm2"
    assert settings.timeout_s == 12.5
    assert settings.max_tokens == 256
    assert settings.temperature == 0.2
    assert settings.retry.max_attempts == 2
    assert "sk-secret" not in repr(settings)
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "sk-secret"
    defaults = settings_from_env({"REDLINE_LLM_BASE_URL": "http://h/v1"})
    assert defaults is not None and defaults.timeout_s == 30.0


def test_a_bad_environment_value_names_its_variable() -> None:
    with pytest.raises(LLMConfigError, match="REDLINE_LLM_TIMEOUT"):
        settings_from_env({"REDLINE_LLM_BASE_URL": "http://h/v1", "REDLINE_LLM_TIMEOUT": "soon"})


def test_a_500_that_names_the_response_format_is_a_refusal_not_retried() -> None:
    from validation.engine.llm.judge import response_format

    script = [
        status(500, "response_format: type json_schema is not supported"),
        reply(judge_json()),
    ]
    with ScriptedLLM(script) as llm:
        settings = fast_settings(llm.base_url)
        outcome = run_llm_path(
            nvo(), engine_verdict(nvo()), EngineSettings(), settings, metrics=RetryMetrics()
        )
        kinds = [request.get("response_format", {}).get("type") for request in llm.requests]
    assert not outcome.errored
    assert kinds[:2] == ["json_schema", "json_object"]  # one refusal, then the simpler format
    assert response_format(settings) is not None
