"""Settings of the LLM path, and where they come from.

:func:`settings_from_env` reads the ``REDLINE_LLM_*`` environment (the command line uses it;
the Django side builds :class:`LLMSettings` from the environment too and overrides what the
admin Policy holds, except the key). Without ``REDLINE_LLM_BASE_URL`` there is no LLM path:
everything stays deterministic.

=================================  ===============================  =========
variable                           field                            default
=================================  ===============================  =========
``REDLINE_LLM_BASE_URL``           ``base_url``                     (none)
``REDLINE_LLM_MODEL``              ``model``                        ``default``
``REDLINE_LLM_API_KEY``            ``api_key``                      (none)
``REDLINE_LLM_TIMEOUT``            ``timeout_s`` (one request)      30
``REDLINE_LLM_MAX_TOKENS``         ``max_tokens`` (one answer)      1024
``REDLINE_LLM_TEMPERATURE``        ``temperature``                  0.0
``REDLINE_LLM_EVIDENCE_TOKENS``    ``evidence_token_budget``        3000
``REDLINE_LLM_REPORT_TOKENS``      ``report_token_budget``          3000
``REDLINE_LLM_CONTEXT_TOKENS``     ``context_tokens``               8192
``REDLINE_LLM_ATTEMPT_BUDGET``     ``attempt_budget_s``             180
``REDLINE_LLM_RESPONSE_FORMAT``    ``response_format``              json_schema
``REDLINE_LLM_FIXER``              ``fixer_enabled``                1
``REDLINE_LLM_FIXER_TOOL_CHOICE``  ``fixer_tool_choice``            auto
``REDLINE_LLM_RETRY_ENABLED``      ``retry.enabled``                1
``REDLINE_LLM_RETRY_MAX_ATTEMPTS`` ``retry.max_attempts``           3
``REDLINE_LLM_RETRY_DELAY``        ``retry.delay_s``                0
=================================  ===============================  =========
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from validation.engine.errors import EngineError


class LLMConfigError(EngineError, ValueError):
    """The ``REDLINE_LLM_*`` environment cannot be read; the message names the variable."""


class RetryPolicy(BaseModel):
    """Retry-with-error-feedback of the judge (retry seed, requirements 1 and 3.4)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    max_attempts: int = Field(default=3, ge=1, le=10)  # 1 initial + 2 retries
    delay_s: float = Field(default=0.0, ge=0, le=60)
    abort_on_identical_errors: bool = True
    # A warning is logged when, over the last `window` runs that needed a retry, fewer than
    # this share recovered (requirement 4.5).
    success_rate_threshold: float = Field(default=0.5, ge=0, le=1)
    window: int = Field(default=50, ge=1, le=10_000)
    min_samples: int = Field(default=10, ge=1, le=10_000)


class LLMSettings(BaseModel):
    """An OpenAI-compatible chat-completions endpoint and how the LLM path uses it."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(min_length=1, max_length=2000)
    model: str = Field(default="default", min_length=1, max_length=200)
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=30.0, gt=0, le=600)
    max_tokens: int = Field(default=1024, ge=16, le=32_000)
    temperature: float = Field(default=0.0, ge=0, le=2)
    # Tokens (about 4 characters each) of evidence the judge sees, and of report per judge
    # call: a longer report is judged in parts, split at sections and never mid-sentence.
    evidence_token_budget: int = Field(default=3000, ge=100, le=200_000)
    report_token_budget: int = Field(default=3000, ge=100, le=200_000)
    # The model's context window. Report and evidence budgets shrink to fit it with the
    # prompt's fixed parts and the answer (max_tokens): a context overflow is never sent.
    context_tokens: int = Field(default=8192, ge=1024, le=2_000_000)
    # The whole LLM path of one attempt (judge, retries, fixer, backoff) ends within this;
    # keep it under the worker task's soft time limit.
    attempt_budget_s: float = Field(default=180.0, gt=0, le=3600)
    # Transport retries (timeouts, 429, 5xx, connection errors) of one request.
    max_transport_retries: int = Field(default=3, ge=0, le=10)
    backoff_base_s: float = Field(default=0.5, ge=0, le=60)
    backoff_max_s: float = Field(default=8.0, ge=0, le=600)
    # json_schema: OpenAI's structured output; json_object: {"type": "json_object",
    # "schema": ...} (llama.cpp server, vLLM); none: the schema is only in the prompt.
    response_format: Literal["json_schema", "json_object", "none"] = "json_schema"
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    fixer_enabled: bool = True
    # auto: the model decides when to call a tool; named: each tool is asked for by name,
    # once (servers that return tool calls only then, e.g. llama.cpp with a model's own
    # chat template).
    fixer_tool_choice: Literal["auto", "named"] = "auto"
    fixer_max_turns: int = Field(default=6, ge=1, le=30)
    fixer_max_tool_calls: int = Field(default=12, ge=0, le=100)
    fixer_token_budget: int = Field(default=16_000, ge=500, le=1_000_000)
    # Confidence of an LLM fix that no tool call of its own supports.
    unverified_fix_confidence: float = Field(default=0.2, ge=0, le=1)
    # Hosts the outbound rule (engine.outbound, the LLM profile) lets through although they
    # are link-local or a metadata address: REDLINE_LLM_ALLOWED_HOSTS.
    allowed_hosts: list[str] = Field(default_factory=list, max_length=100)

    def budgets(self, fixed_tokens: int) -> tuple[int, int]:
        """``(report, evidence)`` token budgets of one prompt whose other parts take
        ``fixed_tokens``: the configured budgets, shrunk to fit the context window with the
        answer. The report gets at most half of what is left, and never less than 100."""
        room = max(200, self.context_tokens - self.max_tokens - fixed_tokens)
        report = max(100, min(self.report_token_budget, room // 2))
        evidence = max(100, min(self.evidence_token_budget, room - report))
        return report, evidence


_FIELDS: dict[str, str] = {
    "REDLINE_LLM_BASE_URL": "base_url",
    "REDLINE_LLM_MODEL": "model",
    "REDLINE_LLM_API_KEY": "api_key",
    "REDLINE_LLM_TIMEOUT": "timeout_s",
    "REDLINE_LLM_MAX_TOKENS": "max_tokens",
    "REDLINE_LLM_TEMPERATURE": "temperature",
    "REDLINE_LLM_EVIDENCE_TOKENS": "evidence_token_budget",
    "REDLINE_LLM_REPORT_TOKENS": "report_token_budget",
    "REDLINE_LLM_CONTEXT_TOKENS": "context_tokens",
    "REDLINE_LLM_ATTEMPT_BUDGET": "attempt_budget_s",
    "REDLINE_LLM_RESPONSE_FORMAT": "response_format",
    "REDLINE_LLM_FIXER": "fixer_enabled",
    "REDLINE_LLM_FIXER_TOOL_CHOICE": "fixer_tool_choice",
}
_RETRY_FIELDS: dict[str, str] = {
    "REDLINE_LLM_RETRY_ENABLED": "enabled",
    "REDLINE_LLM_RETRY_MAX_ATTEMPTS": "max_attempts",
    "REDLINE_LLM_RETRY_DELAY": "delay_s",
}


def settings_from_env(environ: Mapping[str, str]) -> LLMSettings | None:
    """``LLMSettings`` from ``REDLINE_LLM_*``; None when no base URL is configured.

    Raises :class:`LLMConfigError` naming the variable when a value is not acceptable."""
    env = environ
    if not env.get("REDLINE_LLM_BASE_URL", "").strip():
        return None
    data: dict[str, object] = {
        field: env[name].strip() for name, field in _FIELDS.items() if env.get(name, "").strip()
    }
    retry = {
        field: env[name].strip()
        for name, field in _RETRY_FIELDS.items()
        if env.get(name, "").strip()
    }
    if retry:
        data["retry"] = retry
    allowed = [name.strip() for name in env.get("REDLINE_LLM_ALLOWED_HOSTS", "").split(",")]
    if any(allowed):
        data["allowed_hosts"] = [name for name in allowed if name]
    try:
        return LLMSettings.model_validate(data)
    except ValidationError as error:
        names = {**{v: k for k, v in _FIELDS.items()}, **{v: k for k, v in _RETRY_FIELDS.items()}}
        problems = []
        for item in error.errors():
            field = str(item["loc"][-1]) if item["loc"] else ""
            problems.append(f"{names.get(field, field)}: {item['msg']}")
        raise LLMConfigError("; ".join(problems)) from None
