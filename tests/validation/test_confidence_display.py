"""One confidence formatter everywhere (issue 20): two decimals, rounded down, so 0.499 --
a RETRY under the 0.50 REVISE threshold -- reads 0.49 on the review page, in the queue, in
the §7 record and in the Markdown export, and never as an approval-looking 0.50."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.review_data import analysis_in_review, verdict
from validation.api.exports import analysis_export, export_markdown
from validation.engine.report import format_confidence, render_attempt_markdown
from validation.models import Attempt
from validation.services import analysis_sign_off

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.499, "0.49"), (0.5, "0.50"), (0.7999, "0.79"), (0.8, "0.80"), (1.0, "1.00"), (0, "0.00")],
)
def test_a_confidence_shows_two_decimals_rounded_down(value: float, shown: str) -> None:
    assert format_confidence(value) == shown


def test_0_499_reads_0_49_on_the_page_in_the_record_and_in_the_export(
    client: Client, reviewer: Any
) -> None:
    analysis = analysis_in_review(decision="RETRY")
    attempt = Attempt.objects.get(analysis=analysis)
    attempt.confidence = 0.499
    attempt.markdown = render_attempt_markdown(verdict("RETRY", 0.499), attempt.number)
    attempt.save(update_fields=["confidence", "markdown"])
    assert "**Confidence:** 0.49" in attempt.markdown

    client.force_login(reviewer)
    url = reverse("analysis_review", args=[analysis.pk])
    assert "RETRY · 0.49" in client.get(url).content.decode()
    record = client.get(url + "?tab=attempts").content.decode()
    assert "<strong>Confidence:</strong> 0.49" in record
    assert "RETRY · 0.49" in client.get(reverse("queue")).content.decode()

    analysis_sign_off(analysis=analysis, user=reviewer, comment="The evidence was updated.")
    exported = export_markdown(analysis_export(analysis))
    assert "- **Confidence:** 0.49" in exported
    assert "0.50" not in exported
