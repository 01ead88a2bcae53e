"""Redline's validation engine: pure Python, no Django, no database.

The public names are importable from here::

    from validation.engine import Bundle, EngineSettings, build_index, validate

    verdict = validate(bundle)                         # builds the evidence index itself
    index = build_index(bundle.evidence)               # or build it once ...
    verdict = validate(bundle, settings, index=index)  # ... and reuse it on warm calls

Its shape:

- ``types`` (the contract: Bundle, Verdict, EngineSettings, the check names) and
  ``limits`` (input limits and the rules of a bundle's values); ``intake`` (a bundle
  read by ingest's rules); ``errors`` (``EngineError``, the root of every exception);
- ``pipeline.validate``: every check, then ``decision`` (confidence, checks, decision),
  ``caps`` (findings capped per check and kind) and ``fields``;
- ``checks/``: one module or package per check -- ``sources``, ``format``, ``query``,
  ``years`` and ``numeric/`` (the numbers: reading them, the evidence index, matching,
  derivation and written calculations);
- ``calculator`` (the safe calculator), ``spans``, ``fixes`` (applying fixes),
  ``report`` (the Markdown of an attempt), ``seedformat``, ``cli`` (``redline check``);
- ``llm/``: the optional LLM path.

Modules whose name starts with an underscore are private. Names are loaded on first
use, so a light consumer such as ``validation.engine.fixes`` or
``validation.engine.seedformat`` never pays for -- or depends on -- the numbers
machinery.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from validation.engine.calculator import CalculatorError
    from validation.engine.checks.numeric import EvidenceIndex, build_index
    from validation.engine.cli import CommandInputError
    from validation.engine.errors import EngineError
    from validation.engine.fields import extract_fields
    from validation.engine.fixes import (
        ApplyResult,
        FixBlockError,
        FixToApply,
        apply_fixes,
        count_occurrences,
    )
    from validation.engine.intake import BundleError, UnstorableValue, check_bundle
    from validation.engine.limits import InputLimits
    from validation.engine.llm import (
        LLMConfigError,
        LLMOutcome,
        LLMSettings,
        run_llm_path,
        settings_from_env,
    )
    from validation.engine.llm.local import LocalLLMError
    from validation.engine.llm.provider import ProviderError
    from validation.engine.llm.retry import AnswerRejected, ValidationExhaustedError
    from validation.engine.pipeline import validate
    from validation.engine.report import render_attempt_markdown
    from validation.engine.seedformat import read_seed
    from validation.engine.types import (
        CHECK_LABELS,
        CHECK_NAMES,
        Bundle,
        EngineSettings,
        EvidenceItem,
        Finding,
        FixProposal,
        Verdict,
    )

# Where each public name is defined (loaded on first use).
_HOMES = {
    "AnswerRejected": "validation.engine.llm.retry",
    "ApplyResult": "validation.engine.fixes",
    "Bundle": "validation.engine.types",
    "BundleError": "validation.engine.intake",
    "CHECK_LABELS": "validation.engine.types",
    "CHECK_NAMES": "validation.engine.types",
    "CalculatorError": "validation.engine.calculator",
    "CommandInputError": "validation.engine.cli",
    "EngineError": "validation.engine.errors",
    "EngineSettings": "validation.engine.types",
    "EvidenceIndex": "validation.engine.checks.numeric",
    "EvidenceItem": "validation.engine.types",
    "Finding": "validation.engine.types",
    "FixBlockError": "validation.engine.fixes",
    "FixProposal": "validation.engine.types",
    "FixToApply": "validation.engine.fixes",
    "InputLimits": "validation.engine.limits",
    "LLMConfigError": "validation.engine.llm",
    "LLMOutcome": "validation.engine.llm",
    "LLMSettings": "validation.engine.llm",
    "LocalLLMError": "validation.engine.llm.local",
    "ProviderError": "validation.engine.llm.provider",
    "UnstorableValue": "validation.engine.intake",
    "ValidationExhaustedError": "validation.engine.llm.retry",
    "Verdict": "validation.engine.types",
    "apply_fixes": "validation.engine.fixes",
    "build_index": "validation.engine.checks.numeric",
    "check_bundle": "validation.engine.intake",
    "count_occurrences": "validation.engine.fixes",
    "extract_fields": "validation.engine.fields",
    "read_seed": "validation.engine.seedformat",
    "render_attempt_markdown": "validation.engine.report",
    "run_llm_path": "validation.engine.llm",
    "settings_from_env": "validation.engine.llm",
    "validate": "validation.engine.pipeline",
}

__all__ = [
    "CHECK_LABELS",
    "CHECK_NAMES",
    "AnswerRejected",
    "ApplyResult",
    "Bundle",
    "BundleError",
    "CalculatorError",
    "CommandInputError",
    "EngineError",
    "EngineSettings",
    "EvidenceIndex",
    "EvidenceItem",
    "Finding",
    "FixBlockError",
    "FixProposal",
    "FixToApply",
    "InputLimits",
    "LLMConfigError",
    "LLMOutcome",
    "LLMSettings",
    "LocalLLMError",
    "ProviderError",
    "UnstorableValue",
    "ValidationExhaustedError",
    "Verdict",
    "apply_fixes",
    "build_index",
    "check_bundle",
    "count_occurrences",
    "extract_fields",
    "read_seed",
    "render_attempt_markdown",
    "run_llm_path",
    "settings_from_env",
    "validate",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
