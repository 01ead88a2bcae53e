"""Issue 28 in real headless Chromium: a reviewer selects text in the report, writes their
own fix, accepts it and applies it into revision 2; a validator FAIL waits in review with
its failed checks explained and is signed off against with a comment; the nav's queue count
follows every action; and across every action -- tabs, accept, reject, edit, undo, bulk
accept, the reviewer's fix, apply, sign-off -- the console stays empty (no CSP violation).
Screenshots go to REDLINE_SCREENSHOT_DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ConsoleMessage, Locator, Page, expect

from analyses.models import Analysis, Revision
from tests.validation.web.builders import make_review
from validation.models import Attempt, AuditEvent, Fix

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""

SELECT_TEXT = """(text) => {
  const report = document.querySelector(".report-body");
  const walker = document.createTreeWalker(report, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const at = node.data.indexOf(text);
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + text.length);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      return true;
    }
  }
  return false;
}"""


class Console:
    """Every console message and CSP violation a page reports, across navigations."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.messages: list[str] = []
        self.violations: list[str] = []
        page.on("console", self._on_console)
        page.add_init_script(CSP_LISTENER)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.messages.append(f"{message.type}: {message.text}")

    def collect(self) -> None:
        """Read the violations of the page now shown (before it is left)."""
        self.violations += self.page.evaluate("window.__cspViolations || []")
        self.page.evaluate("window.__cspViolations = []")

    def assert_empty(self) -> None:
        self.collect()
        assert self.violations == [], self.violations
        assert self.messages == [], self.messages


def card_for(page: Page, find: str) -> Locator:
    return page.locator(".fix-card", has=page.locator(".fix-diff del", has_text=find))


def nav_count(page: Page) -> Locator:
    return page.locator("#nav-queue-count")


def _in_review_count() -> str:
    """The nav's count as the database has it now ("" for none)."""
    count = Analysis.objects.filter(status=Analysis.Status.IN_REVIEW).count()
    return f"({count})" if count else ""


def test_every_reviewer_action_with_an_empty_console_and_a_true_queue_count(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    console = Console(page)
    review = make_review()
    failed = make_review(title="NVO — a memo the validator failed", with_fixes=False)
    Attempt.objects.filter(pk=failed.attempt.pk).update(
        decision=Attempt.Decision.FAIL,
        confidence=0.26,
        check_reasons={
            "claims_supported": "2 numbers found in no evidence (orphan, listed under no "
            "hallucinations): a number nothing supports is an unsupported claim too",
            "no_hallucinations": "2 findings, e.g. $131.40 is in no evidence",
        },
    )
    login(reviewer)
    expect(nav_count(page)).to_have_text("(2)")
    page.goto(f"{live_server.url}/dashboard/")
    expect(nav_count(page)).to_have_text("(2)")  # the dashboard's nav counts too
    console.collect()
    page.goto(f"{live_server.url}/policy/")
    expect(page.locator("body")).to_contain_text("FAIL ends the analysis")
    console.collect()

    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    for tab in ("Evidence", "Revisions", "Attempts", "Audit", "Report"):
        page.locator(".tabs a", has_text=tab).click()
        expect(page.locator(".tabs a.is-active")).to_contain_text(tab)
    footer = page.locator("#review-footer .counts")

    # Accept, undo, reject, edit: each swaps its card, the counters follow.
    card_for(page, "$15.8B").get_by_role("button", name="Accept").click()
    expect(card_for(page, "$15.8B")).to_contain_text("accepted by dana")
    card_for(page, "$15.8B").get_by_role("button", name="Undo").click()
    expect(card_for(page, "$15.8B")).to_contain_text("to review")
    rejected = card_for(page, "22.0%")
    rejected.locator("summary", has_text="Reject").click()
    rejected.locator("textarea[name=reason]").fill("The filing says 22.0%.")
    rejected.get_by_role("button", name="Reject fix").click()
    expect(card_for(page, "22.0%")).to_contain_text("rejected by dana")
    edited = card_for(page, "$131.40")
    edited.locator("summary", has_text="Edit").click()
    edited.locator("textarea[name=replace]").fill("$134.22 (the quote)")
    edited.get_by_role("button", name="Save edit").click()
    expect(card_for(page, "$131.40")).to_contain_text("Replacement edited by the reviewer")

    # The reviewer's own fix: select text in the report, press w, write, add.
    assert page.evaluate(SELECT_TEXT, "well above the cost of capital")
    page.wait_for_timeout(100)  # selectionchange is delivered asynchronously
    page.locator(".report-body").focus()
    page.keyboard.press("w")
    panel = page.locator("#own-fix")
    expect(panel).to_have_attribute("open", "")
    expect(panel.locator("textarea[name=find]")).to_have_value("well above the cost of capital")
    panel.locator("textarea[name=replace]").fill("comfortably above its cost of capital")
    shoot("own-fix-form")
    panel.get_by_role("button", name="Add my fix").click()
    own = page.locator(".fix-card", has=page.locator(".badge--authored"))
    expect(own).to_contain_text("written by dana")
    expect(own.locator(".badge--word")).to_have_text("reviewer's word")
    expect(page.locator("#flash")).to_contain_text("Your fix")
    shoot("own-fix-card")
    fix = Fix.objects.get(origin=Fix.Origin.REVIEWER)
    assert (fix.find, fix.author_id) == ("well above the cost of capital", reviewer.pk)

    own.get_by_role("button", name="Accept").click()
    expect(own).to_contain_text("accepted by dana")
    # Bulk accept the rest at a zero threshold: the validator's proposals still to review.
    page.locator("#bulk-threshold").fill("0")
    page.locator("[data-bulk-button]").click()
    expect(page.locator("#flash")).to_contain_text("Accepted")
    expect(footer).not_to_contain_text(" 0 accepted")

    # Apply: revision 2, with the reviewer's words in it; the analysis leaves the queue.
    page.get_by_role("button", name="Apply accepted fixes").click()
    expect(page.locator("#flash")).to_contain_text("into revision 2")
    expect(page.locator(".review-head")).to_contain_text("revision 2")
    # The tests validate eagerly: revision 2 is validated within the apply, so the count the
    # apply's answer brings out of band is the database's count after it, whatever it is.
    expect(nav_count(page)).to_have_text(_in_review_count())
    revision = Revision.objects.get(analysis=review.analysis, number=2)
    assert "comfortably above its cost of capital" in revision.body
    shoot("own-fix-applied-revision-2")
    console.collect()

    # The FAIL waits in review, each failed check says why; sign off against it.
    page.goto(f"{live_server.url}/analyses/{failed.analysis.pk}/")
    reasons = page.locator(".check-reasons")
    expect(reasons).to_contain_text("Claims supported failed: 2 numbers found in no evidence")
    expect(reasons).to_contain_text("No hallucinations failed: 2 findings")
    expect(page.locator("body")).not_to_contain_text("Failed without a finding")
    shoot("fail-in-review")
    page.locator("summary", has_text="Sign off").click()
    expect(page.locator("#sign-off-against-validator")).to_contain_text("rated this FAIL")
    page.locator("#sign-off-comment").fill("False alarms: every number is in the filing.")
    page.get_by_role("button", name="Approve and sign off").click()
    expect(page.locator("#final-banner")).to_contain_text("Signed off")
    expect(nav_count(page)).to_have_text(_in_review_count())  # one fewer, out of band
    assert _in_review_count() != "(2)"
    shoot("fail-signed-off")
    assert Analysis.objects.get(pk=failed.analysis.pk).status == Analysis.Status.APPROVED
    event = AuditEvent.objects.get(analysis=failed.analysis, action="approved")
    assert event.data["decision"] == "FAIL" and event.data["against_validator"] is True

    page.goto(f"{live_server.url}/")
    expect(nav_count(page)).to_have_text(_in_review_count())
    console.assert_empty()


def test_a_reviewer_rejects_a_fail_and_the_count_follows(
    live_server: Any, page: Page, login: Callable[[Any], None], reviewer: Any
) -> None:
    console = Console(page)
    failed = make_review(with_fixes=False)
    Attempt.objects.filter(pk=failed.attempt.pk).update(decision=Attempt.Decision.FAIL)
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{failed.analysis.pk}/")
    expect(nav_count(page)).to_have_text("(1)")
    page.locator("summary", has_text="Reject analysis").click()
    page.locator("#reject-comment").fill("The memo answers another question.")
    page.get_by_role("button", name="Reject analysis").last.click()
    expect(page.locator("#final-banner")).to_contain_text("Rejected")
    expect(nav_count(page)).to_have_text("")
    console.assert_empty()


def test_w_opens_the_form_on_the_current_fixs_finding(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    console = Console(page)
    review = make_review()
    finding = review.findings[0] if review.findings else None
    if finding is None:  # the builder links no findings: give the first fix one
        from validation.models import Finding

        start = review.revision.body.index("$15.8B")
        finding = Finding.objects.create(
            attempt=review.attempt,
            check_name="claims_supported",
            kind="arithmetic",
            severity="major",
            message="$15.8B does not add up.",
            start=start,
            end=start + 6,
            text="$15.8B",
        )
        Fix.objects.filter(revision=review.revision, find="$15.8B").update(finding=finding)
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")

    page.keyboard.press("j")  # the first card: the $15.8B fix, on that finding
    page.keyboard.press("w")

    panel = page.locator("#own-fix")
    expect(panel).to_have_attribute("open", "")
    expect(panel.locator("textarea[name=find]")).to_have_value("$15.8B")
    expect(panel.locator("input[name=finding]")).to_have_value(str(finding.pk))
    expect(panel.locator("textarea[name=replace]")).to_be_focused()
    panel.locator("textarea[name=replace]").fill("$14.8B (15.5 - 0.7 = 14.8)")
    panel.get_by_role("button", name="Add my fix").click()
    own = page.locator(".fix-card", has=page.locator(".badge--authored"))
    expect(own.locator(".badge--reverified")).to_have_text("checked")
    shoot("own-fix-on-a-finding")
    fix = Fix.objects.get(origin=Fix.Origin.REVIEWER)
    assert (fix.finding_id, fix.edit_check) == (finding.pk, "verified")
    console.assert_empty()
