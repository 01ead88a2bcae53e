"""The LLM path in a validation attempt: the deterministic engine first, then the judge and
the fixer against the scripted loopback server (a real socket, the real `openai` client).
Every call is an LLMCall row, the fixer's tool calls are ToolCall rows (the fixes' proof),
LLM fixes keep their verified flag, and a judge that never answers validly errors the
attempt: never APPROVE."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from redline_errors import IllegalTransition
from tests.engine.llm.helpers import DATA, judge_json
from tests.engine.llm.server import ScriptedLLM, reply, status, tool_calls
from tests.support.llm_env import llm_variables, no_llm_endpoint
from validation import services
from validation.models import Attempt, Fix, LLMCall, Policy, ToolCall
from validation.services.llm import llm_budget_seconds, llm_settings
from validation.tasks import SOFT_TIME_LIMIT

pytestmark = pytest.mark.django_db

JUDGED = judge_json(decision="REVISE", confidence=0.75, issues=["Owner earnings look wrong"])
SEARCH = ("evidence_search", {"query": "operating cash flow capex"})
CALC = ("calculator", {"expression": "15.5 - 0.7"})


def fix_block(replace: str, verified_with: str) -> str:
    return (
        '<FIX confidence="0.9">\n<FIND>Owner earnings are $14.6B</FIND>\n'
        f"<REPLACE>{replace}</REPLACE>\n<VERIFIED_WITH>{verified_with}</VERIFIED_WITH>\n</FIX>\n"
        "**FINAL DECISION: BUY**\n**FINAL CONVICTION: HIGH**\n"
    )


def submit_wrong_owner_earnings() -> Attempt:
    data: dict[str, Any] = json.loads((DATA / "bundle_nvo.json").read_text())
    data["body"] = data["body"].replace("Owner earnings are $14.8B", "Owner earnings are $14.6B")
    result = services.analysis_submit(data=data, submitter=None)
    assert result.revision is not None
    return Attempt.objects.get(revision=result.revision)


def submit_wrong_cash_flow() -> Attempt:
    """NVO with operating cash flow of $15.4B: the engine proposes $15.5B, verified with the
    evidence, before any LLM is asked."""
    data: dict[str, Any] = json.loads((DATA / "bundle_nvo.json").read_text())
    data["body"] = data["body"].replace("of $15.5B less", "of $15.4B less")
    result = services.analysis_submit(data=data, submitter=None)
    assert result.revision is not None
    return Attempt.objects.get(revision=result.revision)


def _run(attempt: Attempt) -> Attempt:
    ran = services.attempt_run(revision_id=attempt.revision_id)
    assert ran is not None
    return ran


def endpoint(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    llm_variables(
        monkeypatch,
        {
            "REDLINE_LLM_BASE_URL": base_url,
            "REDLINE_LLM_MODEL": "scripted",
            "REDLINE_LLM_TIMEOUT": "5",
            "REDLINE_LLM_ATTEMPT_BUDGET": "20",
        },
    )


def test_without_an_endpoint_the_attempt_stays_deterministic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    no_llm_endpoint(monkeypatch)
    attempt = submit_wrong_owner_earnings()
    attempt = _run(attempt)
    assert attempt is not None and attempt.status == "done"
    assert attempt.llm == {} and attempt.llm_call_count == 0
    assert not LLMCall.objects.exists()
    assert not Fix.objects.filter(origin="llm").exists()


def test_the_attempt_runs_judge_and_fixer_and_stores_calls_fixes_and_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = fix_block(
        "Owner earnings are $14.8B",
        "calculator: 15.5 - 0.7 = 14.8; evidence [cashflow-NVO]: operating cash flow, capex",
    )
    script = [reply(JUDGED), tool_calls(SEARCH), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_owner_earnings()
        attempt = _run(attempt)

    assert attempt is not None and attempt.status == "done"
    assert attempt.decision != "APPROVE"
    calls = list(LLMCall.objects.filter(attempt=attempt))
    assert [call.purpose for call in calls] == ["judge", "fixer", "fixer", "fixer"]
    assert attempt.llm_call_count == 4
    assert all(call.model == "scripted" and call.prompt for call in calls)
    assert calls[0].prompt_tokens == 50 and calls[0].completion_tokens == 20
    assert "evidence_search" in calls[1].response  # a tool-call turn shows its calls
    assert attempt.llm["status"] == "ok"
    assert attempt.llm["fixer"]["fixes_kept"] == 1
    assert "changed" in attempt.llm
    (fix,) = Fix.objects.filter(attempt=attempt, origin="llm")
    assert fix.verified and fix.replace == "Owner earnings are $14.8B"
    proof = list(ToolCall.objects.filter(fix=fix).values_list("tool", "output"))
    assert ("calculator", "14.8") in proof
    assert {tool for tool, _ in proof} == {"calculator", "evidence_search"}
    assert attempt.tool_call_count == ToolCall.objects.filter(attempt=attempt).count()


def test_an_unverified_llm_fix_is_never_bulk_accepted(
    monkeypatch: pytest.MonkeyPatch, reviewer: User
) -> None:
    script = [reply(JUDGED), reply(fix_block("Owner earnings are $14.8B", "from memory"))]
    with ScriptedLLM(script) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_owner_earnings()
        attempt = _run(attempt)

    assert attempt is not None
    (fix,) = Fix.objects.filter(attempt=attempt, origin="llm")
    assert not fix.verified
    accepted = services.fixes_bulk_accept(
        analysis=attempt.analysis, user=reviewer, min_confidence=0.0
    )
    assert fix.pk not in {item.pk for item in accepted}
    fix.refresh_from_db()
    assert fix.status == "proposed"


def test_a_judge_that_never_answers_validly_keeps_the_engines_verdict_never_approve(
    monkeypatch: pytest.MonkeyPatch, reviewer: User
) -> None:
    Policy.objects.filter(pk=1).update(retry_max_attempts=2, llm_model="from-policy")
    with ScriptedLLM([reply("not json"), reply("still not json")]) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_cash_flow()
        attempt = _run(attempt)
        assert len(llm.requests) == 2  # the Policy's retry limit, not the environment's
        assert llm.requests[0]["model"] == "from-policy"

    assert attempt is not None
    # The engine ran first: its verdict, findings and fixes are recorded, the LLM's failure
    # beside them; never APPROVE.
    assert attempt.status == "done"
    assert attempt.decision in ("REVISE", "RETRY")
    assert attempt.llm["status"] == "errored"
    assert attempt.llm["error"].startswith("the LLM judge gave no valid answer")
    assert any(issue.startswith("LLM judge errored") for issue in attempt.issues)
    assert LLMCall.objects.filter(attempt=attempt).count() == attempt.llm_call_count == 2
    assert attempt.analysis.status == "in_review"
    (fix,) = Fix.objects.filter(attempt=attempt, origin="deterministic")
    assert fix.find == "$15.4B" and fix.replace == "$15.5B" and fix.verified
    # ... and it can be applied.
    services.fix_accept(fix=fix, user=reviewer)
    outcome = services.fixes_apply(analysis_id=attempt.analysis_id, user=reviewer)
    assert outcome.revision is not None and "of $15.5B less" in outcome.revision.body


def test_an_endpoint_that_fails_keeps_the_engines_verdict_and_the_failed_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Policy.objects.filter(pk=1).update(llm_timeout_seconds=1)
    llm_variables(monkeypatch, {"REDLINE_LLM_ATTEMPT_BUDGET": "3"})
    with ScriptedLLM([], fallback=status(500)) as llm:
        endpoint(monkeypatch, llm.base_url)
        llm_variables(monkeypatch, {"REDLINE_LLM_ATTEMPT_BUDGET": "3"})
        attempt = submit_wrong_cash_flow()
        attempt = _run(attempt)

    assert attempt is not None and attempt.status == "done"
    assert attempt.llm["status"] == "errored" and "endpoint failed" in attempt.llm["error"]
    assert LLMCall.objects.filter(attempt=attempt).exclude(error="").exists()
    assert Fix.objects.filter(attempt=attempt).exists()


def test_an_attempt_whose_llm_errored_is_re_validated_with_its_earlier_calls_counted(
    monkeypatch: pytest.MonkeyPatch, reviewer: User
) -> None:
    """The Attempts header counts every LLM call its table lists, over both runs."""
    Policy.objects.filter(pk=1).update(retry_max_attempts=2)
    script = [reply("not json"), reply("still not json"), reply(JUDGED)]
    with ScriptedLLM(script, fallback=reply("no fixes")) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_cash_flow()
        attempt = _run(attempt)
        assert attempt is not None and attempt.llm["status"] == "errored"
        first_fixes = set(Fix.objects.filter(attempt=attempt).values_list("pk", flat=True))

        services.analysis_revalidate(analysis=attempt.analysis, user=reviewer)
        attempt = _run(attempt)

    assert attempt is not None and attempt.status == "done"
    assert attempt.llm["status"] == "ok"
    calls = LLMCall.objects.filter(attempt=attempt).count()
    assert calls == attempt.llm_call_count == len(llm.requests) >= 3
    # The re-run recorded its own findings and fixes; the first run's are gone.
    assert first_fixes.isdisjoint(Fix.objects.filter(attempt=attempt).values_list("pk", flat=True))
    assert Fix.objects.filter(attempt=attempt, origin="deterministic").count() == 1


def test_a_decided_fix_keeps_an_llm_errored_attempt_from_being_re_run(
    monkeypatch: pytest.MonkeyPatch, reviewer: User
) -> None:
    Policy.objects.filter(pk=1).update(retry_max_attempts=1)
    with ScriptedLLM([reply("not json")]) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_cash_flow()
        attempt = _run(attempt)
    assert attempt is not None
    fix = Fix.objects.get(attempt=attempt)
    services.fix_reject(fix=fix, user=reviewer, reason="not this one")
    with pytest.raises(IllegalTransition, match="already decided"):
        services.analysis_revalidate(analysis=attempt.analysis, user=reviewer)
    assert Fix.objects.filter(pk=fix.pk, status="rejected").exists()


def test_policy_overrides_everything_but_the_key() -> None:
    env = {
        "REDLINE_LLM_BASE_URL": "https://api.example.com/v1",
        "REDLINE_LLM_API_KEY": "sk-secret",
        "REDLINE_LLM_MODEL": "env-model",
    }
    policy = Policy.load()
    settings = llm_settings(policy, env)
    assert settings is not None and settings.model == "env-model"
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "sk-secret"

    policy.llm_model = "policy-model"
    policy.llm_timeout_seconds = 7
    policy.llm_max_tokens = 300
    policy.llm_temperature = 0.5
    policy.retry_max_attempts = 5
    settings = llm_settings(policy, env)
    assert settings is not None
    assert (settings.model, settings.timeout_s, settings.max_tokens) == ("policy-model", 7, 300)
    assert settings.temperature == 0.5 and settings.retry.max_attempts == 5
    assert settings.api_key is not None  # same endpoint: the key goes along

    policy.llm_base_url = "http://127.0.0.1:11434/v1"
    settings = llm_settings(policy, env)
    assert settings is not None and settings.base_url == "http://127.0.0.1:11434/v1"
    assert settings.api_key is None  # another host never sees the environment's key

    assert llm_settings(policy, {}) is not None  # the Policy alone can configure an endpoint
    policy.llm_base_url = ""
    assert llm_settings(policy, {}) is None  # no endpoint anywhere: deterministic
    policy.llm_enabled = False
    assert llm_settings(policy, env) is None


def test_the_token_budget_is_a_setting_of_the_environment_and_the_policy() -> None:
    env = {
        "REDLINE_LLM_BASE_URL": "http://127.0.0.1:8088/v1",
        "REDLINE_LLM_CONTEXT_TOKENS": "4096",
        "REDLINE_LLM_EVIDENCE_TOKENS": "1200",
    }
    policy = Policy.load()
    settings = llm_settings(policy, env)
    assert settings is not None
    assert (settings.context_tokens, settings.evidence_token_budget) == (4096, 1200)

    policy.llm_context_tokens = 2048
    policy.llm_evidence_tokens = 500
    policy.full_clean()
    settings = llm_settings(policy, env)
    assert settings is not None
    assert (settings.context_tokens, settings.evidence_token_budget) == (2048, 500)

    policy.llm_context_tokens = 100  # below any usable context
    with pytest.raises(ValidationError):
        policy.full_clean()


def test_the_llm_budget_ends_before_the_tasks_soft_time_limit() -> None:
    policy = Policy.load()
    settings = llm_settings(policy, {"REDLINE_LLM_BASE_URL": "http://127.0.0.1:1/v1"})
    assert settings is not None
    soft = SOFT_TIME_LIMIT
    budget = llm_budget_seconds(settings, soft_limit_s=soft, started=100.0, now=100.0)
    assert 0 < budget < soft
    late = llm_budget_seconds(settings, soft_limit_s=soft, started=100.0, now=100.0 + soft)
    assert late == 0.0


def test_the_attempts_tab_shows_each_llm_call_and_the_fix_card_its_proof(
    monkeypatch: pytest.MonkeyPatch, client: Client, reviewer: User
) -> None:
    answer = fix_block(
        "Owner earnings are $14.8B",
        "calculator: 15.5 - 0.7 = 14.8; evidence [cashflow-NVO]: operating cash flow, capex",
    )
    script = [reply(JUDGED), tool_calls(SEARCH), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_owner_earnings()
        services.attempt_run(revision_id=attempt.revision_id)
        client.force_login(reviewer)
        url = reverse("analysis_review", args=[attempt.analysis_id])
        page = client.get(url + "?tab=attempts").content.decode()
        fixes = client.get(url).content.decode()

    assert 'data-llm-path="llm"' in page
    assert page.count('class="llm-call"') == 4
    assert "scripted" in page and "judge" in page and "fixer" in page
    assert "50 / 20" in page  # tokens in / out
    assert "llm-prompt" in page and "llm-response" in page
    assert "LLM fixer" in fixes or "llm fixer" in fixes
    assert "calculator(" in fixes and "evidence_search(" in fixes


def test_without_an_endpoint_the_attempts_tab_says_the_path_is_deterministic(
    monkeypatch: pytest.MonkeyPatch, client: Client, reviewer: User
) -> None:
    no_llm_endpoint(monkeypatch)
    attempt = submit_wrong_owner_earnings()
    services.attempt_run(revision_id=attempt.revision_id)
    client.force_login(reviewer)
    url = reverse("analysis_review", args=[attempt.analysis_id])
    page = client.get(url + "?tab=attempts").content.decode()
    assert 'data-llm-path="deterministic"' in page
    assert "validation is deterministic" in page
    assert "Deterministic: no LLM call in this attempt." in page


def test_the_review_page_shows_the_engines_fixes_beside_the_llm_failure(
    monkeypatch: pytest.MonkeyPatch, client: Client, reviewer: User
) -> None:
    Policy.objects.filter(pk=1).update(retry_max_attempts=1)
    with ScriptedLLM([reply("not json")]) as llm:
        endpoint(monkeypatch, llm.base_url)
        attempt = submit_wrong_cash_flow()
        services.attempt_run(revision_id=attempt.revision_id)
    fix = Fix.objects.get(attempt=attempt)
    client.force_login(reviewer)
    page = client.get(reverse("analysis_review", args=[attempt.analysis_id])).content.decode()

    assert "No validation result for this revision yet" not in page
    assert "The LLM judge errored:" in page
    assert "the LLM judge gave no valid answer" in page
    assert f'id="fix-{fix.pk}"' in page and 'data-action="accept"' in page
    assert "Re-validate" in page
    audit = client.get(reverse("analysis_review", args=[attempt.analysis_id]) + "?tab=audit")
    assert "LLM judge errored: the LLM judge gave no valid answer" in audit.content.decode()
