"""The review screen in real headless Chromium, against the live server and a real Celery
worker: validate, review fixes with mouse and keyboard, apply, watch re-validation finish
without a reload, sign off. Screenshots of the page before and after apply are saved to
REDLINE_SCREENSHOT_DIR (default test-artifacts/screenshots)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from analyses.models import Analysis, Revision
from tests.support.worker import wait_until
from validation.models import Fix
from validation.services import analysis_submit

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 60_000

BUNDLE: dict[str, Any] = {
    "title": "NVO — investment thesis",
    "query": "Is Novo Nordisk (NVO) a buy? Show owner earnings.",
    "body": (
        "# NVO — investment thesis\n\n"
        "## Financial analysis\n\n"
        "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B [gurufocus].\n\n"
        "Return on invested capital reached 22.0% [gurufocus], and revenue grew from $33.7B "
        "to $40.1B, up 21% [gurufocus].\n\n"
        "Net margin was 35.6% [gurufocus].\n\n"
        "**FINAL DECISION: WATCH**\n**FINAL CONVICTION: MODERATE**\n"
    ),
    "evidence": [
        {
            "source_ref": "gurufocus",
            "kind": "tool_output",
            "url": "https://www.gurufocus.com/stock/NVO/financials",
            "content": {
                "operating_cash_flow": 15_500_000_000,
                "capex": 700_000_000,
                "roic": 0.225,
                "revenue_2023": 33_700_000_000,
                "revenue_2024": 40_100_000_000,
                "net_margin": 0.347,
            },
        }
    ],
}


def card_for(page: Page, find: str) -> Locator:
    """The fix card whose diff strikes `find`."""
    return page.locator(".fix-card", has=page.locator(".fix-diff del", has_text=find))


def test_review_accept_reject_apply_revalidate_and_sign_off(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    shoot: Callable[[str], Path],
    dialogs: list[str],
) -> None:
    # Ingested, queued, and no worker yet: the queue shows it validating and polls its row.
    analysis = analysis_submit(data=BUNDLE, submitter=None).analysis
    login(reviewer)
    row = page.locator(f"#analysis-row-{analysis.pk}")
    expect(row).to_contain_text("Validating")
    expect(row).to_have_attribute("hx-trigger", "every 2s")
    page.evaluate("window.__marker = 'queue page'")

    start_worker()
    expect(row).to_contain_text("In review", timeout=WAIT_MS)
    expect(row).to_contain_text("REVISE")
    expect(row).not_to_have_attribute("hx-trigger", "every 2s")  # polling stopped
    assert page.evaluate("window.__marker") == "queue page"  # the row updated in place

    row.get_by_role("link", name="NVO — investment thesis").click()
    page.wait_for_url(f"{live_server.url}/analyses/{analysis.pk}/")
    expect(page.locator(".fix-card")).to_have_count(4)
    expect(page.locator("mark.finding--arithmetic")).to_have_count(2)
    expect(page.locator("mark.finding--close-but-wrong")).to_have_count(2)
    expect(page.locator(".checks")).to_contain_text("claims supported")
    shoot("review-before-apply")

    footer = page.locator("#review-footer")
    # Keyboard: j selects the first card, a accepts it.
    page.keyboard.press("j")
    page.keyboard.press("a")
    expect(card_for(page, "$15.8B")).to_contain_text("accepted by dana")
    expect(footer).to_contain_text("1 accepted · 0 rejected · 3 to review")

    # j moves on; r opens the reason box; Enter sends it. Typing "a" there accepts nothing.
    page.keyboard.press("j")
    page.keyboard.press("r")
    reason = card_for(page, "22.0%").locator("textarea[name=reason]")
    expect(reason).to_be_focused()
    reason.press_sequentially("The annual report says 22.0%; a rounding difference.")
    page.keyboard.press("Enter")
    rejected = card_for(page, "22.0%")
    expect(rejected).to_contain_text("rejected by dana")
    expect(rejected).to_contain_text("a rounding difference")
    expect(footer).to_contain_text("1 accepted · 1 rejected · 2 to review")

    # The rest with the mouse.
    card_for(page, "21%").get_by_role("button", name="Accept").click()
    expect(card_for(page, "21%")).to_contain_text("accepted by dana")
    card_for(page, "35.6%").get_by_role("button", name="Accept").click()
    expect(footer).to_contain_text("3 accepted · 1 rejected · 0 to review")

    # ? shows the shortcuts, a modal: u (undo) does nothing behind it; Esc hides it.
    page.keyboard.press("?")
    expect(page.locator("#shortcut-help")).to_be_visible()
    page.keyboard.press("u")
    page.wait_for_timeout(500)  # room for an undo request that must not have been sent
    expect(footer).to_contain_text("3 accepted · 1 rejected · 0 to review")
    page.keyboard.press("Escape")
    expect(page.locator("#shortcut-help")).to_be_hidden()

    shoot("review-fixes-reviewed")

    # Apply: revision 2 is created and re-validated by the worker while the page polls.
    page.evaluate("window.__marker = 'review page'")
    page.get_by_role("button", name="Apply accepted fixes").click()
    expect(page.locator("#flash")).to_contain_text("Applied 3 fixes into revision 2")
    progress = page.locator("#validation-progress")
    expect(page.locator(".review-head")).to_contain_text("revision 2", timeout=WAIT_MS)
    expect(progress).not_to_have_class("progress is-running", timeout=WAIT_MS)
    expect(page.locator(".head-meta")).to_contain_text("attempt 2", timeout=WAIT_MS)
    expect(page.locator(".fixes-panel .note")).to_have_count(0)
    assert page.evaluate("window.__marker") == "review page"  # no reload happened
    revision = Revision.objects.get(analysis=analysis, number=2)
    assert "= $14.8B" in revision.body and "up 19%" in revision.body
    assert "22.0%" in revision.body and "34.7%" in revision.body
    expect(page.locator(".report-body")).to_contain_text("$14.8B")
    expect(page.locator("#flash")).to_contain_text(
        "Validation of revision 2 finished", timeout=WAIT_MS
    )
    shoot("review-after-apply")

    # Sign off with a comment.
    page.locator("summary", has_text="Sign off").click()
    page.fill("#sign-off-comment", "The 22.0% matches the annual report.")
    page.get_by_role("button", name="Approve and sign off").click()
    expect(page.locator(".review-head .status-pill")).to_have_text("Approved")
    expect(footer).to_contain_text("signed off")
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.APPROVED
    assert Fix.objects.filter(revision__analysis=analysis, status="applied").count() == 3
    assert dialogs == []


def test_the_status_fragment_updates_while_validation_runs(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
) -> None:
    analysis = analysis_submit(data=BUNDLE, submitter=None).analysis
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    progress = page.locator("#validation-progress")
    expect(progress).to_contain_text("Validating revision 1 · attempt 1")
    expect(progress).to_contain_text("queued")
    expect(page.locator(".fix-list")).to_contain_text("Fixes appear when validation finishes.")
    page.evaluate("window.__marker = 1")
    start_worker()
    expect(page.locator(".fix-card")).to_have_count(4, timeout=WAIT_MS)
    expect(page.locator(".review-head")).to_contain_text("REVISE")
    assert page.evaluate("window.__marker") == 1
    wait_until(
        lambda: Analysis.objects.get(pk=analysis.pk).status == "in_review",
        timeout=10,
        what="the analysis to be in review",
    )
