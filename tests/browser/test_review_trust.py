"""Issue 11 in Chromium: an edited fix its proof contradicts is flagged and skipped by bulk
accept; counters agree after accept / reject / undo; the last loop is announced and the limit
is explained, with sign-off (override and comment) still possible; a final state leaves a
footer without actions. Screenshots go to REDLINE_SCREENSHOT_DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from analyses.models import Analysis
from tests.browser.test_review_flow import BUNDLE, WAIT_MS, card_for
from tests.support.review_data import add_fix, analysis_in_review
from validation.models import AuditEvent, Fix, Policy, ToolCall
from validation.services import analysis_submit

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def _calculator_fix(analysis: Analysis) -> Fix:
    fix = add_fix(analysis, "= $15.8B", "= $14.8B", confidence=0.99)
    fix.kind = "arithmetic"
    fix.verified_with = "calculator: 15.5 - 0.7 = 14.8"
    fix.save()
    ToolCall.objects.create(
        attempt=fix.attempt, fix=fix, tool="calculator", input={"expression": "15.5 - 0.7"}
    )
    return fix


def _fixes_title(page: Page) -> Locator:
    return page.locator("#fixes-title")


def test_an_edit_to_a_wrong_value_is_flagged_and_bulk_accept_skips_it(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    analysis = analysis_in_review()
    wrong = _calculator_fix(analysis)
    other = add_fix(analysis, "$152.4", "$152.40", confidence=0.95)
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")

    card = page.locator(f"#fix-{wrong.pk}")
    card.locator("summary", has_text="Edit").click()
    card.locator("textarea[name=replace]").fill("= $14.9B")
    card.get_by_role("button", name="Save edit").click()
    card = page.locator(f"#fix-{wrong.pk}")
    expect(card.locator(".badge--unverified")).to_have_text("edited — unverified")
    expect(card.locator(".fix-warning")).to_contain_text("gives 14.8")
    expect(card.locator(".fix-warning")).to_contain_text("bulk accept skips this fix")
    expect(card.locator(".fix-conf")).to_have_text("0.25")
    expect(card.locator(".fix-state")).to_contain_text("to review")
    expect(page.locator("[data-bulk-count]")).to_have_text("1")
    shoot("trust-edit-unverified")

    page.locator("#bulk-threshold").fill("0")
    page.locator("[data-bulk-button]").click()
    expect(page.locator("#flash")).to_contain_text("Accepted 1 fix")
    expect(page.locator(f"#fix-{other.pk}")).to_contain_text("accepted by dana")
    expect(page.locator(f"#fix-{wrong.pk}")).to_contain_text("to review")
    wrong.refresh_from_db()
    assert (wrong.status, wrong.edit_check) == (Fix.Status.PROPOSED, "unverified")


def test_counters_agree_after_accept_reject_and_undo(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    analysis = analysis_in_review()
    first = _calculator_fix(analysis)
    second = add_fix(analysis, "$152.4", "$152.40", confidence=0.95)
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    footer = page.locator("#review-footer .counts")
    expect(_fixes_title(page)).to_have_text("Fixes · 2 (2 to review)")

    page.locator(f"#fix-{first.pk}").get_by_role("button", name="Accept").click()
    expect(_fixes_title(page)).to_have_text("Fixes · 2 (1 to review)")
    expect(footer).to_have_text("1 accepted · 0 rejected · 1 to review")

    second_card = page.locator(f"#fix-{second.pk}")
    second_card.locator("summary", has_text="Reject").click()
    second_card.locator("textarea[name=reason]").fill("The annual report says 152.4.")
    second_card.get_by_role("button", name="Reject fix").click()
    expect(_fixes_title(page)).to_have_text("Fixes · 2")
    expect(footer).to_have_text("1 accepted · 1 rejected · 0 to review")
    shoot("trust-counters-after-reject")

    page.locator(f"#fix-{first.pk}").get_by_role("button", name="Undo").click()
    expect(_fixes_title(page)).to_have_text("Fixes · 2 (1 to review)")
    expect(footer).to_have_text("0 accepted · 1 rejected · 1 to review")


def test_last_loop_warning_limit_banner_and_sign_off_with_an_override(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    shoot: Callable[[str], Path],
    dialogs: list[str],
) -> None:
    Policy.objects.filter(pk=1).update(max_revise_loops=1, max_retry_loops=1, max_total_loops=1)
    analysis = analysis_submit(data=BUNDLE, submitter=None).analysis
    start_worker()
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    expect(page.locator(".fix-card")).to_have_count(4, timeout=WAIT_MS)
    expect(page.locator(".head-meta")).to_contain_text("loops used: REVISE 0 of 1")

    card_for(page, "$15.8B").get_by_role("button", name="Accept").click()
    warning = page.locator("#last-loop-warning")
    expect(warning).to_contain_text("This uses the last REVISE loop (1 of 1)")
    shoot("trust-last-loop-warning")

    page.get_by_role("button", name="Apply accepted fixes").click()
    banner = page.locator("#limit-banner")
    expect(banner).to_contain_text("REVISE loop limit reached (1 of 1 used)", timeout=WAIT_MS)
    expect(banner).to_contain_text("sign off with a comment, or reject")
    expect(page.locator(".review-head .status-pill")).to_have_text("In review")
    expect(page.get_by_role("button", name="Apply accepted fixes")).to_have_count(0)
    expect(page.locator("summary", has_text="Reject analysis")).to_be_visible()
    expect(page.locator(".head-meta")).to_contain_text("loops used: REVISE 1 of 1")

    # Sign-off with undecided fixes: the form says so and needs the override and a comment.
    page.locator("summary", has_text="Sign off").click()
    form = page.locator("form.popover-panel", has=page.locator("#sign-off-comment"))
    expect(form).to_contain_text("not decided")
    form.get_by_role("button", name="Approve and sign off").click()
    page.wait_for_timeout(300)  # the browser refuses to send it (required fields)
    assert Analysis.objects.get(pk=analysis.pk).status == Analysis.Status.IN_REVIEW
    shoot("trust-limit-banner-sign-off")

    form.locator("input[name=override]").check()
    page.fill("#sign-off-comment", "The remaining findings are immaterial.")
    form.get_by_role("button", name="Approve and sign off").click()
    expect(page.locator(".review-head .status-pill")).to_have_text("Approved")
    final = page.locator("#final-banner")
    expect(final).to_contain_text("Signed off by dana")
    expect(final).to_contain_text("The remaining findings are immaterial.")
    expect(final).to_contain_text("override")

    footer = page.locator("#review-footer")
    expect(footer).to_contain_text("signed off by dana")
    expect(footer).to_contain_text("not reviewed")
    expect(footer.get_by_role("button", name="Apply accepted fixes")).to_have_count(0)
    expect(footer.locator("kbd")).to_have_count(0)
    expect(footer.locator("summary")).to_have_count(0)
    shoot("trust-final-state-footer")

    event = AuditEvent.objects.get(analysis=analysis, action="approved")
    assert event.data["override"] is True
    assert dialogs == []
