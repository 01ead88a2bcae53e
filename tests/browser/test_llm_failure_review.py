"""The LLM path never hides the engine (issue 20), end to end: a real Celery worker runs the
deterministic engine, then the LLM judge against the scripted loopback chat-completions
server; the review page in Chromium shows what came of it.

- The judge errors (no valid answer): the engine's finding and verified fix are on the page
  beside the LLM's failure, and the fix is accepted and applied.
- The judge first answers a placeholder (every check false, FAIL, the issue "items", goal
  scores without names, nothing quoted): it is re-asked with that error, its real answer
  keeps REVISE, and the engine's fix is applied.
Screenshots: llm-failure-engine-fixes-1400.png / -390.png, llm-placeholder-re-asked.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.engine.llm.helpers import judge_json, placeholder_answer
from tests.engine.llm.server import ScriptedLLM, reply
from tests.support.llm_env import llm_variables
from tests.support.worker import wait_until
from tests.validation.llm.test_llm_attempt import submit_wrong_cash_flow
from validation.models import Attempt, Fix, LLMCall, Policy

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 60_000


def llm_environment(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    """This process's settings, and the environment the worker inherits when it starts."""
    llm_variables(
        monkeypatch,
        {
            "REDLINE_LLM_BASE_URL": base_url,
            "REDLINE_LLM_MODEL": "scripted",
            "REDLINE_LLM_TIMEOUT": "10",
            "REDLINE_LLM_ATTEMPT_BUDGET": "40",
        },
        for_workers=True,
    )


def finished(attempt_id: int) -> Callable[[], Attempt | None]:
    def done() -> Attempt | None:
        row = Attempt.objects.get(pk=attempt_id)
        return row if row.status in ("done", "errored") else None

    return done


def accept_and_apply(page: Page, fix: Fix) -> None:
    card = page.locator(f"#fix-{fix.pk}")
    card.locator("[data-action=accept]").click()
    expect(card.locator(".fix-review")).to_have_attribute("data-status", "accepted")
    page.locator("button[data-action=apply]").click()
    expect(page.locator(".head-meta")).to_contain_text("revision 2", timeout=WAIT_MS)


def test_an_errored_llm_attempt_shows_the_engines_fix_which_can_be_applied(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    monkeypatch: pytest.MonkeyPatch,
    screenshot_dir: Path,
) -> None:
    Policy.objects.filter(pk=1).update(retry_max_attempts=2)
    with ScriptedLLM([], fallback=reply("I cannot judge this.")) as llm:
        llm_environment(monkeypatch, llm.base_url)
        attempt = submit_wrong_cash_flow()
        worker = start_worker()
        done = wait_until(
            finished(attempt.pk), timeout=60, what="the LLM attempt", workers=[worker]
        )

        assert done.status == "done" and done.llm["status"] == "errored"
        fix = Fix.objects.get(attempt=done)  # the engine's: $15.4B -> $15.5B, verified
        login(reviewer)
        page.goto(f"{live_server.url}/analyses/{done.analysis_id}/")
        status = page.locator("#validation-progress")
        expect(status).to_contain_text("The LLM judge errored:")
        expect(status).to_contain_text("the LLM judge gave no valid answer")
        expect(status).to_contain_text("the deterministic engine's")
        expect(page.locator(".findings")).not_to_contain_text("No validation result")
        expect(page.locator(".finding-item")).to_contain_text("$15.4B")
        card = page.locator(f"#fix-{fix.pk}")
        expect(card.locator(".fix-diff del")).to_have_text("$15.4B")
        expect(card.locator(".fix-diff ins")).to_have_text("$15.5B")
        expect(page.get_by_role("button", name="Re-validate")).to_be_visible()
        page.screenshot(path=str(screenshot_dir / "llm-failure-engine-fixes-1400.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(screenshot_dir / "llm-failure-engine-fixes-390.png"))
        page.set_viewport_size({"width": 1400, "height": 900})

        page.locator(".tabs a", has_text="Attempts").click()
        calls = page.locator("tr.llm-call")
        expect(calls).to_have_count(LLMCall.objects.filter(attempt=done).count())
        facts = page.locator("#attempt-1 .attempt-facts")
        expect(facts).to_contain_text(f"LLM calls{done.llm_call_count}")
        page.locator(".tabs a", has_text="Report").click()

        accept_and_apply(page, fix)  # the next revision is judged too (the same script)
    assert Fix.objects.get(pk=fix.pk).status == "applied"


def test_a_placeholder_judge_answer_is_re_asked_and_leaves_the_fix_applicable(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    monkeypatch: pytest.MonkeyPatch,
    screenshot_dir: Path,
) -> None:
    revise = judge_json(
        decision="REVISE", confidence=0.75, issues=["Operating cash flow is misquoted"]
    )
    script = [reply(placeholder_answer()), reply(revise)]
    with ScriptedLLM(script, fallback=reply(revise)) as llm:
        llm_environment(monkeypatch, llm.base_url)
        llm_variables(monkeypatch, {"REDLINE_LLM_FIXER": "0"}, for_workers=True)
        attempt = submit_wrong_cash_flow()
        worker = start_worker()
        done = wait_until(
            finished(attempt.pk), timeout=60, what="the LLM attempt", workers=[worker]
        )
        second = llm.requests[1]

    assert done.status == "done" and done.llm["status"] == "ok"
    assert done.decision == "REVISE"  # the placeholder's FAIL changed nothing
    feedback = second["messages"][-1]["content"]
    assert "name the goal this score is for" in feedback and "placeholder" in feedback
    fix = Fix.objects.get(attempt=done)

    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{done.analysis_id}/")
    expect(page.locator(".review-head .badge").first).to_contain_text("REVISE · 0.80")
    expect(page.locator("#status-pill, .status-pill").first).to_contain_text("In review")
    page.locator(".tabs a", has_text="Attempts").click()
    summary = page.locator("#attempt-1 .llm-summary")
    expect(summary).to_contain_text("judge answers: 2")
    page.screenshot(path=str(screenshot_dir / "llm-placeholder-re-asked.png"))
    page.locator(".tabs a", has_text="Report").click()
    accept_and_apply(page, fix)
    assert Fix.objects.get(pk=fix.pk).status == "applied"
