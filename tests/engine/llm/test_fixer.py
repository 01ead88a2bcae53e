"""The fixer (validator-driven refinement) against the scripted loopback server: it calls
both tools, its FIX blocks are checked by the engine, and the tool calls are the proof."""

from __future__ import annotations

from tests.engine.llm.helpers import engine_verdict, fast_settings, judge_json, wrong_owner_earnings
from tests.engine.llm.server import ScriptedLLM, reply, status, tool_calls
from validation.engine.llm import LLMSettings, RetryMetrics, run_llm_path
from validation.engine.llm.figures import agrees, numbers_in
from validation.engine.types import Bundle, EngineSettings

JUDGED = judge_json(decision="REVISE", confidence=0.75, issues=["Owner earnings look wrong"])
SEARCH = ("evidence_search", {"query": "operating cash flow capex"})
CALC = ("calculator", {"expression": "15.5 - 0.7"})


def fix(find: str, replace: str, verified_with: str, attrs: str = "") -> str:
    return (
        f"<FIX{attrs}>\n<FIND>{find}</FIND>\n<REPLACE>{replace}</REPLACE>\n"
        f"<VERIFIED_WITH>{verified_with}</VERIFIED_WITH>\n</FIX>\n"
    )


def run(bundle: Bundle, settings: LLMSettings):  # type: ignore[no-untyped-def]
    return run_llm_path(
        bundle, engine_verdict(bundle), EngineSettings(), settings, metrics=RetryMetrics()
    )


def test_a_fixer_that_calls_both_tools_gives_a_verified_fix_with_its_proof() -> None:
    answer = (
        "<think>maybe 14.7? <FIX><FIND>Owner earnings are $14.6B</FIND><REPLACE>x</REPLACE>"
        "<VERIFIED_WITH>guess</VERIFIED_WITH></FIX></think>\n"
        + fix(
            "Owner earnings are $14.6B",
            "Owner earnings are $14.8B",
            "calculator: 15.5 - 0.7 = 14.8; evidence [cashflow-NVO]: operating cash flow, capex",
            ' confidence="0.9"',
        )
        + "**FINAL DECISION: BUY**\n**FINAL CONVICTION: HIGH**\n"
    )
    script = [reply(JUDGED), tool_calls(SEARCH), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        outcome = run(wrong_owner_earnings(), fast_settings(llm.base_url))

    verdict = outcome.verdict
    report = verdict.llm
    assert report is not None
    fixer = report.fixer
    assert fixer.ran
    assert fixer.turns == 3
    assert fixer.stopped == "answered"
    assert [call.tool for call in fixer.tool_calls] == ["evidence_search", "calculator"]
    assert fixer.tool_calls[1].output == "14.8"
    assert "cashflow-NVO" in (fixer.tool_calls[0].output or "")
    assert (fixer.final_decision, fixer.final_conviction) == ("BUY", "HIGH")
    assert fixer.fixes_proposed == 1  # the one inside <think> was never a proposal
    (proposal,) = [f for f in verdict.fixes if f.origin == "llm"]
    assert proposal.verified
    assert proposal.confidence == 0.9
    assert proposal.replace == "Owner earnings are $14.8B"
    assert proposal.offset == wrong_owner_earnings().body.find("Owner earnings are $14.6B")
    assert {call.tool for call in proposal.tool_calls} == {"calculator", "evidence_search"}
    assert proposal.evidence[0].source_ref == "cashflow-NVO"
    assert proposal.finding_index is not None
    assert verdict.findings[proposal.finding_index].text == "$14.6B"
    # the tools were offered, their results went back to the model as tool messages
    assert [tool["function"]["name"] for tool in llm.requests[1]["tools"]] == [
        "calculator",
        "evidence_search",
    ]
    tool_message = llm.requests[3]["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": "call_0_calculator", "content": "14.8"}
    assert [call.purpose for call in outcome.calls] == ["judge", "fixer", "fixer", "fixer"]
    assert outcome.tool_calls == fixer.tool_calls


def test_a_fix_whose_number_disagrees_with_its_own_calculator_call_is_refused() -> None:
    answer = fix(
        "Owner earnings are $14.6B", "Owner earnings are $14.9B", "calculator: 15.5 - 0.7 = 14.9"
    ) + fix("operating cash flow of $15.5B", "operating cash flow of $15.9B", "calculator_tool")
    script = [reply(JUDGED), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        outcome = run(wrong_owner_earnings(), fast_settings(llm.base_url))

    report = outcome.verdict.llm
    assert report is not None
    assert [f for f in outcome.verdict.fixes if f.origin == "llm"] == []
    first, second = report.fixer.rejected
    assert first.status == "refused"
    assert "calculator gives 14.8" in first.reason
    assert second.status == "refused"
    assert "15.9B" in second.reason
    assert "15.5 - 0.7 = 14.8" in second.reason


def test_malformed_fix_output_is_reported_and_the_good_blocks_still_count() -> None:
    answer = (
        "Here are my fixes.\n"
        "<FIX><FIND>Owner earnings are $14.6B</FIND><REPLACE>Owner earnings are $14.8B"
        "</REPLACE></FIX>\n"  # no VERIFIED_WITH
        "<FIX><FIND>capex of $0.7B</FIND>\n"  # never closed, a second FIX opens
        + fix(
            "  Owner earnings are $14.6B",  # whitespace that is not in the body: no match
            "Owner earnings are $14.8B",
            "calculator: 15.5 - 0.7 = 14.8",
        )
        + fix("Owner earnings are $14.6B", "Owner earnings are $14.8B", "calculator: 15.5-0.7=14.8")
        + fix("Owner earnings are $14.6B", "Owner earnings are $14.8B", "calculator: 15.5-0.7=14.8")
        + "FINAL DECISION: [BUY|WATCH|AVOID]"
    )
    script = [reply(JUDGED), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        outcome = run(wrong_owner_earnings(), fast_settings(llm.base_url))

    fixer = outcome.verdict.llm.fixer
    statuses = [entry.status for entry in fixer.rejected]
    assert statuses.count("malformed") == 2
    assert any("VERIFIED_WITH" in entry.reason for entry in fixer.rejected)
    assert any(
        entry.status == "conflict" and "not found" in entry.reason for entry in fixer.rejected
    )
    kept = [f for f in outcome.verdict.fixes if f.origin == "llm"]
    assert len(kept) == 1  # the duplicate is dropped
    assert kept[0].verified
    assert fixer.final_decision == "BUY"  # the template echo is not a value: the report's


def test_a_fix_no_tool_call_supports_is_unverified_with_low_confidence() -> None:
    answer = fix(
        "Owner earnings are $14.6B",
        "Owner earnings are $14.8B",
        "from memory",
        ' confidence="0.95"',
    )
    with ScriptedLLM([reply(JUDGED), reply(answer)]) as llm:
        outcome = run(wrong_owner_earnings(), fast_settings(llm.base_url))

    (proposal,) = [f for f in outcome.verdict.fixes if f.origin == "llm"]
    assert not proposal.verified
    assert proposal.confidence == 0.2
    assert proposal.verified_with.startswith("UNVERIFIED")
    assert proposal.tool_calls == []


def test_a_find_that_occurs_twice_is_a_conflict() -> None:
    answer = fix("$104.20", "$104.21", "evidence [quote-NVO]: price 104.2")
    with ScriptedLLM([reply(JUDGED), tool_calls(SEARCH), reply(answer)]) as llm:
        outcome = run(wrong_owner_earnings(), fast_settings(llm.base_url))
    (rejected,) = outcome.verdict.llm.fixer.rejected
    assert rejected.status == "conflict"
    assert rejected.reason == "FIND text occurs 2 times"


def test_the_tool_loop_is_capped_and_its_last_turn_has_no_tools() -> None:
    settings = fast_settings("http://x", fixer_max_turns=3)
    script = [
        reply(JUDGED),
        tool_calls(CALC),
        tool_calls(("calculator", {"expression": "9**9**9"})),
    ]
    with ScriptedLLM(script, fallback=reply("I give up.")) as llm:
        outcome = run(
            wrong_owner_earnings(), settings.model_copy(update={"base_url": llm.base_url})
        )

    fixer = outcome.verdict.llm.fixer
    assert fixer.turns == 3
    assert fixer.stopped == "turns"
    assert len(llm.requests) == 4
    assert "tools" not in llm.requests[-1]
    assert "No more tool calls" in llm.requests[-1]["messages"][-1]["content"]
    bomb = fixer.tool_calls[1]
    assert bomb.error is not None and bomb.error.startswith("calculator:")
    assert fixer.fixes_proposed == 0


def test_a_fixer_whose_endpoint_fails_keeps_the_judged_verdict() -> None:
    settings = fast_settings("http://x", max_transport_retries=0)
    with ScriptedLLM([reply(JUDGED), status(400, "tools unsupported")]) as llm:
        outcome = run(
            wrong_owner_earnings(), settings.model_copy(update={"base_url": llm.base_url})
        )
    assert not outcome.errored
    report = outcome.verdict.llm
    assert report is not None
    assert "HTTP 400" in report.fixer.error
    assert outcome.verdict.decision == "REVISE"


def test_numbers_agree_at_the_precision_shown() -> None:
    from decimal import Decimal

    (shown,) = numbers_in("$14.8B")
    assert agrees(shown, Decimal("14.8"))
    assert agrees(shown, Decimal("14800000000"))
    assert agrees(shown, Decimal("14.79"))
    assert not agrees(shown, Decimal("14.6"))
    (percent,) = numbers_in("6.67%")
    assert agrees(percent, Decimal("0.066666"))
    assert agrees(percent, Decimal("6.6666"))
    (negative,) = numbers_in("-12.6")
    assert agrees(negative, Decimal("-12.6"))
