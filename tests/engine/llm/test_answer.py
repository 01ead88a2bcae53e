"""The judge's answer must be a judgement of this report (issue 20): a placeholder -- goal
scores without goal names, an issue that is one word, nothing quoted from the report -- is
refused and re-asked with that error, never allowed to lower the decision; and FAIL, which
ends an analysis, needs an unsupported claim quoted from the report."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.engine.llm.helpers import (
    engine_verdict,
    fast_settings,
    judge_json,
    nvo,
)
from tests.engine.llm.helpers import placeholder_answer as placeholder
from tests.engine.llm.server import ScriptedLLM, reply
from validation.engine.llm import RetryMetrics, run_llm_path
from validation.engine.llm.answer import JudgeAnswer, parse_answer
from validation.engine.llm.retry import AnswerRejected
from validation.engine.types import Bundle, EngineSettings

GOALS = [
    "Owner earnings from operating cash flow and capex",
    "Intrinsic value versus the current price",
]


def wrong_cash_flow() -> Bundle:
    """NVO with operating cash flow of $15.4B: the engine says REVISE 0.80 and proposes the
    verified fix $15.5B."""
    bundle = nvo()
    return bundle.model_copy(
        update={"body": bundle.body.replace("of $15.5B less", "of $15.4B less")}
    )


def judged(bundle: Bundle, script: list[Any]) -> tuple[Any, ScriptedLLM]:
    with ScriptedLLM(script, fallback=reply("no fixes")) as llm:
        outcome = run_llm_path(
            bundle,
            engine_verdict(bundle),
            EngineSettings(),
            fast_settings(llm.base_url, fixer_enabled=False),
            metrics=RetryMetrics(),
        )
    return outcome, llm


def test_the_answer_model_refuses_a_placeholder() -> None:
    with pytest.raises(ValidationError) as refused:
        JudgeAnswer.model_validate_json(placeholder())
    problems = {
        ".".join(str(part) for part in error["loc"]): error["msg"]
        for error in refused.value.errors()
    }
    assert "name the goal" in problems["goals.0.goal"]
    assert "name the goal" in problems["goals.1.goal"]
    assert "placeholder" in problems["issues.0"]
    assert any("FAIL needs an unsupported claim" in message for message in problems.values())


def test_an_issue_is_a_sentence_and_a_short_one_is_enough() -> None:
    answer = JudgeAnswer.model_validate_json(
        judge_json(decision="REVISE", issues=["Missing sources"])
    )
    assert answer.issues == ["Missing sources"]
    for placeholder_issue in ("items", "issue 1", "...", ""):
        with pytest.raises(ValidationError):
            JudgeAnswer.model_validate_json(
                judge_json(decision="REVISE", issues=[placeholder_issue])
            )


def test_each_goal_score_names_its_goal() -> None:
    answer = judge_json(
        decision="REVISE",
        issues=["The valuation is thin"],
        goals=[{"goal": "owner earnings", "score": 1}, {"goal": "peer comparison", "score": 0}],
    )
    with pytest.raises(AnswerRejected) as refused:
        parse_answer(answer, GOALS, nvo().body)
    (error,) = refused.value.errors
    assert (error.path, error.expected) == ("goals.1.goal", GOALS[1])
    assert parse_answer(judge_json(), GOALS, nvo().body).goals[0].goal == GOALS[0]


def test_fail_needs_a_claim_quoted_from_the_report() -> None:
    body = nvo().body
    invented = judge_json(
        decision="FAIL",
        confidence=0.1,
        claims_supported=False,
        issues=["The thesis is invented"],
        unsupported_claims=[{"quote": "Novo is the cheapest stock", "problem": "not supported"}],
    )
    with pytest.raises(AnswerRejected) as refused:
        parse_answer(invented, GOALS, body)
    assert [error.path for error in refused.value.errors] == ["decision"]

    quoted = invented.replace(
        "Novo is the cheapest stock", "The intrinsic value is $139.00 per share"
    )
    assert parse_answer(quoted, GOALS, body).decision == "FAIL"


def test_an_answer_that_finds_fault_but_names_nothing_is_no_judgement() -> None:
    bare = judge_json(decision="RETRY", confidence=0.4, query_addressed=False, goals=[])
    with pytest.raises(AnswerRejected) as refused:
        parse_answer(bare, [], nvo().body)
    assert "names no goal and quotes nothing" in refused.value.errors[0].message
    # The same answer with an issue says what it found: a judgement.
    said = judge_json(
        decision="RETRY",
        confidence=0.4,
        query_addressed=False,
        goals=[],
        issues=["It never says whether to buy"],
    )
    assert parse_answer(said, [], nvo().body).decision == "RETRY"
    # An answer that finds nothing wrong needs nothing named.
    assert parse_answer(judge_json(goals=[]), [], nvo().body).decision == "APPROVE"


def test_a_placeholder_answer_is_re_asked_and_does_not_lower_the_decision() -> None:
    bundle = wrong_cash_flow()
    engine = engine_verdict(bundle)
    assert (engine.decision, engine.confidence) == ("REVISE", 0.8)
    assert [fix.replace for fix in engine.fixes] == ["$15.5B"]
    revise = judge_json(
        decision="REVISE", confidence=0.75, issues=["Operating cash flow is misquoted"]
    )

    outcome, llm = judged(bundle, [reply(placeholder()), reply(revise)])

    assert len(llm.requests) == 2
    feedback = llm.requests[1]["messages"][-1]["content"]
    assert "retry attempt 2/3" in feedback
    assert "name the goal" in feedback
    assert "placeholder" in feedback
    assert not outcome.errored
    verdict = outcome.verdict
    assert verdict.decision == "REVISE"  # not FAIL: the placeholder changed nothing
    assert [fix.replace for fix in verdict.fixes] == ["$15.5B"]  # the engine's fix stands
    assert verdict.llm is not None and verdict.llm.retry.recovered_categories


def test_placeholders_to_the_end_leave_the_engines_verdict_and_fix() -> None:
    bundle = wrong_cash_flow()
    outcome, _ = judged(bundle, [reply(placeholder()), reply(placeholder(issues=["stuff"]))] * 2)

    assert outcome.errored
    verdict = outcome.verdict
    assert verdict.decision == "REVISE"
    assert [fix.replace for fix in verdict.fixes] == ["$15.5B"]
    assert any(finding.kind == "close_but_wrong" for finding in verdict.findings)


def test_a_fail_whose_claim_the_engine_refuses_stops_at_retry() -> None:
    # The quote is only a number (numbers are the engine's): no LLM finding is anchored, so
    # nothing quoted from the report justifies FAIL.
    answer = judge_json(
        decision="FAIL",
        confidence=0.1,
        claims_supported=False,
        issues=["The price is made up"],
        unsupported_claims=[{"quote": "$104.20", "problem": "price looks stale"}],
    )
    outcome, _ = judged(nvo(), [reply(answer)])
    assert not outcome.errored
    assert outcome.verdict.decision == "RETRY"


def test_a_fail_with_a_quoted_unsupported_claim_ends_the_analysis() -> None:
    bundle = nvo()
    claim = "Novo Nordisk will double its sales by next year."
    bundle = bundle.model_copy(
        update={
            "body": bundle.body.replace("# NVO quick screen\n", f"# NVO quick screen\n\n{claim}\n")
        }
    )
    answer = judge_json(
        decision="FAIL",
        confidence=0.1,
        claims_supported=False,
        issues=["A forecast no evidence makes"],
        unsupported_claims=[
            {"quote": claim, "problem": "no evidence forecasts sales", "severity": "critical"}
        ],
    )
    outcome, _ = judged(bundle, [reply(answer)])
    assert outcome.verdict.decision == "FAIL"
    assert outcome.verdict.findings[-1].kind == "llm_unsupported_claim"
