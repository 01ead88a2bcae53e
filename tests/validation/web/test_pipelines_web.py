"""Pipelines on the pages: the queue and the dashboard filter by pipeline, the review screen
names the pipeline that sent the analysis."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from analyses.models import Analysis
from tests.validation.web.builders import make_review
from tests.validation.web.conftest import hx
from validation.services import pipeline_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_pipelines() -> tuple[Analysis, Analysis]:
    thesis = pipeline_create(slug="thesis", name="Investment thesis")
    theirs = make_review().analysis
    mine = make_review().analysis
    Analysis.objects.filter(pk=mine.pk).update(title="Thesis report", pipeline=thesis)
    Analysis.objects.filter(pk=theirs.pk).update(title="Default report")
    return Analysis.objects.get(pk=mine.pk), Analysis.objects.get(pk=theirs.pk)


def test_the_queue_filters_by_pipeline(
    client_for: Any, reviewer: Any, two_pipelines: tuple[Analysis, Analysis]
) -> None:
    client = client_for(reviewer)

    every = client.get(reverse("queue")).content.decode()
    only = client.get(reverse("queue"), {"pipeline": "thesis"}).content.decode()
    fragment = client.get(reverse("queue"), {"pipeline": "thesis"}, **hx("queue-results"))

    assert "Thesis report" in every and "Default report" in every
    assert "Thesis report" in only and "Default report" not in only
    assert '<option value="thesis" selected>Investment thesis</option>' in only
    assert "Default report" not in fragment.content.decode()
    unknown = client.get(reverse("queue"), {"pipeline": "nope"}).content.decode()
    assert "Nothing matches these filters." in unknown


def test_the_dashboard_counts_one_pipeline(
    client_for: Any, reviewer: Any, two_pipelines: tuple[Analysis, Analysis]
) -> None:
    client = client_for(reviewer)

    every = client.get(reverse("dashboard_data")).json()
    only = client.get(reverse("dashboard_data"), {"pipeline": "thesis"}).json()
    page = client.get(reverse("dashboard"), {"pipeline": "thesis"}).content.decode()

    assert len(every["oldest_waiting"]) == 2
    assert [row["title"] for row in only["oldest_waiting"]] == ["Thesis report"]
    assert "?pipeline=thesis" in page


def test_the_review_screen_names_the_pipeline(
    client_for: Any, reviewer: Any, two_pipelines: tuple[Analysis, Analysis]
) -> None:
    mine, _ = two_pipelines
    page = client_for(reviewer).get(reverse("analysis_review", args=[mine.pk])).content.decode()
    assert 'title="the pipeline that sent it">Investment thesis</span>' in page
