"""Issue 27, point 2 in Chromium: a reviewer reads revision 1 and opens the sign-off form;
the pipeline posts a new draft meanwhile; the form, submitted, is refused with "the report
changed" and the page shows the new revision, whose form then carries it. An open page also
swaps a new draft in by itself (its slow status poll). Screenshots go to
REDLINE_SCREENSHOT_DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Analysis
from tests.support.review_data import BODY, analysis_in_review
from validation import services
from validation.models import AuditEvent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AVOID = BODY.replace("WATCH", "AVOID")
STRONG_BUY = "# NVO\n\nSTRONG BUY: allocate 40 % of the fund.\n\n**FINAL DECISION: BUY**\n"


def test_a_stale_sign_off_form_is_refused_and_the_new_revision_shown(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    analysis = analysis_in_review(body=AVOID, decision="APPROVE")
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    page.get_by_text("Sign off", exact=True).click()
    form = page.locator("form[action$='/sign-off/']")
    expect(form.locator("input[name=revision]")).to_have_value("1")
    form.locator("textarea[name=comment]").fill("AVOID is right.")

    # The pipeline's new draft, validated at once (eager tasks), while the form is open.
    services.analysis_submit_draft(analysis=analysis, user=None, body=STRONG_BUY)
    form.get_by_role("button", name="Approve and sign off").click()

    expect(page.locator("#flash")).to_contain_text(
        "The report changed: you read revision 1, and revision 2 is current now"
    )
    expect(page.locator(".report-body")).to_contain_text("STRONG BUY: allocate 40 % of the fund.")
    expect(page.locator(".head-meta")).to_contain_text("revision 2")
    shoot("stale-sign-off-refused")
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW
    assert not AuditEvent.objects.filter(analysis=analysis, action="approved").exists()

    # The page now sends revision 2: signing off what was read goes through.
    page.get_by_text("Sign off", exact=True).click()
    form = page.locator("form[action$='/sign-off/']")
    expect(form.locator("input[name=revision]")).to_have_value("2")
    form.locator("textarea[name=comment]").fill("Read revision 2; the allocation is approved.")
    form.get_by_role("button", name="Approve and sign off").click()
    expect(page.locator("#flash")).to_contain_text("Signed off")
    event = AuditEvent.objects.get(analysis=analysis, action="approved")
    assert event.revision is not None and event.revision.number == 2


def test_an_open_page_shows_a_new_draft_by_itself(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    analysis = analysis_in_review(body=AVOID, decision="APPROVE")
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    services.analysis_claim(analysis=analysis, user=reviewer)

    services.analysis_submit_draft(analysis=analysis, user=None, body=STRONG_BUY)

    # No click: the page's watch (every 5 s) swaps the new revision in.
    expect(page.locator("#flash")).to_contain_text(
        "The report changed while you read revision 1: revision 2 is current now",
        timeout=15_000,
    )
    expect(page.locator(".report-body")).to_contain_text("STRONG BUY")
    expect(page.locator("form[action$='/sign-off/'] input[name=revision]")).to_have_value("2")
    shoot("new-draft-while-claimed")
