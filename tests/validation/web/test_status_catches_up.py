"""An open review page never stays behind the analysis' status.

The page reads the analysis and its attempts in separate queries; a worker that records its
verdict between the two leaves a page whose pill says "Validating" while the attempt it read
is done, so it polls at the slow, watching pace. Each poll names the status the page shows,
and a status that moved swaps the whole review region in (a real Celery worker and Chromium
ran into this: tests/browser/test_submit_wait.py)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from analyses.models import Analysis
from tests.validation.web.builders import Review
from tests.validation.web.conftest import HX

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client_for: Any, reviewer: Any) -> Client:
    reviewing: Client = client_for(reviewer)
    return reviewing


def status_poll(page: str) -> str:
    """The URL the page's status element polls."""
    found = re.search(r'<div id="validation-progress"[^>]* hx-get="([^"]+)"', page)
    assert found, "the page does not poll its status"
    return html.unescape(found.group(1))


def test_the_page_polls_with_the_status_it_shows(client: Client, review: Review) -> None:
    page = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()

    assert "status=in_review" in status_poll(page)
    quiet = client.get(status_poll(page), **HX)
    assert quiet.status_code == 200  # nothing moved: the cheap answer, polling goes on
    assert quiet.content.decode().lstrip().startswith('<div id="validation-progress"')


def test_a_page_read_while_the_worker_finished_catches_up(client: Client, review: Review) -> None:
    # The skewed read: the analysis still validating, its attempt already done.
    Analysis.objects.filter(pk=review.analysis.pk).update(status=Analysis.Status.VALIDATING)
    page = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()
    assert 'status--validating">Validating</span>' in page
    assert "status=validating" in status_poll(page) and "watch=1" in status_poll(page)
    # The worker's commit lands.
    Analysis.objects.filter(pk=review.analysis.pk).update(status=Analysis.Status.IN_REVIEW)

    caught_up = client.get(status_poll(page), **HX)

    assert caught_up["HX-Retarget"] == "#review-main"
    answer = caught_up.content.decode()
    assert 'status--review">In review</span>' in answer
    assert "Validation of revision 1 finished: REVISE" in answer
    assert "status=in_review" in status_poll(answer)


@pytest.mark.parametrize("named", ["", "reviewing", "<script>", "in_review"])
def test_a_poll_that_names_no_other_status_is_the_cheap_answer(
    client: Client, review: Review, named: str
) -> None:
    url = reverse("analysis_status", args=[review.analysis.pk])

    answer = client.get(url, {"revision": "1", "watch": "1", "status": named}, **HX)

    assert answer.status_code == 200
    assert "HX-Retarget" not in answer
    assert answer.content.decode().lstrip().startswith('<div id="validation-progress"')
