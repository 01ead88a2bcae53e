"""The invariants of Policy, Attempt, Finding and Fix live in the database; Policy.clean()
explains a bad policy before the database has to refuse it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from tests.factories import AttemptFactory, FindingFactory, FixFactory, RevisionFactory
from validation.engine.types import Citations, FailingSeverity
from validation.models import Attempt, Policy

pytestmark = pytest.mark.django_db


def _rejected(create: Callable[[], object]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


# ---------------------------------------------------------------- Policy at the database


def test_the_policy_row_exists_after_migrating() -> None:
    assert Policy.objects.get().pk == 1
    assert Policy.load().approve_threshold == 0.80


def test_there_is_only_one_policy_row() -> None:
    # save() forces pk=1, so only a bulk insert can try a second row.
    _rejected(lambda: Policy.objects.bulk_create([Policy(id=2)]))


def test_saving_a_new_policy_object_overwrites_the_one_row() -> None:
    Policy(approve_threshold=0.9).save()

    assert Policy.objects.count() == 1
    assert Policy.load().approve_threshold == 0.9


@pytest.mark.parametrize(
    "change",
    [
        {"approve_threshold": 0.4},  # below revise (0.5)
        {"revise_threshold": 0.2},  # below retry (0.3)
        {"approve_threshold": 1.5},
        {"retry_threshold": -0.1},
    ],
)
def test_thresholds_must_be_ordered_within_0_and_1(change: Any) -> None:
    _rejected(lambda: Policy.objects.filter(pk=1).update(**change))


def test_the_total_loop_limit_covers_the_revise_and_retry_limits() -> None:
    _rejected(lambda: Policy.objects.filter(pk=1).update(max_total_loops=1))


def test_citations_and_failing_severity_default_to_the_spec_rules() -> None:
    policy = Policy.load()

    assert (policy.citations, policy.failing_severity) == ("claims", "major")


@pytest.mark.parametrize("change", [{"citations": "some"}, {"failing_severity": "info"}])
def test_citations_and_failing_severity_take_only_the_engine_values(change: Any) -> None:
    _rejected(lambda: Policy.objects.filter(pk=1).update(**change))


def test_the_policy_choices_are_the_engine_settings_values() -> None:
    citations = [value for value, _ in Policy._meta.get_field("citations").choices or ()]
    severities = [value for value, _ in Policy._meta.get_field("failing_severity").choices or ()]
    assert tuple(citations) == get_args(Citations)
    assert tuple(severities) == get_args(FailingSeverity)


# ---------------------------------------------------------------- Policy.clean


def _clean_errors(**values: object) -> dict[str, list[str]]:
    policy = Policy.load()
    for name, value in values.items():
        setattr(policy, name, value)
    with pytest.raises(ValidationError) as caught:
        policy.full_clean()
    return caught.value.message_dict


@pytest.mark.parametrize(
    "name",
    [
        "approve_threshold",
        "revise_threshold",
        "retry_threshold",
        "relative_tolerance",
        "fix_confidence_threshold",
    ],
)
def test_a_threshold_outside_0_and_1_is_explained(name: Any) -> None:
    errors = _clean_errors(**{name: 1.5})

    assert "Must be between 0 and 1 (got 1.5)." in errors[name]


def test_a_revise_threshold_above_approve_is_explained() -> None:
    errors = _clean_errors(revise_threshold=0.6, approve_threshold=0.5)

    assert errors["approve_threshold"] == [
        "The APPROVE threshold (0.5) must not be below the REVISE threshold (0.6)."
    ]


def test_a_retry_threshold_above_revise_is_explained() -> None:
    errors = _clean_errors(retry_threshold=0.55)

    assert errors["revise_threshold"] == [
        "The REVISE threshold (0.5) must not be below the RETRY threshold (0.55)."
    ]


def test_a_total_loop_limit_below_the_revise_limit_is_explained() -> None:
    errors = _clean_errors(max_revise_loops=4, max_total_loops=3)

    assert errors["max_total_loops"] == [
        "The total loop limit must be at least the larger of the REVISE and RETRY limits."
    ]


def test_the_default_policy_is_valid() -> None:
    Policy.load().full_clean()


# ---------------------------------------------------------------- Attempt


def test_a_revision_has_at_most_one_attempt() -> None:
    attempt = AttemptFactory.create()

    _rejected(
        lambda: Attempt.objects.create(
            analysis=attempt.analysis, revision=attempt.revision, number=2
        )
    )


def test_attempt_numbers_are_unique_within_an_analysis() -> None:
    attempt = AttemptFactory.create()
    second_revision = RevisionFactory.create(analysis=attempt.analysis, number=2)

    _rejected(
        lambda: Attempt.objects.create(
            analysis=attempt.analysis, revision=second_revision, number=attempt.number
        )
    )


@pytest.mark.parametrize("confidence", [-0.01, 1.01])
def test_an_attempt_confidence_lies_between_0_and_1(confidence: Any) -> None:
    _rejected(lambda: AttemptFactory.create(confidence=confidence))


@pytest.mark.parametrize("confidence", [0.0, 1.0, None])
def test_an_attempt_confidence_may_be_0_1_or_unknown(confidence: Any) -> None:
    assert AttemptFactory.create(confidence=confidence).confidence == confidence


def test_a_done_attempt_has_a_decision() -> None:
    _rejected(lambda: AttemptFactory.create(status=Attempt.Status.DONE, decision=""))


# ---------------------------------------------------------------- Finding and Fix


def test_a_finding_span_does_not_end_before_it_starts() -> None:
    _rejected(lambda: FindingFactory.create(start=10, end=9))


def test_an_empty_finding_span_is_allowed() -> None:
    assert FindingFactory.create(start=10, end=10).end == 10


@pytest.mark.parametrize("confidence", [-0.1, 1.1])
def test_a_fix_confidence_lies_between_0_and_1(confidence: Any) -> None:
    _rejected(lambda: FixFactory.create(confidence=confidence))


def test_a_fix_must_find_something() -> None:
    _rejected(lambda: FixFactory.create(find=""))


def test_an_applied_fix_names_the_revision_it_was_applied_in() -> None:
    _rejected(lambda: FixFactory.create(status="applied", applied_in=None))


def test_an_applied_fix_with_its_revision_is_fine() -> None:
    fix = FixFactory.create()
    applied_in = RevisionFactory.create(analysis=fix.revision.analysis, number=2)

    fix.status, fix.applied_in = "applied", applied_in
    fix.save()

    assert fix.applied_in == applied_in
