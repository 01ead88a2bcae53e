"""The judge through `run_llm_path`, against the scripted loopback server: good answers,
answers corrected after error feedback, early abort, exhaustion (errored, never APPROVE),
and the merge rules (the LLM adds, never erases, and never raises above the numbers)."""

from __future__ import annotations

import json

from tests.engine.llm.helpers import (
    engine_verdict,
    fast_settings,
    judge_json,
    nvo,
    wrong_owner_earnings,
)
from tests.engine.llm.server import ScriptedLLM, free_port, reply, status
from validation.engine.llm import LLMSettings, RetryMetrics, run_llm_path
from validation.engine.llm.judge import locate
from validation.engine.llm.view import evidence_view, split_report
from validation.engine.types import Bundle, EngineSettings, EvidenceItem


def run(bundle: Bundle, settings: LLMSettings):  # type: ignore[no-untyped-def]
    return run_llm_path(
        bundle, engine_verdict(bundle), EngineSettings(), settings, metrics=RetryMetrics()
    )


def test_a_judge_that_answers_well_keeps_a_correct_report_approved() -> None:
    with ScriptedLLM([reply(judge_json())]) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url))

    assert not outcome.errored
    verdict = outcome.verdict
    assert verdict.decision == "APPROVE"
    assert verdict.llm is not None
    assert verdict.llm.status == "ok"
    assert verdict.llm.retry.first_attempt_success
    assert verdict.llm.retry.final_success
    assert not verdict.llm.changes.changed()
    assert len(outcome.calls) == 1
    assert outcome.calls[0].purpose == "judge"
    assert not verdict.llm.fixer.ran  # nothing to fix
    request = llm.requests[0]
    assert request["response_format"]["type"] == "json_schema"
    prompt = request["messages"][1]["content"]
    assert "[cashflow-NVO]" in prompt  # the cited evidence is in view
    assert "Owner earnings are $14.8B" in prompt
    assert "Is Novo Nordisk (NVO) a buy" in prompt


def test_invalid_json_is_corrected_after_error_feedback() -> None:
    script = [reply("Sure! Here is my verdict: APPROVE"), reply(judge_json())]
    with ScriptedLLM(script) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url))

    assert not outcome.errored
    assert outcome.verdict.decision == "APPROVE"
    report = outcome.verdict.llm
    assert report is not None
    assert report.retry.attempts == 2
    assert not report.retry.first_attempt_success
    assert report.retry.recovered_categories == ["structural_error"]
    feedback = llm.requests[1]["messages"][-1]["content"]
    assert "retry attempt 2/3" in feedback
    assert "[structural_error]" in feedback
    assert "not valid JSON" in feedback
    assert [call.attempt for call in outcome.calls] == [1, 2]


def test_the_same_error_twice_aborts_early_and_is_never_approve() -> None:
    bad = judge_json(confidence=1.7)
    with ScriptedLLM([reply(bad), reply(bad), reply(judge_json())]) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url))

    assert len(llm.requests) == 2
    assert outcome.errored
    verdict = outcome.verdict
    assert verdict.decision != "APPROVE"
    assert verdict.llm is not None
    assert verdict.llm.status == "errored"
    assert verdict.llm.retry.status == "identical_errors"
    assert verdict.llm.exhausted is not None
    assert verdict.llm.exhausted["final_status"] == "identical_errors"
    assert any("LLM judge errored" in issue for issue in verdict.issues)


def test_a_judge_that_never_recovers_is_exhausted_errored_and_not_approve() -> None:
    script = [
        reply("not json at all"),
        reply(json.dumps({"decision": "MAYBE"})),
        reply(judge_json(decision="APPROVE", claims_supported=False)),
    ]
    with ScriptedLLM(script) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url))

    assert len(llm.requests) == 3
    assert outcome.errored
    assert outcome.verdict.decision == "REVISE"  # the engine said APPROVE
    report = outcome.verdict.llm
    assert report is not None
    assert report.retry.status == "exhausted"
    exhausted = report.exhausted
    assert exhausted is not None
    categories = [
        {error["category"] for error in attempt["errors"]} for attempt in exhausted["attempts"]
    ]
    assert categories[0] == {"structural_error"}
    assert "required_missing" in categories[1]
    assert categories[2] == {"semantic_error"}  # APPROVE with a failing check
    assert "3 attempt(s)" in report.error


def test_an_unreachable_endpoint_gives_an_errored_verdict_not_an_exception() -> None:
    settings = fast_settings(f"http://127.0.0.1:{free_port()}/v1", max_transport_retries=1)
    outcome = run(nvo(), settings)
    assert outcome.errored
    assert outcome.verdict.decision == "REVISE"
    assert "cannot connect" in outcome.error
    assert outcome.verdict.llm is not None
    assert outcome.verdict.llm.retry.status == "provider_error"
    assert len(outcome.calls) == 2


def test_500s_until_the_budget_ends_give_a_clear_error_within_it() -> None:
    settings = fast_settings(
        "http://x",
        attempt_budget_s=1.0,
        backoff_base_s=0.2,
        backoff_max_s=5,
        max_transport_retries=10,
    )
    with ScriptedLLM(fallback=status(500, "overloaded")) as llm:
        outcome = run(nvo(), settings.model_copy(update={"base_url": llm.base_url}))
    assert outcome.errored
    assert "HTTP 500" in outcome.error
    assert "time budget" in outcome.error
    report = outcome.verdict.llm
    assert report is not None
    # Backoff of 0.2 s, 0.4 s, 0.8 s...: the third retry would end past the 1 s budget, so at
    # most four requests are sent; without the budget all eleven would be, over some 30 s.
    # The request count is the check; the wall-clock bound only has to tell 1 s from 30 s,
    # so a loaded machine cannot fail it.
    assert 1 <= len(llm.requests) <= 4
    assert report.elapsed_ms < 10_000
    assert outcome.verdict.decision != "APPROVE"


def test_the_llm_cannot_raise_a_decision_above_the_engines_numbers() -> None:
    bundle = wrong_owner_earnings()
    engine = engine_verdict(bundle)
    assert engine.decision == "REVISE"
    with ScriptedLLM([reply(judge_json())], fallback=reply("no fixes")) as llm:
        outcome = run(bundle, fast_settings(llm.base_url, fixer_enabled=False))

    verdict = outcome.verdict
    assert verdict.decision == "REVISE"
    assert verdict.findings == engine.findings  # nothing erased
    assert verdict.checks == engine.checks


def test_an_unsupported_prose_claim_is_anchored_and_lowers_the_decision() -> None:
    bundle = nvo()
    claim = "Novo Nordisk is the most profitable drug maker in the world."
    body = bundle.body.replace("# NVO quick screen\n", f"# NVO quick screen\n\n{claim}\n")
    bundle = bundle.model_copy(update={"body": body})
    assert engine_verdict(bundle).decision == "APPROVE"
    answer = judge_json(
        decision="REVISE",
        confidence=0.7,
        claims_supported=False,
        issues=["An unsupported superlative"],
        unsupported_claims=[
            {
                # quoted with different spacing and case: still found
                "quote": "the most  profitable drug maker\nin the world",
                "problem": "no evidence ranks drug makers by profit",
            },
            {"quote": "$104.20", "problem": "price looks stale"},  # a number: the engine's
            {"quote": "Novo is cheap", "problem": "not in the report"},
        ],
    )
    with ScriptedLLM([reply(answer)]) as llm:
        outcome = run(bundle, fast_settings(llm.base_url, fixer_enabled=False))

    verdict = outcome.verdict
    assert verdict.decision == "REVISE"
    assert not verdict.checks.claims_supported
    report = verdict.llm
    assert report is not None
    (added,) = report.changes.findings_added
    finding = verdict.findings[added]
    assert finding.kind == "llm_unsupported_claim"
    assert finding.text == "the most profitable drug maker in the world"
    assert bundle.body[finding.start : finding.end] == finding.text
    assert [flip.check for flip in report.changes.checks_flipped] == ["claims_supported"]
    assert (report.changes.decision_before, report.changes.decision_after) == (
        "APPROVE",
        "REVISE",
    )
    refused = " ".join(report.changes.claims_refused)
    assert "numbers are the engine's" in refused
    assert "not in the report" in refused
    assert "LLM judge: An unsupported superlative" in verdict.issues


def test_the_llm_decides_whether_the_query_is_addressed() -> None:
    query = (
        "Is Novo Nordisk (NVO) a buy? Explain the dividend policy, insulin pricing "
        "litigation and management succession."
    )
    bundle = nvo().model_copy(update={"query": query})
    engine = engine_verdict(bundle)
    assert any(finding.check == "query_addressed" for finding in engine.findings)
    assert engine.confidence < 1.0
    with ScriptedLLM([reply(judge_json())]) as llm:
        outcome = run(bundle, fast_settings(llm.base_url))

    verdict = outcome.verdict
    assert verdict.checks.query_addressed
    assert verdict.decision == "APPROVE"
    assert verdict.confidence == 1.0  # the overruled finding no longer costs anything
    report = verdict.llm
    assert report is not None
    assert report.changes.findings_overruled
    overruled = verdict.findings[report.changes.findings_overruled[0]]
    assert overruled.severity == "info"
    assert overruled.message.startswith("overruled by the LLM judge")
    assert len(verdict.findings) == len(engine.findings)  # kept, not erased


def test_the_llm_can_fail_the_query_check_the_engine_passed() -> None:
    answer = judge_json(
        decision="REVISE", confidence=0.6, query_addressed=False, issues=["Does not say buy"]
    )
    with ScriptedLLM([reply(answer)]) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url, fixer_enabled=False))
    verdict = outcome.verdict
    assert not verdict.checks.query_addressed
    assert verdict.decision == "REVISE"
    assert verdict.findings[-1].kind == "llm_judgement"


def test_goal_scores_come_from_the_judge_and_a_missing_score_is_re_asked() -> None:
    bundle = nvo().model_copy(update={"goals": ["Show owner earnings", "Compare with peers"]})
    first = judge_json(goals=[{"goal": "Show owner earnings", "score": 0.9}])
    second = judge_json(
        decision="REVISE",
        confidence=0.7,
        goals=[
            {"goal": "Show owner earnings", "score": 0.9},
            {"goal": "Compare with peers", "score": 0.2},
        ],
    )
    with ScriptedLLM([reply(first), reply(second)]) as llm:
        outcome = run(bundle, fast_settings(llm.base_url, fixer_enabled=False))

    assert "[required_missing]" in llm.requests[1]["messages"][-1]["content"]
    verdict = outcome.verdict
    assert [(goal.goal, goal.status) for goal in verdict.goals] == [
        ("Show owner earnings", "PASS"),
        ("Compare with peers", "FAIL"),
    ]
    assert verdict.goal_decision == "REVISE"
    assert verdict.decision == "REVISE"


def test_a_long_report_is_judged_in_parts() -> None:
    bundle = nvo()
    sections = "\n\n".join(
        f"## Section {n}\n\nNovo Nordisk trades at $104.20 [quote-NVO]. " * 3 for n in range(6)
    )
    bundle = bundle.model_copy(update={"body": bundle.body + "\n\n" + sections})
    settings = fast_settings("http://x", report_token_budget=150, fixer_enabled=False)
    with ScriptedLLM(fallback=reply(judge_json())) as llm:
        outcome = run(bundle, settings.model_copy(update={"base_url": llm.base_url}))
    parts = split_report(bundle.body, 150)
    assert len(parts) > 1
    assert len(llm.requests) == len(parts)
    assert "part 2 of" in llm.requests[1]["messages"][1]["content"]
    assert not outcome.errored


def test_split_report_cuts_at_sections_and_never_mid_sentence() -> None:
    body = (
        "# Title\n\nFirst sentence is here. Second sentence follows it.\n\n"
        "## Part\n\n" + "A sentence of some length that ends. " * 40
    )
    parts = split_report(body, 50)
    assert "".join(part.text for part in parts) == body
    for part in parts:
        assert body[part.start : part.start + len(part.text)] == part.text
        assert len(part.text) <= 200 or "." not in part.text[:-2]
    for part in parts[:-1]:
        assert part.text.endswith((". ", "\n")), repr(part.text[-20:])
    assert split_report("short", 50)[0].text == "short"


def test_the_evidence_view_puts_cited_items_first_then_the_relevant() -> None:
    evidence = [
        EvidenceItem(source_ref="unrelated", content="weather " * 500),
        EvidenceItem(source_ref="relevant", content="Novo Nordisk owner earnings rose."),
        EvidenceItem(source_ref="cited", content="Price 104.2 USD."),
    ]
    body = "Price is $104.20 [cited]."
    view = evidence_view(evidence, body=body, query="Novo Nordisk earnings", token_budget=300)
    assert view.included[:2] == ["cited", "relevant"]
    assert len(view.text) <= 300 * 4
    assert view.truncated == ["unrelated"]


def test_the_evidence_view_cuts_an_item_at_a_sentence_end_to_fit_the_budget() -> None:
    evidence = [
        EvidenceItem(source_ref="cited", content="Price 104.2 USD. " * 200),
        EvidenceItem(source_ref="other", content="Novo Nordisk owner earnings rose."),
    ]
    view = evidence_view(evidence, body="[cited]", query="Novo", token_budget=300)
    assert view.included == ["cited"]
    assert view.truncated == ["cited"]
    assert view.omitted == ["other"]
    assert len(view.text) <= 300 * 4
    assert view.text.endswith("USD.\n[… truncated]")


def test_locate_finds_quotes_verbatim_or_modulo_case_and_spaces() -> None:
    body = "Alpha beta.\nGamma   Delta epsilon."
    assert locate(body, "beta") == (6, 10)
    start, end = locate(body, "gamma delta") or (0, 0)
    assert body[start:end] == "Gamma   Delta"
    assert locate(body, '"Alpha beta."') == (0, 11)
    assert locate(body, "zeta") is None


def test_no_prompt_overflows_the_context_window() -> None:
    bundle = nvo()
    long_body = bundle.body + "\n\n" + "Novo Nordisk sells insulin in many markets. " * 400
    evidence = [
        *bundle.evidence,
        EvidenceItem(source_ref="filing", content="Revenue grew in every region. " * 3000),
    ]
    bundle = bundle.model_copy(update={"body": long_body, "evidence": evidence})
    settings = fast_settings("http://x", context_tokens=4096, max_tokens=256, fixer_enabled=False)
    with ScriptedLLM(fallback=reply(judge_json())) as llm:
        outcome = run(bundle, settings.model_copy(update={"base_url": llm.base_url}))

    assert not outcome.errored
    assert len(llm.requests) > 1  # judged in parts
    for request in llm.requests:
        text = "".join(message["content"] for message in request["messages"])
        # the answer, and a re-ask (the answer echoed and the feedback) still fit
        assert len(text) / 4 + 256 + 256 + 300 <= 4096


def test_a_server_that_refuses_json_schema_is_asked_with_a_simpler_response_format() -> None:
    script = [
        status(400, "response_format json_schema is not supported"),
        status(400, "schema not supported either"),
        reply(judge_json()),
    ]
    with ScriptedLLM(script) as llm:
        outcome = run(nvo(), fast_settings(llm.base_url))
    assert not outcome.errored
    assert llm.requests[0]["response_format"]["type"] == "json_schema"
    assert llm.requests[1]["response_format"]["type"] == "json_object"
    assert "response_format" not in llm.requests[2]
    assert outcome.verdict.llm is not None
    assert outcome.verdict.llm.retry.attempts == 1  # a transport matter, not a retry


def test_a_wall_of_text_without_sentence_ends_is_cut_between_words() -> None:
    body = "word " * 2000
    parts = split_report(body, 100)
    assert "".join(part.text for part in parts) == body
    assert all(len(part.text) <= 400 for part in parts)
    assert all(part.text.endswith(" ") for part in parts)


def test_the_schema_sent_to_the_model_has_no_length_bounds_for_grammar_decoders() -> None:
    from validation.engine.llm.judge import answer_schema

    text = json.dumps(answer_schema())
    assert "maxLength" not in text
    assert "maxItems" not in text
    assert "unsupported_claims" in text


def test_the_schema_requires_every_field_and_lists_the_numbers_a_decoder_may_write() -> None:
    from validation.engine.llm.judge import JudgeAnswer, answer_schema

    schema = answer_schema(goals=2)
    assert set(schema["required"]) == set(JudgeAnswer.model_fields)
    goals = schema["properties"]["goals"]
    assert (goals["minItems"], goals["maxItems"]) == (2, 2)
    # Grammar decoders ignore minimum/maximum on numbers (a real small model wrote 2.5):
    # the allowed values are listed, and every one of them passes validation.
    scores = schema["$defs"]["JudgeGoal"]["properties"]["score"]["enum"]
    confidences = schema["properties"]["confidence"]["enum"]
    assert 0 in scores and 1 in scores and all(0 <= value <= 1 for value in scores)
    assert {0.3, 0.5, 0.8} <= set(confidences) and all(0 <= c <= 1 for c in confidences)
