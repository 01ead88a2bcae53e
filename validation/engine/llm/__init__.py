"""The optional LLM path: a judge for what rules cannot decide, a fixer that proves its
fixes with tools, and retries that learn from their errors. Pure Python, no Django.

Public API::

    from validation.engine.llm import run_llm_path, settings_from_env, Deadline

    llm_settings = settings_from_env(environ)   # None: no endpoint, stay deterministic
    if llm_settings is not None:
        outcome = run_llm_path(bundle, verdict, engine_settings, llm_settings,
                               Deadline(seconds_left_in_the_task))
        outcome.verdict      # merged Verdict; outcome.verdict.llm is the LLMReport
        outcome.errored      # the judge never answered validly: never APPROVE
        outcome.calls        # LLMCallRecord per HTTP request (-> LLMCall rows)
        outcome.tool_calls   # the fixer's ToolCallRecords (each fix carries its own proof)
"""

from __future__ import annotations

from validation.engine.llm.path import LLMOutcome, run_llm_path, with_llm
from validation.engine.llm.provider import ChatClient, Deadline, ProviderError
from validation.engine.llm.retry import (
    METRICS,
    RetryMetrics,
    ValidationExhaustedError,
    format_errors_for_prompt,
    generate_and_validate,
)
from validation.engine.llm.settings import (
    LLMConfigError,
    LLMSettings,
    RetryPolicy,
    settings_from_env,
)

__all__ = [
    "METRICS",
    "ChatClient",
    "Deadline",
    "LLMConfigError",
    "LLMOutcome",
    "LLMSettings",
    "ProviderError",
    "RetryMetrics",
    "RetryPolicy",
    "ValidationExhaustedError",
    "format_errors_for_prompt",
    "generate_and_validate",
    "run_llm_path",
    "settings_from_env",
    "with_llm",
]
