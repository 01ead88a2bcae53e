"""The dashboard in Chromium, with real data: TAT-QA bundles validated by the real engine,
fixes reviewed and reports signed off through the services. Screenshot: dashboard.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Analysis
from validation import services
from validation.models import Fix

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EVALDATA = Path(__file__).resolve().parents[3] / "shared" / "evaldata" / "tatqa-dev.jsonl"


def _bundles(count: int) -> list[dict[str, Any]]:
    bundles = []
    with EVALDATA.open(encoding="utf-8") as lines:
        for line in lines:
            bundle = json.loads(line)["bundle"]
            bundle["external_id"] = bundle.pop("id")
            bundles.append(bundle)
            if len(bundles) == count:
                break
    return bundles


@pytest.mark.skipif(not EVALDATA.exists(), reason="shared/evaldata is not beside the repo")
def test_dashboard_draws_real_data(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    shoot: Callable[[str], Path],
) -> None:
    errors: list[str] = []
    # The browser's own favicon request 404s; any other console error is the dashboard's.
    page.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and "Failed to load resource" not in msg.text
            else None
        ),
    )
    for bundle in _bundles(24):
        services.analysis_submit(data=bundle, submitter=None)  # validated at commit (eager)
    fixes = list(Fix.objects.filter(status=Fix.Status.PROPOSED).select_related("revision"))
    for number, fix in enumerate(fixes):
        if number % 3 == 2:
            services.fix_reject(fix=fix, user=reviewer, reason="The evidence says otherwise.")
        else:
            services.fix_accept(fix=fix, user=reviewer)
    for analysis in Analysis.objects.filter(status=Analysis.Status.IN_REVIEW):
        if not Fix.objects.filter(revision__analysis=analysis, status="accepted").exists():
            services.analysis_sign_off(analysis=analysis, user=reviewer, comment="Looks right.")

    login(reviewer)
    page.click("text=Dashboard")
    expect(page.locator("#dashboard[data-ready='1']")).to_be_visible()
    expect(page.locator("[data-chart='decisions'] svg rect").first).to_be_visible()
    expect(page.locator("[data-chart='confidence'] svg")).to_be_visible()
    assert page.locator("#kpi-approved").inner_text() != "…"
    # Card titles sit inside their border, not on it (issue 20).
    inset = page.evaluate(
        """() => [...document.querySelectorAll(".dash-chart")].map((card) => {
          const box = card.getBoundingClientRect();
          const title = card.querySelector("h2").getBoundingClientRect();
          return Math.min(title.left - box.left, title.top - box.top);
        })"""
    )
    assert len(inset) == 6 and min(inset) >= 8, inset
    shoot("dashboard")
    assert errors == []
