"""In a real browser: script in a report never runs, and roles hold (a reviewer cannot reach
the admin's policy page; a user without a role cannot see someone else's analysis or act
on it, even by posting directly with a valid CSRF token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Evidence
from tests.validation.web.builders import XSS_BODY, make_review
from validation.models import Fix

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

POST_WITH_CSRF = """async (url) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken=")).split("=")[1];
  const headers = {"X-CSRFToken": token, "HX-Request": "true"};
  const response = await fetch(url, {method: "POST", headers});
  return response.status;
}"""


def test_script_in_a_report_does_not_run(
    live_server: Any, page: Page, login: Callable[[Any], None], reviewer: Any, dialogs: list[str]
) -> None:
    review = make_review(body=XSS_BODY, title="<script>window.__xss=1</script> payloads")
    Evidence.objects.create(
        analysis=review.analysis,
        source_ref="<img src=x onerror=alert(3)>",
        url="javascript:alert(4)",
        content_text="<script>window.__xss=1</script>",
    )
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    report = page.locator(".report-body")
    expect(report).to_contain_text("Revenue was $10.5B.")
    expect(report.locator("a", has_text="good link")).to_have_attribute(
        "href", "https://example.com/report"
    )
    expect(report.locator("a", has_text="good link")).to_have_attribute(
        "rel", "noopener noreferrer"
    )
    bad = report.get_by_text("link", exact=True)
    assert bad.get_attribute("href") is None
    assert report.locator("script, img, svg, iframe").count() == 0

    # Every tab, swapped in by htmx, and the page title.
    for tab in ("Evidence", "Revisions", "Attempts", "Audit", "Report"):
        page.locator(".tabs a", has_text=tab).click()
        expect(page.locator(".tabs a.is-active")).to_contain_text(tab)
    page.locator(".tabs a", has_text="Evidence").click()
    expect(page.locator(".evidence-list")).to_contain_text("<script>window.__xss=1</script>")
    assert page.locator(".evidence-list a[href^='javascript']").count() == 0
    page.wait_for_timeout(300)  # give any injected handler a chance to fire
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert dialogs == []


def test_a_reviewer_cannot_change_the_policy(
    live_server: Any, page: Page, login: Callable[[Any], None], reviewer: Any
) -> None:
    login(reviewer)
    expect(page.locator(".topnav")).not_to_contain_text("Admin")
    response = page.goto(f"{live_server.url}/admin/validation/policy/1/change/")
    assert response is not None
    if response.status == 403:
        return
    assert "/admin/login/" in page.url  # the admin site sends non-staff to its login
    expect(page.locator("body")).not_to_contain_text("Fix confidence threshold")


def test_a_user_without_a_role_cannot_see_or_act_on_others_analyses(
    live_server: Any, page: Page, login: Callable[[Any], None], outsider: Any
) -> None:
    review = make_review()
    login(outsider)
    expect(page.locator(".queue-table")).not_to_contain_text("NVO — investment thesis")
    expect(page.locator("body")).not_to_contain_text("Next")
    response = page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    assert response is not None and response.status == 404
    fix = review.fixes[0]
    page.goto(f"{live_server.url}/")
    status = page.evaluate(POST_WITH_CSRF, f"/analyses/{review.analysis.pk}/fixes/{fix.pk}/accept/")
    assert status == 404
    assert Fix.objects.get(pk=fix.pk).status == Fix.Status.PROPOSED


def test_a_submitter_without_a_role_reads_but_cannot_act(
    live_server: Any, page: Page, login: Callable[[Any], None], outsider: Any
) -> None:
    review = make_review(submitter=outsider)
    login(outsider)
    page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    expect(page.locator(".fix-card")).to_have_count(3)
    assert page.locator("[data-action=accept]").count() == 0
    assert page.get_by_role("button", name="Apply accepted fixes").count() == 0
    page.keyboard.press("j")
    page.keyboard.press("a")  # no button to press: nothing happens
    fix = review.fixes[0]
    status = page.evaluate(POST_WITH_CSRF, f"/analyses/{review.analysis.pk}/fixes/{fix.pk}/accept/")
    assert status == 403
    assert Fix.objects.get(pk=fix.pk).status == Fix.Status.PROPOSED


CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def test_the_review_page_works_under_the_content_security_policy(
    live_server: Any, page: Page, login: Callable[[Any], None], reviewer: Any, admin_user: Any
) -> None:
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.add_init_script(CSP_LISTENER)
    review = make_review()
    login(reviewer)

    response = page.goto(f"{live_server.url}/analyses/{review.analysis.pk}/")
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    for tab in ("Evidence", "Revisions", "Attempts", "Audit", "Report"):
        page.locator(".tabs a", has_text=tab).click()  # htmx swaps, under the policy
        expect(page.locator(".tabs a.is-active")).to_contain_text(tab)
    first = page.locator(".fix-card").first
    first.locator("[data-action=accept]").click()
    expect(first.locator(".fix-review")).to_have_attribute("data-status", "accepted")
    page.keyboard.press("?")  # review.js: the shortcut overlay
    expect(page.locator("#shortcut-help")).to_be_visible()
    violations = page.evaluate("window.__cspViolations")

    page.keyboard.press("Escape")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/")
    login(admin_user)
    page.goto(f"{live_server.url}/admin/validation/policy/1/change/")
    expect(page.locator("body")).to_contain_text("Fix confidence threshold")
    violations += page.evaluate("window.__cspViolations")

    assert violations == []
    assert not [text for text in console if "Content Security Policy" in text], console

    # The listener does see violations: an inline style is refused and reported.
    page.evaluate("""document.body.insertAdjacentHTML("beforeend", '<b style="color:red">x</b>')""")
    page.wait_for_function("window.__cspViolations.length > 0")
    assert page.evaluate("window.__cspViolations")[0].startswith("style-src")
