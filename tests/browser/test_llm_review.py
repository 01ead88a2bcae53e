"""End to end, issue 9: ingest -> a real Celery worker runs the deterministic engine and then
the LLM judge and fixer against the scripted loopback chat-completions server -> the review
page in Chromium shows the LLM fix with its tool-call proof, and the Attempts tab each call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.engine.llm.server import ScriptedLLM, reply, tool_calls
from tests.support.llm_env import llm_variables
from tests.support.worker import wait_until
from tests.validation.llm.test_llm_attempt import (
    CALC,
    JUDGED,
    SEARCH,
    fix_block,
    submit_wrong_owner_earnings,
)
from validation.models import Attempt, Fix, LLMCall

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 60_000


def test_a_worker_runs_the_llm_path_and_the_review_page_shows_its_fix_and_proof(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = fix_block(
        "Owner earnings are $14.8B",
        "calculator: 15.5 - 0.7 = 14.8; evidence [cashflow-NVO]: operating cash flow, capex",
    )
    script = [reply(JUDGED), tool_calls(SEARCH), tool_calls(CALC), reply(answer)]
    with ScriptedLLM(script) as llm:
        # This process's settings, and the environment the worker inherits when it starts.
        llm_variables(
            monkeypatch,
            {
                "REDLINE_LLM_BASE_URL": llm.base_url,
                "REDLINE_LLM_MODEL": "scripted",
                "REDLINE_LLM_TIMEOUT": "10",
                "REDLINE_LLM_ATTEMPT_BUDGET": "40",
            },
            for_workers=True,
        )
        attempt = submit_wrong_owner_earnings()
        worker = start_worker()

        def finished() -> Attempt | None:
            row = Attempt.objects.get(pk=attempt.pk)
            return row if row.status in ("done", "errored") else None

        done = wait_until(finished, timeout=60, what="the LLM attempt", workers=[worker])
        assert done.status == "done", done.error
        assert len(llm.requests) == 4

    assert LLMCall.objects.filter(attempt=done).count() == 4
    fix = Fix.objects.get(attempt=done, origin="llm")
    assert fix.verified

    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{done.analysis_id}/")
    card = page.locator(f"#fix-{fix.pk}")
    expect(card).to_be_visible(timeout=WAIT_MS)
    expect(card.locator(".fix-kind")).to_contain_text("llm fixer")
    expect(card.locator(".fix-diff del")).to_contain_text("14.6")
    expect(card).not_to_contain_text("unverified")
    card.locator(".tool-calls summary").click()
    calls = card.locator(".tool-calls li")
    expect(calls).to_have_count(2)
    expect(card.locator(".tool-calls")).to_contain_text("calculator(")
    expect(card.locator(".tool-calls")).to_contain_text("14.8")
    expect(card.locator(".tool-calls")).to_contain_text("evidence_search(")

    page.goto(f"{live_server.url}/analyses/{done.analysis_id}/?tab=attempts")
    expect(page.locator(".llm-status")).to_contain_text("LLM path on")
    expect(page.locator("tr.llm-call")).to_have_count(4)
    expect(page.locator("tr.llm-call").first).to_contain_text("judge")
    prompt = page.locator(".llm-prompt").first
    expect(prompt).to_be_hidden()
    page.locator("tr.llm-call-detail details summary").first.click()
    expect(prompt).to_be_visible()
