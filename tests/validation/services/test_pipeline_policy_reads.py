"""The claim time, the bulk-accept threshold and the API rate come from the policy of the
analysis' (or the token's) pipeline: its own when it has one, else the default's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone

from analyses.models import Analysis, Pipeline
from tests.support.review_data import add_fix, analysis_in_review
from validation import review_read, services
from validation.models import ApiToken, Policy
from validation.services import pipeline_create, policy_set

pytestmark = pytest.mark.django_db

BODY_FIND = "152.4"


@pytest.fixture
def thesis() -> Pipeline:
    """A pipeline with its own policy: 90 claim minutes, threshold 0.5, 3 requests a minute."""
    pipeline = pipeline_create(slug="thesis")
    policy_set(
        pipeline=pipeline,
        assignments=["claim_minutes=90", "fix_confidence_threshold=0.5", "api_rate_per_minute=3"],
    )
    return pipeline


@pytest.fixture
def plain() -> Pipeline:
    """A pipeline without a policy of its own; the default's claim time is 20 minutes."""
    policy_set(pipeline=None, assignments=["claim_minutes=20", "fix_confidence_threshold=0.8"])
    return pipeline_create(slug="plain")


def _claim_minutes(analysis: Analysis) -> float:
    analysis.refresh_from_db()
    assert analysis.claimed_until is not None
    return (analysis.claimed_until - timezone.now()).total_seconds() / 60


def test_a_claim_lasts_the_claim_time_of_the_analysis_pipeline(
    thesis: Pipeline, plain: Pipeline, reviewer: User
) -> None:
    own = analysis_in_review(pipeline=thesis)
    default = analysis_in_review(pipeline=plain)

    services.analysis_claim(analysis=own, user=reviewer)
    services.analysis_claim(analysis=default, user=reviewer)

    assert 89 < _claim_minutes(own) <= 90
    assert 19 < _claim_minutes(default) <= 20


def test_claim_next_gives_each_analysis_its_pipeline_claim_time(
    thesis: Pipeline, plain: Pipeline, reviewer: User
) -> None:
    first = analysis_in_review(pipeline=thesis)
    second = analysis_in_review(pipeline=plain)

    assert services.analysis_claim_next(user=reviewer) == first
    assert services.analysis_claim_next(user=reviewer) == second

    assert 89 < _claim_minutes(first) <= 90
    assert 19 < _claim_minutes(second) <= 20


def test_a_fix_review_action_reads_the_pipeline_policy(
    thesis: Pipeline, plain: Pipeline, reviewer: User
) -> None:
    own = analysis_in_review(pipeline=thesis)
    default = analysis_in_review(pipeline=plain)
    # 0.6: a bulk candidate under thesis' 0.5, not under the default's 0.8.
    own_fix = add_fix(own, BODY_FIND, "150.0", confidence=0.6)
    default_fix = add_fix(default, BODY_FIND, "150.0", confidence=0.6)

    read_own = review_read.fix_under_review(fix_id=own_fix.pk, analysis_id=own.pk, lock=False)
    read_default = review_read.fix_under_review(
        fix_id=default_fix.pk, analysis_id=default.pk, lock=False
    )

    assert read_own is not None and read_default is not None
    assert read_own.policy.pk == Policy.objects.get(pipeline=thesis).pk
    assert (read_own.policy.fix_confidence_threshold, read_own.policy.claim_minutes) == (0.5, 90)
    assert read_own.counts.bulk_candidates == 1
    assert read_default.policy.pk == Policy.load().pk
    assert read_default.policy.fix_confidence_threshold == 0.8
    assert read_default.counts.bulk_candidates == 0

    services.fix_accept(fix=own_fix, user=reviewer)
    assert 89 < _claim_minutes(own) <= 90


def _token(user: User, pipeline: Pipeline) -> ApiToken:
    raw = services.api_token_create(user=user, scope="read", pipeline=pipeline)[1]
    token = services.api_token_authenticate(raw)
    assert token is not None
    return token


def test_the_api_rate_is_the_token_pipeline_policy(
    thesis: Pipeline, plain: Pipeline, reviewer: User
) -> None:
    cache.clear()
    policy_set(pipeline=None, assignments=["api_rate_per_minute=5"])
    own, default = _token(reviewer, thesis), _token(reviewer, plain)
    assert (own.policy_rate, default.policy_rate) == (3, 5)  # type: ignore[attr-defined]

    assert [services.api_token_throttle(token=own) > 0 for _ in range(4)] == [False] * 3 + [True]
    assert [services.api_token_throttle(token=default) > 0 for _ in range(6)] == (
        [False] * 5 + [True]
    )


def test_without_the_rate_read_with_the_token_the_throttle_asks_its_pipeline(
    thesis: Pipeline, reviewer: User
) -> None:
    cache.clear()
    token = ApiToken.objects.get(pk=_token(reviewer, thesis).pk)  # no policy_rate on it
    assert [services.api_token_throttle(token=token) > 0 for _ in range(4)] == [False] * 3 + [True]


def test_an_accept_refreshes_the_claim_by_the_pipeline_time_not_the_default(
    thesis: Pipeline, plain: Pipeline, reviewer: User
) -> None:
    """40 minutes left: less than half of thesis' 90 (refreshed to 90), more than half of the
    default's 20 (kept as it is)."""
    own, default = analysis_in_review(pipeline=thesis), analysis_in_review(pipeline=plain)
    until = timezone.now() + timedelta(minutes=40)
    for analysis in (own, default):
        Analysis.objects.filter(pk=analysis.pk).update(claimed_by=reviewer, claimed_until=until)
        services.fix_accept(fix=add_fix(analysis, BODY_FIND, "150.0"), user=reviewer)

    assert 89 < _claim_minutes(own) <= 90
    default.refresh_from_db()
    assert default.claimed_until == until
