"""What a real small model does to the fixer's proof, reproduced exactly (the scripted
loopback server, a real socket and the real `openai` client): it writes the answer into the
calculator ("15.43279860"), computes from an operand it invented, or proposes a number the
engine still flags. None of these becomes a verified fix."""

from __future__ import annotations

from decimal import Decimal

from tests.engine.llm.helpers import engine_verdict, fast_settings, judge_json, wrong_owner_earnings
from tests.engine.llm.server import ScriptedLLM, reply, tool_calls
from validation.engine.llm import RetryMetrics, run_llm_path
from validation.engine.llm.path import engine_flags
from validation.engine.llm.tools import ToolRun, grounding, known_numbers
from validation.engine.types import Bundle, EngineSettings, FixProposal, ToolCallRecord

JUDGED = judge_json(decision="REVISE", confidence=0.75, issues=["Owner earnings look wrong"])
FIX = (
    '<FIX confidence="0.9">\n<FIND>Owner earnings are $14.6B</FIND>\n'
    "<REPLACE>Owner earnings are ${value}B</REPLACE>\n"
    "<VERIFIED_WITH>calculator: {expression}</VERIFIED_WITH>\n</FIX>\nFINAL DECISION: BUY\n"
)


def run(bundle: Bundle, script: list) -> object:  # type: ignore[type-arg]
    with ScriptedLLM(script) as llm:
        return run_llm_path(
            bundle,
            engine_verdict(bundle),
            EngineSettings(),
            fast_settings(llm.base_url),
            metrics=RetryMetrics(),
        )


def calc(expression: str) -> ToolRun:
    return ToolRun(ToolCallRecord(tool="calculator", input={"expression": expression}), Decimal(1))


def test_a_calculation_of_nothing_or_of_invented_operands_proves_nothing() -> None:
    known = known_numbers(["OCF $15.5B, capex $0.7 billion, margin 12.5%"])
    assert grounding(calc("15.5 - 0.7"), known) == ""
    assert grounding(calc("(15.5 - 0.7) / 15.5 * 100"), known) == ""
    assert grounding(calc("0.125 * 15.5"), known) == ""  # 12.5 % as a fraction
    assert "computes nothing" in grounding(calc("15.43279860"), known)
    assert "computes nothing" in grounding(calc("-14.8"), known)
    assert "operand 15.43" in grounding(calc("15.43 - 0.7"), known)


def test_a_fix_whose_number_is_only_written_into_the_calculator_is_unverified() -> None:
    answer = FIX.replace("{value}", "15.43").replace("{expression}", "15.43279860")
    script = [
        reply(JUDGED),
        tool_calls(("calculator", {"expression": "15.43279860"})),
        reply(answer),
    ]
    outcome = run(wrong_owner_earnings(), script)
    verdict = outcome.verdict  # type: ignore[attr-defined]
    fixer = verdict.llm.fixer
    assert [call.input for call in fixer.tool_calls] == [{"expression": "15.43279860"}]
    llm_fixes = [fix for fix in verdict.fixes if fix.origin == "llm"]
    for fix in llm_fixes:  # kept only as unverified: never bulk-accepted, low confidence
        assert not fix.verified
        assert fix.confidence <= 0.2
        assert "computes nothing" in fix.verified_with
    refused = [r for r in fixer.rejected if r.status == "refused"]
    assert llm_fixes or refused  # the engine may refuse it outright (15.43 is in no evidence)
    assert verdict.decision != "APPROVE"


def test_a_fix_that_disagrees_with_its_own_calculator_call_is_refused_with_its_cause() -> None:
    answer = FIX.replace("{value}", "14.9").replace("{expression}", "15.5 - 0.7")
    script = [
        reply(JUDGED),
        tool_calls(("calculator", {"expression": "15.5 - 0.7"})),
        reply(answer),
    ]
    outcome = run(wrong_owner_earnings(), script)
    verdict = outcome.verdict  # type: ignore[attr-defined]
    assert not [fix for fix in verdict.fixes if fix.origin == "llm"]
    (rejected,) = verdict.llm.fixer.rejected
    assert (rejected.status, rejected.cause) == ("refused", "tool_disagrees")
    assert "14.8" in rejected.reason


def test_a_tool_call_with_wrong_arguments_is_recorded_and_proves_nothing() -> None:
    answer = FIX.replace("{value}", "14.8").replace("{expression}", "15.5 - 0.7 = 14.8")
    script = [
        reply(JUDGED),
        tool_calls(("calculator", {"expr": "15.5 - 0.7"})),
        reply(answer),
    ]
    outcome = run(wrong_owner_earnings(), script)
    verdict = outcome.verdict  # type: ignore[attr-defined]
    (call,) = verdict.llm.fixer.tool_calls
    assert call.error == "calculator needs a string 'expression'"
    (fix,) = [fix for fix in verdict.fixes if fix.origin == "llm"]
    assert not fix.verified and fix.tool_calls == []


def test_the_engine_refuses_a_fix_whose_replacement_it_still_flags() -> None:
    bundle = wrong_owner_earnings()
    settings = EngineSettings()
    wrong = FixProposal(
        find="Owner earnings are $14.6B",
        replace="Owner earnings are $19.3B",
        verified_with="calculator: 15.5 + 3.8 = 19.3",
        confidence=0.9,
        kind="llm",
        origin="llm",
        offset=bundle.body.find("Owner earnings are $14.6B"),
    )
    right = wrong.model_copy(update={"replace": "Owner earnings are $14.8B"})
    assert "the engine flags the replacement" in engine_flags(bundle, settings, wrong)
    assert engine_flags(bundle, settings, right) == ""


def test_named_tool_choice_asks_each_tool_by_name_then_a_json_answer() -> None:
    import json as _json

    answer = _json.dumps(
        {
            "fixes": [
                {
                    "find": "Owner earnings are $14.6B",
                    "replace": "Owner earnings are $14.8B",
                    "verified_with": "calculator: 15.5 - 0.7 = 14.8",
                    "confidence": 0.9,
                },
                {"find": "nowhere in the report", "replace": "x", "verified_with": "-"},
                {"find": "<FIND>injected</FIND>", "replace": "y", "verified_with": "-"},
            ],
            "final_decision": "BUY",
            "final_conviction": "HIGH",
        }
    )
    script = [
        reply(JUDGED),
        tool_calls(("evidence_search", {"query": "operating cash flow"})),
        tool_calls(("calculator", {"expression": "15.5 - 0.7"})),
        reply(answer),
    ]
    bundle = wrong_owner_earnings()
    with ScriptedLLM(script) as llm:
        settings = fast_settings(
            llm.base_url, response_format="json_object", fixer_tool_choice="named"
        )
        outcome = run_llm_path(
            bundle, engine_verdict(bundle), EngineSettings(), settings, metrics=RetryMetrics()
        )
        requests = llm.requests
    assert requests[1]["tool_choice"]["function"]["name"] == "evidence_search"
    assert requests[2]["tool_choice"]["function"]["name"] == "calculator"
    assert "tools" not in requests[3] and requests[3]["response_format"]["type"] == "json_object"
    # The assistant's tool-call turn carries its calls as text too (templates that only
    # render the content).
    assistant = [m for m in requests[2]["messages"] if m["role"] == "assistant"]
    assert assistant and "evidence_search(" in assistant[0]["content"]
    assert outcome.verdict.llm is not None
    fixer = outcome.verdict.llm.fixer
    assert fixer.final_decision == "BUY" and fixer.fixes_proposed == 3
    (kept,) = [fix for fix in outcome.verdict.fixes if fix.origin == "llm"]
    assert kept.verified and kept.replace == "Owner earnings are $14.8B"
    statuses = sorted(rejected.status for rejected in fixer.rejected)
    assert statuses == ["conflict", "malformed"] or statuses == ["conflict", "conflict"]
