"""The review screen follows the policy of the analysis' pipeline (its own, else the
default's): the bulk-accept threshold shown and used when the form sends none, the claim an
accept takes, and the Policy page for a pipeline. No query more than before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from analyses.models import Analysis, Pipeline
from tests.support.review_data import add_fix, analysis_in_review
from tests.validation.web.conftest import HX
from validation.models import Fix
from validation.services import pipeline_create, policy_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def thesis() -> Pipeline:
    pipeline = pipeline_create(slug="thesis", name="Investment thesis")
    policy_set(pipeline=pipeline, assignments=["claim_minutes=90", "fix_confidence_threshold=0.5"])
    return pipeline


@pytest.fixture
def plain() -> Pipeline:
    policy_set(pipeline=None, assignments=["claim_minutes=20", "fix_confidence_threshold=0.8"])
    return pipeline_create(slug="plain", name="Plain")


def _with_a_fix_at(pipeline: Pipeline, confidence: float) -> tuple[Analysis, Fix]:
    analysis = analysis_in_review(pipeline=pipeline)
    return analysis, add_fix(analysis, "152.4", "150.0", confidence=confidence)


@pytest.mark.parametrize(
    ("which", "threshold", "candidates"), [("thesis", "0.50", 1), ("plain", "0.80", 0)]
)
def test_the_review_page_shows_the_pipeline_threshold_and_its_candidates(
    request: pytest.FixtureRequest,
    client_for: Callable[..., Client],
    reviewer: User,
    which: str,
    threshold: str,
    candidates: int,
) -> None:
    analysis, _ = _with_a_fix_at(request.getfixturevalue(which), 0.6)
    html = client_for(reviewer).get(reverse("analysis_review", args=[analysis.pk])).content.decode()
    field = html.split('id="bulk-threshold"', 1)[1].split(">", 1)[0]
    assert 'name="min_confidence"' in field and f'value="{threshold}"' in field
    assert f"Accept <span data-bulk-count>{candidates}</span>" in html


@pytest.mark.parametrize(("which", "status"), [("thesis", "accepted"), ("plain", "proposed")])
def test_bulk_accept_without_a_threshold_uses_the_pipeline_one(
    request: pytest.FixtureRequest,
    client_for: Callable[..., Client],
    reviewer: User,
    which: str,
    status: str,
) -> None:
    analysis, fix = _with_a_fix_at(request.getfixturevalue(which), 0.6)
    response = client_for(reviewer).post(
        reverse("fixes_bulk_accept", args=[analysis.pk]), {"min_confidence": ""}, follow=True
    )
    assert response.status_code == 200
    fix.refresh_from_db()
    assert fix.status == status
    analysis.refresh_from_db()
    assert analysis.claimed_until is not None
    minutes = (analysis.claimed_until - timezone.now()).total_seconds() / 60
    assert (89 < minutes <= 90) if which == "thesis" else (19 < minutes <= 20)


@pytest.mark.parametrize(("which", "left"), [("thesis", "90 min left"), ("plain", "20 min left")])
def test_an_accept_claims_for_the_pipeline_claim_time_within_six_queries(
    request: pytest.FixtureRequest,
    client_for: Callable[..., Client],
    reviewer: User,
    django_assert_max_num_queries: Any,
    which: str,
    left: str,
) -> None:
    analysis, fix = _with_a_fix_at(request.getfixturevalue(which), 0.95)
    client = client_for(reviewer)
    client.get(reverse("analysis_review", args=[analysis.pk]))
    Analysis.objects.filter(pk=analysis.pk).update(
        claimed_by=reviewer, claimed_until=timezone.now()
    )
    client.post(reverse("fix_accept", args=[analysis.pk, fix.pk]), **HX)  # claims (expired)
    client.post(reverse("fix_undo", args=[analysis.pk, fix.pk]), **HX)
    with django_assert_max_num_queries(6):
        response = client.post(reverse("fix_accept", args=[analysis.pk, fix.pk]), **HX)
    assert response.status_code == 200
    assert f"claimed by you · {left}" in response.content.decode()


def test_the_policy_page_shows_a_pipeline_policy_or_says_the_default_judges_it(
    client_for: Callable[..., Client], reviewer: User, thesis: Pipeline, plain: Pipeline
) -> None:
    client = client_for(reviewer)
    own = client.get(reverse("policy"), {"pipeline": "thesis"}).content.decode()
    assert "Validation policy of Investment thesis" in own
    assert "no policy of its own" not in own
    assert '<td class="mono">90</td>' in own
    default = client.get(reverse("policy"), {"pipeline": "plain"}).content.decode()
    assert "Plain has no policy of its own: the default policy judges it." in default
    assert '<td class="mono">20</td>' in default
    assert client.get(reverse("policy"), {"pipeline": "nope"}).status_code == 404
