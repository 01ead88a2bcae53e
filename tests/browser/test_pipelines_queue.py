"""The queue's pipeline filter in Chromium: choosing a pipeline narrows the list through htmx
(and the address), the rows and the review screen name the pipeline. Screenshots in
REDLINE_SCREENSHOT_DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Analysis
from tests.validation.web.builders import make_review
from validation.services import pipeline_create

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def test_the_queue_filters_by_pipeline(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    thesis = pipeline_create(slug="thesis", name="Investment thesis")
    mine = make_review(title="NVO — owner earnings").analysis
    Analysis.objects.filter(pk=mine.pk).update(pipeline=thesis)
    make_review(title="AAPL — services margin", with_fixes=False)
    login(reviewer)
    rows = page.locator(".queue-table tbody tr")
    expect(rows).to_have_count(2)

    page.select_option("#queue-pipeline", "thesis")

    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("NVO — owner earnings")
    expect(rows.first).to_contain_text("Investment thesis")
    assert "pipeline=thesis" in page.url
    shoot("queue-pipeline-filter")

    page.select_option("#queue-pipeline", "")
    expect(rows).to_have_count(2)
    page.goto(f"{live_server.url}/analyses/{mine.pk}/")
    expect(page.locator(".badge--pipeline")).to_have_text("Investment thesis")
    shoot("review-pipeline-badge")
