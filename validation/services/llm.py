"""The optional LLM path of a validation attempt (issue 9), on the Django side.

``llm_settings(policy)`` is the endpoint: ``REDLINE_LLM_*`` (read by ``project/settings.py``
into ``settings.REDLINE_LLM_ENV``), overridden by the admin Policy (everything but the key);
None when no base URL is configured anywhere or the Policy turns the path off, and then
everything stays deterministic. ``llm_run`` runs the path after the deterministic engine
within a budget that ends before the worker task's soft time limit, so a slow endpoint never
makes the sweeper re-run the attempt. ``llm_rows`` writes what it did: one LLMCall row per
HTTP request, and the attempt's ``llm`` record (status, error, what the LLM changed,
retries, fixer)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import F

from validation.engine.llm import (
    Deadline,
    LLMConfigError,
    LLMOutcome,
    LLMSettings,
    run_llm_path,
)
from validation.engine.llm import settings_from_env as _settings_from_env
from validation.engine.outbound import Profile, url_problem
from validation.engine.types import Bundle, EngineSettings, LLMReport, Verdict
from validation.models import Attempt, LLMCall, Policy

logger = logging.getLogger(__name__)

# What is left of the task's soft time limit after the LLM path: persisting the verdict.
_MARGIN_SHARE = 0.1
_MIN_MARGIN_S = 2.0


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url.strip())
    return parts.scheme.lower(), (parts.netloc or "").lower()


def llm_settings(policy: Policy, environ: Mapping[str, str] | None = None) -> LLMSettings | None:
    """The endpoint of the LLM path, or None (deterministic only).

    Raises ``LLMConfigError`` (naming the variable) when the environment cannot be read."""
    if not policy.llm_enabled:
        return None
    env = dict(settings.REDLINE_LLM_ENV if environ is None else environ)
    env_url = env.get("REDLINE_LLM_BASE_URL", "").strip()
    if policy.llm_base_url:
        # Checked on save (Policy.clean) and again here: a row saved before the rule, or a
        # name that resolves elsewhere now. The environment's own URL is the operator's.
        problem = url_problem(policy.llm_base_url, Profile.LLM, settings.REDLINE_LLM_ALLOWED_HOSTS)
        if problem:
            raise LLMConfigError(f"The Policy's LLM base URL {problem}.")
        env["REDLINE_LLM_BASE_URL"] = policy.llm_base_url
    base = _settings_from_env(env)
    if base is None:
        return None
    update: dict[str, Any] = {
        "retry": base.retry.model_copy(
            update={
                "enabled": policy.retry_enabled,
                "max_attempts": policy.retry_max_attempts,
                "delay_s": policy.retry_delay_seconds,
                "abort_on_identical_errors": policy.retry_abort_on_identical_errors,
                "success_rate_threshold": policy.retry_success_rate_threshold,
            }
        )
    }
    update["allowed_hosts"] = list(settings.REDLINE_LLM_ALLOWED_HOSTS)
    if policy.llm_model:
        update["model"] = policy.llm_model
    if policy.llm_timeout_seconds is not None:
        update["timeout_s"] = policy.llm_timeout_seconds
    if policy.llm_max_tokens is not None:
        update["max_tokens"] = policy.llm_max_tokens
    if policy.llm_temperature is not None:
        update["temperature"] = policy.llm_temperature
    if policy.llm_context_tokens is not None:
        update["context_tokens"] = policy.llm_context_tokens
    if policy.llm_evidence_tokens is not None:
        update["evidence_token_budget"] = policy.llm_evidence_tokens
    # The key belongs to the environment's endpoint: never send it to another host.
    if policy.llm_base_url and _origin(policy.llm_base_url) != _origin(env_url):
        update["api_key"] = None
    # model_copy does not validate: validate the merged values like the environment's.
    data = base.model_dump()
    data.update(update)
    data["retry"] = update["retry"].model_dump()
    return LLMSettings.model_validate(data)


def llm_budget_seconds(
    llm: LLMSettings, *, soft_limit_s: float, started: float, now: float | None = None
) -> float:
    """Seconds the LLM path may take: its own budget, cut to end before the task's soft time
    limit ``soft_limit_s`` (less a margin to persist the verdict), counted from ``started``
    (monotonic)."""
    now = time.monotonic() if now is None else now
    margin = max(_MIN_MARGIN_S, soft_limit_s * _MARGIN_SHARE)
    left = soft_limit_s - (now - started) - margin
    return max(0.0, min(llm.attempt_budget_s, left))


def llm_run(
    bundle: Bundle,
    verdict: Verdict,
    engine: EngineSettings,
    llm: LLMSettings,
    *,
    soft_limit_s: float,
    started: float,
) -> LLMOutcome:
    """The LLM path on the deterministic ``verdict``, within the attempt's budget."""
    seconds = llm_budget_seconds(llm, soft_limit_s=soft_limit_s, started=started)
    if seconds < llm.attempt_budget_s:
        logger.info("LLM path budget cut to %.1f s by the task's soft time limit.", seconds)
    return run_llm_path(bundle, verdict, engine, llm, Deadline(seconds))


def llm_record(report: LLMReport) -> dict[str, Any]:
    """What the attempt keeps of the LLM path besides its calls (stored as rows)."""
    data = report.model_dump(mode="json", exclude={"calls": True, "fixer": {"tool_calls"}})
    data["changed"] = report.changes.changed()
    return data


def llm_rows(attempt_id: int, report: LLMReport | None) -> int:
    """Write the LLM calls and record of one attempt (inside the caller's transaction).

    The attempt's ``llm_call_count`` counts every LLMCall row it has: a re-validated attempt
    keeps the calls of its earlier runs (their proof), and its count says so."""
    if report is None:
        return 0
    LLMCall.objects.bulk_create(
        [
            LLMCall(
                attempt_id=attempt_id,
                purpose=call.purpose[:20],
                model=call.model[:200],
                prompt=call.prompt,
                response=call.response
                or (_tool_calls_text(call.response_tool_calls) if call.response_tool_calls else ""),
                prompt_tokens=max(0, call.prompt_tokens),
                completion_tokens=max(0, call.completion_tokens),
                latency_ms=call.latency_ms,
                error=call.error,
            )
            for call in report.calls
        ]
    )
    Attempt.objects.filter(pk=attempt_id).update(
        llm=llm_record(report), llm_call_count=F("llm_call_count") + len(report.calls)
    )
    return len(report.calls)


def _tool_calls_text(calls: list[dict[str, Any]]) -> str:
    return json.dumps({"tool_calls": calls}, ensure_ascii=False, indent=1)
