"""The screens as a reviewer meets them (issue 20), in Chromium at 1400 and 390 px: the
console reports no Content-Security-Policy violation on any page or action; at 390 px
nothing in the header or the queue is cut off; the sticky action bar never covers what it
scrolls to or what ends the page; signing off against the validator asks for a comment and
the Audit tab marks it; "Save edit" of a verified edit is audited as an edit and an acceptance.
Screenshots in REDLINE_SCREENSHOT_DIR (default test-artifacts/screenshots)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from analyses.models import Analysis
from tests.browser.conftest import PASSWORD
from tests.factories import AttemptFactory, RevisionFactory
from tests.validation.web.builders import make_review, make_review_with_fixes
from validation.models import Attempt, AuditEvent, Fix

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

WIDTHS = (1400, 390)
CSP_LISTENER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  const where = `${event.sourceFile}:${event.lineNumber}`;
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI} ${where}`);
});
"""
FAILED_CHECKS = {
    "claims_supported": False,
    "no_hallucinations": False,
    "query_addressed": True,
    "coherent_format": True,
    "source_metadata_present": False,
}


@pytest.fixture
def at_width(browser: Browser) -> Iterator[Callable[[int], Page]]:
    """A fresh page at a viewport width (a phone is 390 px wide), with the CSP listener."""
    contexts: list[BrowserContext] = []

    def open_page(width: int) -> Page:
        context = browser.new_context(
            viewport={"width": width, "height": 900 if width > 500 else 844}
        )
        context.add_init_script(CSP_LISTENER)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


def log_in(page: Page, base: str, user: Any) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__csp || []"))


def screenshot(page: Page, directory: Path, name: str) -> None:
    page.screenshot(path=str(directory / f"{name}.png"))


def retry_verdict(review: Any) -> None:
    Attempt.objects.filter(pk=review.attempt.pk).update(
        decision="RETRY", confidence=0.8, checks=FAILED_CHECKS
    )


def test_no_page_or_action_breaks_the_content_security_policy(
    live_server: Any,
    at_width: Callable[[int], Page],
    reviewer: Any,
    admin_user: Any,
    screenshot_dir: Path,
) -> None:
    base = live_server.url
    for width in WIDTHS:
        review = make_review(title=f"NVO at {width}")
        other = make_review(title=f"AAPL — services margin at {width}")
        long_review = make_review_with_fixes(12, title=f"Segments at {width}")
        page = at_width(width)
        console: list[str] = []
        page.on("console", partial(_keep_console_text, console))
        seen: dict[str, list[str]] = {}
        log_in(page, base, reviewer)

        page.fill("#queue-q", f"aapl — services margin at {width}")  # the htmx filter
        expect(page.locator(".queue-table tbody tr")).to_have_count(1)
        page.fill("#queue-q", "")
        seen["queue"] = violations(page)

        page.goto(f"{base}/analyses/{review.analysis.pk}/")
        for tab in ("Evidence", "Revisions", "Attempts", "Audit", "Report"):
            page.locator(".tabs a", has_text=tab).click()
            expect(page.locator(".tabs a.is-active")).to_contain_text(tab)
        page.keyboard.press("j")
        page.keyboard.press("a")  # accept
        expect(page.locator(".fix-review[data-status=accepted]")).to_have_count(1)
        page.keyboard.press("u")  # undo
        expect(page.locator(".fix-review[data-status=accepted]")).to_have_count(0)
        page.keyboard.press("r")
        page.keyboard.type("Not what the evidence says.")
        page.keyboard.press("Enter")  # reject with a reason
        expect(page.locator(".fix-review[data-status=rejected]")).to_have_count(1)
        page.keyboard.press("j")
        page.keyboard.press("e")
        page.keyboard.press("Control+Enter")  # save the edit as it is: accepted
        expect(page.locator(".fix-review[data-status=accepted]")).to_have_count(1)
        page.keyboard.press("?")
        expect(page.locator("#shortcut-help")).to_be_visible()
        page.keyboard.press("Escape")
        page.fill("#bulk-threshold", "0.5")
        page.locator("[data-bulk-button]").click()  # bulk accept
        page.locator("button[data-action=apply]").click()  # apply, re-validated at commit
        expect(page.locator(".head-meta")).to_contain_text("revision 2")
        page.locator(".tabs a", has_text="Revisions").click()
        sign_off = page.locator("#review-footer summary", has_text="Sign off")
        sign_off.click()  # the popover opens...
        sign_off.click()  # ...and closes
        seen["review actions"] = violations(page)
        screenshot(page, screenshot_dir, f"csp-review-after-apply-{width}")

        page.goto(f"{base}/analyses/{other.analysis.pk}/")
        page.locator("#review-footer summary", has_text="Reject analysis").click()
        page.fill("#reject-comment", "Wrong company.")
        page.locator("#review-footer button", has_text="Reject analysis").click()
        expect(page.locator("#final-banner")).to_contain_text("Rejected")
        page.goto(f"{base}/analyses/{long_review.analysis.pk}/?tab=revisions")
        page.goto(f"{base}/dashboard/")
        expect(page.locator("#dashboard[data-ready='1']")).to_be_visible()
        page.goto(f"{base}/policy/")
        seen["other pages"] = violations(page)
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/accounts/login/")

        log_in(page, base, admin_user)
        for path in ("/admin/", "/admin/validation/policy/1/change/", "/admin/validation/attempt/"):
            page.goto(f"{base}{path}")
            seen[path] = violations(page)

        assert all(found == [] for found in seen.values()), (width, seen)
        assert not [text for text in console if "Content Security Policy" in text], console


CLIPPED = """() => {
  // Every visible element of the header and the queue lies within the viewport and within
  // the boxes that clip it (overflow other than visible).
  const width = document.documentElement.clientWidth;
  const problems = [];
  const roots = [document.querySelector(".topbar"), document.querySelector(".queue-page")];
  for (const root of roots) {
    for (const el of [root, ...root.querySelectorAll("*")]) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (getComputedStyle(el).visibility === "hidden") continue;
      if (el.closest(".sr-only") || el.matches("thead, thead *")) continue;
      const name = `${el.tagName}.${el.className}`;
      if (box.left < -0.5 || box.right > width + 0.5) problems.push(`${name} ${box.right}`);
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (style.overflowX === "visible" && style.overflowY === "visible") continue;
        const outer = up.getBoundingClientRect();
        if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5) {
          problems.push(`${name} cut by ${up.tagName}.${up.className}`);
        }
        break;
      }
    }
  }
  return {problems, scrollWidth: document.documentElement.scrollWidth, width};
}"""


def test_at_390_px_nothing_in_the_header_or_the_queue_is_cut_off(
    live_server: Any, at_width: Callable[[int], Page], reviewer: Any, screenshot_dir: Path
) -> None:
    review = make_review(title="Novo Nordisk (NVO) investment thesis, owner earnings and ROIC")
    retry_verdict(review)
    review.analysis.claimed_by, review.analysis.claimed_until = reviewer, None
    make_review(title="AAPL options volume today", with_fixes=False)
    page = at_width(390)
    log_in(page, live_server.url, reviewer)

    found = page.evaluate(CLIPPED)
    assert found["problems"] == [], found["problems"]
    assert found["scrollWidth"] <= found["width"]
    expect(page.get_by_role("button", name="Log out")).to_be_in_viewport(ratio=1)
    row = page.locator(f"#analysis-row-{review.analysis.pk}")
    for text in ("In review", "RETRY · 0.80", "failed: Claims supported"):
        expect(row).to_contain_text(text)
    # When it was received, however long the page took to come: "just now" or "2 s ago".
    expect(row.locator("time")).to_have_text(re.compile(r"^(just now|\d+ (s|min) ago)$"))
    page.screenshot(path=str(screenshot_dir / "queue-390.png"), full_page=True)

    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    expect(page.get_by_role("button", name="Log out")).to_be_in_viewport(ratio=1)
    screenshot(page, screenshot_dir, "review-390")


FOOTER_CLEAR = """(selector) => {
  const footer = document.getElementById("review-footer").getBoundingClientRect();
  const box = document.querySelector(selector).getBoundingClientRect();
  return {bottom: box.bottom, footerTop: footer.top, footerHeight: footer.height};
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_action_bar_never_covers_what_ends_the_page_or_what_is_scrolled_to(
    live_server: Any,
    at_width: Callable[[int], Page],
    reviewer: Any,
    screenshot_dir: Path,
    width: int,
) -> None:
    diffed = make_review_with_fixes(30, title="Segments, revised")
    body2 = diffed.revision.body.replace(".5M", ".7M") + "\nA last line.\n"
    revision2 = RevisionFactory.create(analysis=diffed.analysis, number=2, body=body2)
    AttemptFactory.create(revision=revision2, status="done", decision="REVISE", confidence=0.7)
    review = make_review_with_fixes(12, title="Segments")
    page = at_width(width)
    log_in(page, live_server.url, reviewer)

    # The end of the revision diff, scrolled to the end of the page: above the bar.
    page.goto(f"{live_server.url}/analyses/{diffed.analysis.pk}/?tab=revisions")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    last_row = page.evaluate(FOOTER_CLEAR, ".diff tr:last-child")
    assert last_row["bottom"] <= last_row["footerTop"], last_row
    screenshot(page, screenshot_dir, f"action-bar-revision-diff-end-{width}")

    # Every fix card the keyboard moves to, and an opened panel, stop above the bar.
    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/?tab=report")
    cards = page.locator(".fix-card")
    for index in range(cards.count()):
        page.keyboard.press("j")
        page.wait_for_timeout(50)
        card = page.evaluate(FOOTER_CLEAR, f".fix-card:nth-child({index + 1})")
        assert card["bottom"] <= card["footerTop"] + 0.5, (index, card)
    page.keyboard.press("r")
    reason = page.evaluate(FOOTER_CLEAR, ".fix-card:last-child textarea[name=reason]")
    assert reason["bottom"] <= reason["footerTop"], reason
    screenshot(page, screenshot_dir, f"action-bar-last-card-{width}")
    page.keyboard.press("Escape")

    # The end of the report tab, at the end of the page.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    legend = page.evaluate(FOOTER_CLEAR, ".legend")
    assert legend["bottom"] <= legend["footerTop"], legend


def test_signing_off_against_the_validator_asks_why_and_the_audit_marks_it(
    live_server: Any,
    at_width: Callable[[int], Page],
    reviewer: Any,
    screenshot_dir: Path,
) -> None:
    review = make_review()
    retry_verdict(review)
    Fix.objects.filter(revision=review.revision).update(status="rejected", reason="no")
    page = at_width(1400)
    log_in(page, live_server.url, reviewer)
    row = page.locator(".queue-row", has_text="NVO")
    expect(row).to_contain_text(
        "failed: Claims supported, No hallucinations, Source metadata present"
    )

    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    page.locator("#review-footer summary", has_text="Sign off").click()
    warning = page.locator("#sign-off-against-validator")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("The validator rated this RETRY · 0.80, with failed checks")
    expect(page.locator("label[for=sign-off-comment]")).to_contain_text("(required)")
    screenshot(page, screenshot_dir, "sign-off-against-the-validator")
    page.get_by_role("button", name="Approve and sign off").click()  # no comment: refused
    assert Analysis.objects.get(pk=review.analysis.pk).status == "in_review"
    page.fill("#sign-off-comment", "The sources were checked by hand.")
    page.get_by_role("button", name="Approve and sign off").click()
    banner = page.locator("#final-banner")
    expect(banner).to_contain_text("Signed off")
    expect(banner).to_contain_text("against the validator's RETRY")

    page.locator(".tabs a", has_text="Audit").click()
    row = page.locator(".audit-table tr", has_text="Signed off")
    expect(row.locator(".badge--override")).to_contain_text(
        "override: against the validator's RETRY (failed: Claims supported"
    )
    screenshot(page, screenshot_dir, "audit-override-sign-off")


def test_save_and_accept_is_audited_as_an_edit_and_an_acceptance(
    live_server: Any, at_width: Callable[[int], Page], reviewer: Any, screenshot_dir: Path
) -> None:
    review = make_review()
    fix = review.fixes[0]  # $15.8B -> $14.8B, proved by 15.5 - 0.7
    page = at_width(1400)
    log_in(page, live_server.url, reviewer)
    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    card = page.locator(f"#fix-{fix.pk}")
    card.locator("summary", has_text="Edit").click()
    card.locator("textarea[name=replace]").fill("$14.80B")
    card.get_by_role("button", name="Save edit").click()
    expect(page.locator(f"#fix-{fix.pk} .fix-review")).to_have_attribute("data-status", "accepted")

    page.locator(".tabs a", has_text="Audit").click()
    rows = page.locator(".audit-table tbody tr", has_text=f"fix #{fix.pk}")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Accepted fix")  # newest first
    expect(rows.nth(1)).to_contain_text("Edited fix")
    actions = AuditEvent.objects.filter(fix=fix).order_by("id").values_list("action", flat=True)
    assert list(actions) == ["fix_edited", "fix_accepted"]
    screenshot(page, screenshot_dir, "audit-save-and-accept")


def _keep_console_text(seen: list[str], message: Any) -> None:
    seen.append(message.text)
