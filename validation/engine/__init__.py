"""Redline's validation engine: pure Python, no Django.

Public API::

    from validation.engine import validate, build_index, Bundle, EngineSettings

    verdict = validate(bundle)                      # builds the evidence index itself
    index = build_index(bundle.evidence)            # or build it once ...
    verdict = validate(bundle, settings, index=index)  # ... and reuse it on warm calls

Everything but the contract types is imported lazily (PEP 562 ``__getattr__``) so that a
light consumer such as ``validation.engine.fixes`` or ``validation.engine.seedformat``
never pays for -- or depends on -- the numbers machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from validation.engine.types import (
    CHECK_NAMES,
    Bundle,
    CheckName,
    Checks,
    Decision,
    EngineSettings,
    EvidenceExcerpt,
    EvidenceItem,
    ExtractedFields,
    Finding,
    FixProposal,
    GoalScore,
    GoalStatus,
    NumberMatch,
    NumbersReport,
    Severity,
    ToolCallRecord,
    Verdict,
    VerdictError,
)

if TYPE_CHECKING:
    from validation.engine.decision import decide
    from validation.engine.fields import extract_fields
    from validation.engine.fixes import (
        ApplyResult,
        FixBlockError,
        FixToApply,
        ParsedFix,
        apply_fixes,
        parse_fix_blocks,
    )
    from validation.engine.numbers import EvidenceIndex, build_index
    from validation.engine.pipeline import validate
    from validation.engine.report import render_attempt_markdown
    from validation.engine.seedformat import read_seed

# public name -> module that defines it
_LAZY: dict[str, str] = {
    "validate": "validation.engine.pipeline",
    "build_index": "validation.engine.numbers",
    "EvidenceIndex": "validation.engine.numbers",
    "decide": "validation.engine.decision",
    "extract_fields": "validation.engine.fields",
    "parse_fix_blocks": "validation.engine.fixes",
    "apply_fixes": "validation.engine.fixes",
    "ParsedFix": "validation.engine.fixes",
    "FixBlockError": "validation.engine.fixes",
    "FixToApply": "validation.engine.fixes",
    "ApplyResult": "validation.engine.fixes",
    "read_seed": "validation.engine.seedformat",
    "render_attempt_markdown": "validation.engine.report",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value  # cache: the next lookup is a plain module attribute
    return value


__all__ = [
    "CHECK_NAMES",
    "ApplyResult",
    "Bundle",
    "CheckName",
    "Checks",
    "Decision",
    "EngineSettings",
    "EvidenceExcerpt",
    "EvidenceIndex",
    "EvidenceItem",
    "ExtractedFields",
    "Finding",
    "FixBlockError",
    "FixProposal",
    "FixToApply",
    "GoalScore",
    "GoalStatus",
    "NumberMatch",
    "NumbersReport",
    "ParsedFix",
    "Severity",
    "ToolCallRecord",
    "Verdict",
    "VerdictError",
    "apply_fixes",
    "build_index",
    "decide",
    "extract_fields",
    "parse_fix_blocks",
    "read_seed",
    "render_attempt_markdown",
    "validate",
]
