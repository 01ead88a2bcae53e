"""A policy per pipeline: an attempt runs under its analysis' pipeline's policy (or the
default), records which and the settings; `policy_set` validates like the admin form and a
bad value changes nothing."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from analyses.models import Pipeline
from redline_errors import InvalidInput
from tests.support.bundles import BUNDLE
from validation.models import Attempt, Policy
from validation.services import analysis_submit, pipeline_create, policy_of, policy_set

pytestmark = pytest.mark.django_db


def _uncited() -> dict[str, Any]:
    """A bundle whose numbers match the evidence but carry no source reference."""
    data = copy.deepcopy(BUNDLE)
    data["body"] = data["body"].replace(" [gurufocus]", "")
    return data


def test_two_pipelines_with_different_policies_judge_the_same_bundle_differently(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    thesis = pipeline_create(slug="thesis", name="Investment thesis")
    summaries = pipeline_create(slug="summaries", name="Summariser")
    policy_set(pipeline=thesis, assignments=["citations=claims"])
    policy_set(pipeline=summaries, assignments=["citations=none"])

    with django_capture_on_commit_callbacks(execute=True):
        strict = analysis_submit(data=_uncited(), submitter=None, pipeline=thesis).analysis
    with django_capture_on_commit_callbacks(execute=True):
        lenient = analysis_submit(data=_uncited(), submitter=None, pipeline=summaries).analysis

    strict_attempt = Attempt.objects.get(analysis=strict)
    lenient_attempt = Attempt.objects.get(analysis=lenient)
    assert strict_attempt.decision == "REVISE"
    assert strict_attempt.checks["source_metadata_present"] is False
    assert lenient_attempt.decision == "APPROVE"
    # Each records the policy that judged it and what it said then.
    assert strict_attempt.policy == Policy.objects.get(pipeline=thesis)
    assert strict_attempt.policy_settings["citations"] == "claims"
    assert lenient_attempt.policy_settings["citations"] == "none"


def test_a_pipeline_without_a_policy_is_judged_by_the_default(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    plain = pipeline_create(slug="plain")
    policy_set(pipeline=None, assignments=["citations=none"])

    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_submit(data=_uncited(), submitter=None, pipeline=plain).analysis

    attempt = Attempt.objects.get(analysis=analysis)
    assert attempt.decision == "APPROVE"
    assert attempt.policy_id == Policy.load().pk
    assert policy_of(plain).pk == Policy.load().pk


def test_the_settings_an_attempt_ran_with_stay_when_the_policy_changes_later(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    thesis = pipeline_create(slug="thesis")
    policy_set(pipeline=thesis, assignments=["approve_threshold=0.95"])
    with django_capture_on_commit_callbacks(execute=True):
        analysis = analysis_submit(data=_uncited(), submitter=None, pipeline=thesis).analysis

    policy_set(pipeline=thesis, assignments=["approve_threshold=0.99"])

    attempt = Attempt.objects.get(analysis=analysis)
    assert attempt.policy_settings["approve_threshold"] == 0.95


def test_a_pipelines_first_policy_starts_from_the_defaults_settings() -> None:
    policy_set(pipeline=None, assignments=["max_revise_loops=4", "max_total_loops=5"])
    thesis = pipeline_create(slug="thesis")

    own = policy_set(pipeline=thesis, assignments=["retry_enabled=false"])

    assert own.pipeline == thesis and own.pk != Policy.load().pk
    assert (own.max_revise_loops, own.max_total_loops, own.retry_enabled) == (4, 5, False)
    assert Policy.load().retry_enabled is True


@pytest.mark.parametrize(
    ("assignment", "says"),
    [
        ("approve_threshold=1.5", "approve_threshold"),
        ("approve_threshold=lots", "approve_threshold"),
        ("approve_threshold=nan", "approve_threshold"),
        ("revise_threshold=0.99", "must not be below"),
        ("max_total_loops=1", "total loop limit"),
        ("citations=always", "citations"),
        ("retry_enabled=maybe", "true or false"),
        ("llm_base_url=http://169.254.169.254/v1", "llm_base_url"),
        ("no_such_field=1", "not a policy field"),
        ("approve_threshold", "FIELD=VALUE"),
    ],
)
def test_a_bad_value_changes_nothing_and_says_why(assignment: str, says: str) -> None:
    thesis = pipeline_create(slug="thesis")
    before = Policy.load().settings_snapshot()

    with pytest.raises(InvalidInput) as refused:
        policy_set(pipeline=thesis, assignments=["claim_minutes=45", assignment])
    with pytest.raises(InvalidInput):
        policy_set(pipeline=None, assignments=["claim_minutes=45", assignment])

    assert says in str(refused.value)
    assert not Policy.objects.filter(pipeline=thesis).exists()
    assert Policy.load().settings_snapshot() == before


def test_a_pipelines_slug_is_checked_and_never_taken_twice() -> None:
    pipeline_create(slug="thesis")
    for slug in ("thesis", "Has Spaces", "-dash", "x" * 51, ""):
        with pytest.raises(InvalidInput):
            pipeline_create(slug=slug)
    assert Pipeline.objects.filter(slug="thesis").count() == 1
