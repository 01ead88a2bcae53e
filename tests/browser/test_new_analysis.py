"""The "New analysis" page in Chromium: a reviewer picks a pipeline, pastes a report, adds
evidence as typed JSON and as an uploaded file; a bad JSON field shows its error in place and
writes nothing; once fixed, the analysis opens on its review page, validating, then in review
when the real worker is done. No Content-Security-Policy violation on the way. Screenshots of
the page and of the JSON error go to REDLINE_SCREENSHOT_DIR."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Analysis, Evidence, Pipeline

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 120_000  # a worker starting and validating on a loaded 2-core machine
CSP_LISTENER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
BODY = (
    "# NVO quick screen\n\n"
    "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B [gurufocus].\n\n"
    "**FINAL DECISION: WATCH**\n**FINAL CONVICTION: MODERATE**\n"
)


def test_a_reviewer_submits_a_report_with_evidence_and_lands_on_its_review(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    shoot: Callable[[str], Path],
    tmp_path: Path,
    dialogs: list[str],
) -> None:
    thesis = Pipeline.objects.create(slug="thesis", name="Thesis agent")
    page.add_init_script(CSP_LISTENER)
    login(reviewer)
    page.get_by_role("link", name="New analysis").click()
    page.wait_for_url(f"{live_server.url}/analyses/new/")
    expect(page.get_by_role("heading", name="New analysis")).to_be_visible()
    shoot("new-analysis-page")

    page.select_option("#id_pipeline", label="Thesis agent (thesis)")
    page.fill("#id_title", "NVO quick screen")
    page.fill("#id_query", "Is Novo Nordisk (NVO) a buy? Show owner earnings.")
    page.fill("#id_body", BODY)
    page.fill("#id_fields_json", '{"intrinsic_value": 152.4}')
    page.fill("#id_evidence-0-source_ref", "gurufocus")
    page.fill("#id_evidence-0-kind", "tool_output")
    page.check("#id_evidence-0-format_1")  # JSON
    page.fill("#id_evidence-0-content", '{"operating_cash_flow": 15500000000, "capex": 700000000,}')
    filing = tmp_path / "annual-report.txt"
    filing.write_text("Operating cash flow was 15.5 billion USD in 2024.", encoding="utf-8")
    page.set_input_files("#id_evidence-1-file", str(filing))
    page.evaluate("window.__marker = 'form'")

    page.get_by_role("button", name="Submit for validation").click()
    row = page.locator("#evidence-row-0")
    expect(row.locator(".field-error")).to_contain_text(
        "Not valid JSON: Expecting property name enclosed in double quotes"
    )
    expect(page.locator(".form-errors")).to_contain_text("Nothing was submitted")
    assert page.evaluate("window.__marker") == "form"  # swapped in place by htmx
    expect(page.locator("#id_title")).to_have_value("NVO quick screen")  # nothing retyped
    expect(page.locator("#id_pipeline")).to_have_value(str(thesis.pk))
    assert Analysis.objects.count() == 0
    shoot("new-analysis-json-error")

    page.fill("#id_evidence-0-content", '{"operating_cash_flow": 15500000000, "capex": 700000000}')
    page.set_input_files("#id_evidence-1-file", str(filing))  # a browser never refills a file
    page.get_by_role("button", name="Submit for validation").click()
    page.wait_for_url(re.compile(r".*/analyses/[0-9]+/$"))
    analysis = Analysis.objects.get()
    assert page.url == f"{live_server.url}/analyses/{analysis.pk}/"
    expect(page.locator("#flash")).to_contain_text("submitted: validation is under way")
    expect(page.locator(".review-head .status-pill")).to_have_text("Validating")
    refs = sorted(Evidence.objects.filter(analysis=analysis).values_list("source_ref", flat=True))
    assert refs == ["annual-report.txt", "gurufocus"]

    start_worker()
    expect(page.locator(".review-head .status-pill")).to_have_text("In review", timeout=WAIT_MS)
    assert (analysis.submitter, analysis.pipeline) == (reviewer, thesis)
    shoot("new-analysis-submitted-in-review")
    assert page.evaluate("window.__csp") == []
    assert dialogs == []


def test_add_a_row_keeps_the_typed_report(
    live_server: Any, page: Page, login: Callable[[Any], None], reviewer: Any
) -> None:
    page.add_init_script(CSP_LISTENER)
    login(reviewer)
    page.goto(f"{live_server.url}/analyses/new/")
    expect(page.locator(".evidence-row")).to_have_count(2)
    page.fill("#id_query", "Is NVO a buy?")
    page.fill("#id_evidence-1-source_ref", "second")

    page.get_by_role("button", name="Add an evidence row").click()

    expect(page.locator(".evidence-row")).to_have_count(3)
    expect(page.locator("#id_query")).to_have_value("Is NVO a buy?")
    expect(page.locator("#id_evidence-1-source_ref")).to_have_value("second")
    expect(page.locator(".field-error")).to_have_count(0)
    assert Analysis.objects.count() == 0
    assert page.evaluate("window.__csp") == []
