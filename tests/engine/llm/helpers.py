"""Shared data for the LLM path's tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from validation.engine.llm import LLMSettings
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict

DATA = Path(__file__).resolve().parents[1] / "data"


def nvo() -> Bundle:
    return Bundle.model_validate_json((DATA / "bundle_nvo.json").read_text())


def wrong_owner_earnings() -> Bundle:
    """NVO with owner earnings of $14.6B (15.5 - 0.7 is 14.8)."""
    bundle = nvo()
    body = bundle.body.replace("Owner earnings are $14.8B", "Owner earnings are $14.6B")
    assert body != bundle.body
    return bundle.model_copy(update={"body": body})


def engine_verdict(bundle: Bundle) -> Verdict:
    return validate(bundle)


def judge_json(**overrides: Any) -> str:
    answer: dict[str, Any] = {
        "decision": "APPROVE",
        "confidence": 0.92,
        "issues": [],
        "checks": {
            "claims_supported": True,
            "no_hallucinations": True,
            "query_addressed": True,
            "coherent_format": True,
            "source_metadata_present": True,
        },
        "revision_hints": "",
        "suggested_fixes": "",
        # bundle_nvo.json has two goals
        "goals": [
            {"goal": "Owner earnings from operating cash flow and capex", "score": 0.9},
            {"goal": "Intrinsic value versus the current price", "score": 0.9},
        ],
        "unsupported_claims": [],
    }
    for key, value in overrides.items():
        if key in answer["checks"]:
            answer["checks"][key] = value
        else:
            answer[key] = value
    return json.dumps(answer)


def fast_settings(base_url: str, **overrides: Any) -> LLMSettings:
    """Settings for a loopback server: short timeouts and backoff."""
    values: dict[str, Any] = {
        "base_url": base_url,
        "model": "scripted",
        "timeout_s": 5.0,
        "attempt_budget_s": 20.0,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
    }
    values.update(overrides)
    return LLMSettings.model_validate(values)


def placeholder_answer(**overrides: Any) -> str:
    """What the local 135M model answered on re-validation: valid JSON, every check false,
    FAIL, the issue "items", goal scores with empty names, nothing quoted."""
    answer = json.loads(
        judge_json(
            decision="FAIL",
            confidence=0.2,
            issues=["items"],
            goals=[{"goal": "", "score": 0}, {"goal": "", "score": 0}],
            claims_supported=False,
            no_hallucinations=False,
            query_addressed=False,
            coherent_format=False,
            source_metadata_present=False,
        )
    )
    answer.update(overrides)
    return json.dumps(answer)
