"""End to end with a real model (issue 13): ingest -> a real Celery worker runs the engine
and then the LLM judge and fixer against the local model (SmolLM2-135M-Instruct on
llama.cpp's server, on a free 127.0.0.1 port) -> the review page in Chromium shows what
came of it: the LLM's fixes with their tool calls, or the errored attempt with its reason.

The model is tiny and its answers are not scripted: the test asserts what must hold for any
answer -- every HTTP request is an LLMCall row shown on the Attempts tab; a report the
engine flags for a wrong number is never APPROVE; an errored attempt shows its reason; a
kept LLM fix shows its proof, or is badged unverified."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.llm_env import llm_variables
from tests.support.worker import wait_until
from tests.validation.llm.test_llm_attempt import submit_wrong_owner_earnings
from validation.models import Attempt, Finding, Fix, LLMCall, ToolCall

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.llm_local,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 60_000


def test_a_worker_asks_the_real_model_and_the_review_page_shows_what_came_of_it(
    local_llm: Any,
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    shoot: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # This process's settings, and the environment the worker inherits when it starts.
    llm_variables(
        monkeypatch,
        {**local_llm.env(), "REDLINE_LLM_ATTEMPT_BUDGET": "80"},
        for_workers=True,
    )
    attempt = submit_wrong_owner_earnings()
    worker = start_worker()

    def finished() -> Attempt | None:
        row = Attempt.objects.get(pk=attempt.pk)
        return row if row.status in ("done", "errored") else None

    done = wait_until(finished, timeout=150, what="the real-model attempt", workers=[worker])

    calls = list(LLMCall.objects.filter(attempt=done))
    assert calls, "the LLM path asked the model nothing"
    assert calls[0].purpose == "judge"
    assert all(call.model == "smollm2-135m-instruct" for call in calls)
    assert done.llm_call_count == len(calls)
    # The engine flags $14.6B (owner earnings are 15.5 - 0.7 = 14.8): whatever the model
    # said, the report is not approved. An errored attempt (the judge never answered
    # validly, or the endpoint gave up) records its reason and no verdict.
    assert done.decision != "APPROVE"
    if done.status == "done":
        assert Finding.objects.filter(attempt=done).exclude(severity="info").exists()
    else:
        assert done.error
    llm_fixes = list(Fix.objects.filter(attempt=done, origin="llm"))
    for fix in llm_fixes:
        proof = ToolCall.objects.filter(fix=fix)
        if fix.verified:
            assert proof.exists() and not proof.exclude(error="").exists()
        else:
            assert fix.confidence <= 0.2

    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{done.analysis_id}/")
    for fix in llm_fixes:
        card = page.locator(f"#fix-{fix.pk}")
        expect(card).to_be_visible(timeout=WAIT_MS)
        expect(card.locator(".fix-kind")).to_contain_text("llm fixer")
        if fix.verified:
            card.locator(".tool-calls summary").click()
            expect(card.locator(".tool-calls li")).to_have_count(
                ToolCall.objects.filter(fix=fix).count()
            )
        else:
            expect(card).to_contain_text("unverified")
    shoot("local-llm-review")

    page.goto(f"{live_server.url}/analyses/{done.analysis_id}/?tab=attempts")
    expect(page.locator(".llm-status")).to_contain_text("LLM path on")
    expect(page.locator("tr.llm-call")).to_have_count(len(calls))
    expect(page.locator("tr.llm-call").first).to_contain_text("smollm2-135m-instruct")
    summary = page.locator(".attempt-llm .llm-summary").first
    if done.status == "errored" or done.llm.get("status") == "errored":
        # The reason is on the page: the attempt's error or the LLM path's.
        reason = done.error or done.llm["error"]
        assert reason
        expect(page.locator(".attempt-error, .llm-error").first).to_contain_text(reason[:60])
    else:
        expect(summary).to_contain_text("LLM path: ok")
    fixer = done.llm.get("fixer", {})
    if fixer.get("ran"):
        expect(summary).to_contain_text("fixer:")
        # Every fixer tool call that proves no kept fix is listed, a wrong argument with
        # its error; every fix not kept with its reason.
        unused = list(ToolCall.objects.filter(attempt=done, fix__isnull=True))
        page.locator(".fixer-tool-calls summary").click()
        items = page.locator("li.fixer-tool-call")
        expect(items).to_have_count(len(unused))
        for call in unused:
            if call.error:
                expect(page.locator(".fixer-tool-calls")).to_contain_text(call.error[:40])
        expect(page.locator("li.llm-refused-fix")).to_have_count(len(fixer.get("rejected", [])))
    shoot("local-llm-attempts")
