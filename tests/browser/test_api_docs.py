"""/api/v1/docs renders the schema in Chromium (issue 19: two "200" keys in the responses of
the exports made the schema unparseable, and the page showed an error instead of the API)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPERATIONS = [
    ("POST", "/api/v1/analyses"),
    ("GET", "/api/v1/analyses"),
    ("GET", "/api/v1/analyses/{analysis_id}"),
    ("POST", "/api/v1/analyses/{analysis_id}/evidence"),
    ("POST", "/api/v1/analyses/{analysis_id}/drafts"),
    ("GET", "/api/v1/analyses/{analysis_id}/export"),
    ("GET", "/api/v1/exports/approved"),
]


def test_the_api_docs_list_every_operation(
    live_server: Any, page: Page, shoot: Callable[[str], Path]
) -> None:
    page.goto(f"{live_server.url}/api/v1/docs")

    summaries = page.locator(".opblock-summary")
    expect(summaries).to_have_count(len(OPERATIONS), timeout=15_000)
    shown = [
        (
            block.locator(".opblock-summary-method").inner_text().strip(),
            block.locator(".opblock-summary-path").inner_text().strip().replace("\u200b", ""),
        )
        for block in summaries.all()
    ]
    assert sorted(shown) == sorted(OPERATIONS)
    assert page.locator(".errors-wrapper").count() == 0
    shoot("api-docs")

    # The export documents both of its answers: JSON and Markdown.
    export = page.locator(".opblock", has_text="/api/v1/analyses/{analysis_id}/export")
    export.locator(".opblock-summary").click()
    responses = export.locator(".responses-table").first
    expect(responses).to_contain_text("503")
    media = export.locator("select[aria-label='Media Type']").first
    expect(media.locator("option")).to_have_text(["application/json", "text/markdown"])
