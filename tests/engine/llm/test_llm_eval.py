"""bench/llm_eval.py runs against the scripted loopback server on a few labelled bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import llm_eval
from tests.engine.llm.helpers import judge_json, nvo, wrong_owner_earnings
from tests.engine.llm.server import ScriptedLLM, Step, reply, tool_calls

FIX = (
    "<FIX><FIND>Owner earnings are $14.6B</FIND><REPLACE>Owner earnings are $14.8B</REPLACE>"
    "<VERIFIED_WITH>calculator: 15.5 - 0.7 = 14.8</VERIFIED_WITH></FIX>\nFINAL DECISION: BUY"
)


def scripted_model(request: dict[str, Any]) -> Step:
    """Judge requests carry a response_format; the fixer's carry tools (or follow them)."""
    messages = request["messages"]
    if "response_format" in request:
        body = messages[-1]["content"]
        if "$14.6B" in body:
            return reply(judge_json(decision="REVISE", confidence=0.7))
        return reply(judge_json())
    if not any(message["role"] == "tool" for message in messages):
        return tool_calls(("calculator", {"expression": "15.5 - 0.7"}))
    return reply(FIX)


def test_llm_eval_prints_the_rates_with_intervals_beside_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = wrong_owner_earnings()
    span_start = wrong.body.find("$14.6B")
    records = [
        {"bundle": nvo().model_dump(mode="json"), "label": {"positive": False}},
        {
            "bundle": wrong.model_dump(mode="json"),
            "label": {"positive": True, "spans": [[span_start, span_start + 6]]},
        },
    ]
    dev = tmp_path / "tiny-dev.jsonl"
    dev.write_text("".join(json.dumps(record) + "\n" for record in records))
    out = tmp_path / "out.json"

    with ScriptedLLM(fallback=scripted_model) as llm:
        monkeypatch.setenv("REDLINE_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("REDLINE_LLM_MODEL", "scripted")
        code = llm_eval.main([str(dev), "--limit", "5", "--json", str(out)])

    assert code == 0
    printed = capsys.readouterr().out
    assert "first-attempt success      2/2    100.0%" in printed
    assert "final success              2/2" in printed
    assert "fix precision (clean)      1/1" in printed
    assert "mean LLM calls/attempt  2.00 (judge 1.00, fixer 1.00)" in printed
    result = json.loads(out.read_text())
    assert result["totals"]["llm_fixes_verified"] == 1
    assert result["totals"]["errored"] == 0
    if "engine" in result["sets"]["tiny-dev"]:  # score.py is beside the repository
        assert "engine+llm  recall" in printed
        scores = result["sets"]["tiny-dev"]["engine+llm"]
        assert (scores["tp"], scores["tn"]) == (1, 1)


def test_wilson_interval() -> None:
    low, high = llm_eval.wilson(8, 10)
    assert round(low, 3) == 0.490
    assert round(high, 3) == 0.943
    assert llm_eval.wilson(0, 0) == (0.0, 1.0)
