"""Every tab of the review screen, swapped in by htmx, and the queue: what a reviewer sees,
with screenshots to look at (REDLINE_SCREENSHOT_DIR)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.factories import AttemptFactory, AuditEventFactory, RevisionFactory
from tests.validation.web.builders import make_review
from validation.models import AuditEvent

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def test_tabs_and_queue(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    review = make_review()
    body2 = review.revision.body.replace("= $15.8B", "= $14.8B").replace("22.0%", "22.5%")
    revision2 = RevisionFactory.create(
        analysis=review.analysis, number=2, body=body2, author=reviewer
    )
    AttemptFactory.create(
        revision=revision2, status="errored", error="LLM judge timed out after 30 s"
    )
    AuditEventFactory.create(
        analysis=review.analysis,
        actor=reviewer,
        action=AuditEvent.Action.FIX_REJECTED,
        fix=review.fixes[2],
        revision=review.revision,
        comment="The quote is from last week.",
    )
    make_review(title="AAPL — services margin", with_fixes=False)
    login(reviewer)
    expect(page.locator(".queue-table tbody tr")).to_have_count(2)
    page.fill("#queue-q", "aapl")
    expect(page.locator(".queue-table tbody tr")).to_have_count(1)
    assert "q=aapl" in page.url  # filters are in the address, so the page can be shared
    page.fill("#queue-q", "")
    expect(page.locator(".queue-table tbody tr")).to_have_count(2)
    shoot("queue")

    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    expect(page.locator("#validation-progress")).to_contain_text("LLM judge timed out")
    for tab, text in [
        ("Evidence", "gurufocus-nvo-2024"),
        ("Revisions", "Compare revision"),
        ("Attempts", "Attempt 2"),
        ("Audit", "The quote is from last week."),
    ]:
        page.locator(".tabs a", has_text=tab).click()
        expect(page.locator("#tab-panel")).to_contain_text(text)
        assert f"tab={tab.lower()}" in page.url
        shoot(f"review-tab-{tab.lower()}")
    diff = page.locator(".diff")
    page.locator(".tabs a", has_text="Revisions").click()
    expect(diff.locator("del", has_text="$15.8B")).to_have_count(1)
    expect(diff.locator("ins", has_text="$14.8B")).to_have_count(1)
    page.go_back()  # htmx history: back to the audit tab
    expect(page.locator(".tabs a.is-active")).to_contain_text("Audit")
