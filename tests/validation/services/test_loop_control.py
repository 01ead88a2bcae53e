"""Loop control (docs/spec.md §7, Policy limits): where a done attempt
sends its analysis.

REVISE at most 2, RETRY at most 1, 3 in all by default. A loop is counted when it is used
(apply, new draft, new evidence), not when the validator asks for it. Past a limit the
analysis stays in review with the reason recorded (issue 11: a person has the last word).
A FAIL lands in review too (issue 28: no report ends without a person), unless the Policy's
fail_ends_analysis switch keeps the automatic Failed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from analyses.models import Analysis
from tests.support.review_data import analysis_in_review, verdict
from validation import services
from validation.models import Attempt, AuditEvent, Policy

pytestmark = pytest.mark.django_db


def _validate(
    decision: str,
    confidence: float,
    status: str = Analysis.Status.VALIDATING,
    **analysis_fields: Any,
) -> Analysis:
    analysis = analysis_in_review(
        status=status, attempt_status=Attempt.Status.QUEUED, **analysis_fields
    )
    attempt = Attempt.objects.get(analysis=analysis)
    Attempt.objects.filter(pk=attempt.pk).update(status="running", run_token="t")
    services.attempt_record_verdict(
        attempt_id=attempt.pk, run_token="t", verdict=verdict(decision, confidence)
    )
    analysis.refresh_from_db()
    return analysis


def _audit(analysis: Analysis) -> list[tuple[str, str]]:
    return [
        (event.action, event.comment)
        for event in AuditEvent.objects.filter(analysis=analysis).order_by("id")
    ]


def test_approve_waits_for_a_persons_sign_off() -> None:
    analysis = _validate("APPROVE", 0.9)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert (analysis.revise_loops, analysis.retry_loops, analysis.needs_new_input) == (0, 0, False)
    assert _audit(analysis) == [("validated", "")]
    assert AuditEvent.objects.get(action="validated").data["status"] == "in_review"


def test_approve_approves_at_once_when_the_policy_allows_validator_only_approval() -> None:
    Policy.objects.filter(pk=1).update(allow_validator_only_approval=True)

    analysis = _validate("APPROVE", 0.9)

    assert analysis.status == Analysis.Status.APPROVED
    assert [action for action, _ in _audit(analysis)] == ["validated", "approved"]


def test_revise_goes_to_review_and_uses_no_loop_until_fixes_are_applied() -> None:
    analysis = _validate("REVISE", 0.6)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert (analysis.revise_loops, analysis.retry_loops) == (0, 0)
    assert _audit(analysis) == [("validated", "")]


def test_revise_at_the_revise_limit_stays_in_review_with_the_reason() -> None:
    analysis = _validate("REVISE", 0.6, revise_loops=2)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert analysis.revise_loops == 2
    assert _audit(analysis)[-1] == (
        "loop_limit",
        "REVISE loop limit reached (2 of 2 used); the validator still asks for revision. "
        "No new revision can be made: sign off with a comment, or reject the analysis.",
    )


def test_revise_at_the_total_limit_stays_in_review_with_the_reason() -> None:
    Policy.objects.filter(pk=1).update(max_revise_loops=3, max_total_loops=3)

    analysis = _validate("REVISE", 0.6, revise_loops=2, retry_loops=1)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert _audit(analysis)[-1][0] == "loop_limit"
    assert _audit(analysis)[-1][1].startswith("Total loop limit reached (3 of 3 used)")


def test_retry_goes_to_review_asking_the_pipeline_for_new_input() -> None:
    analysis = _validate("RETRY", 0.4)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert analysis.needs_new_input is True
    assert (analysis.revise_loops, analysis.retry_loops) == (0, 0)


def test_retry_at_the_retry_limit_stays_in_review_without_asking_for_new_input() -> None:
    analysis = _validate("RETRY", 0.4, retry_loops=1)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert analysis.needs_new_input is False
    assert _audit(analysis)[-1] == (
        "loop_limit",
        "RETRY loop limit reached (1 of 1 used); the evidence or approach is still wrong. "
        "No new revision can be made: sign off with a comment, or reject the analysis.",
    )


def test_retry_within_its_own_limit_is_still_stopped_by_the_total_limit() -> None:
    within_total = _validate("RETRY", 0.4, revise_loops=2)
    Policy.objects.filter(pk=1).update(max_total_loops=2)
    past_total = _validate("RETRY", 0.4, revise_loops=2)

    assert within_total.needs_new_input is True
    assert "loop_limit" not in [action for action, _ in _audit(within_total)]
    assert past_total.status == Analysis.Status.IN_REVIEW
    assert _audit(past_total)[-1][1].startswith("Total loop limit reached (2 of 2 used)")


def test_fail_lands_in_review_with_its_failed_checks_explained() -> None:
    analysis = _validate("FAIL", 0.2)

    assert analysis.status == Analysis.Status.IN_REVIEW
    assert _audit(analysis) == [("validated", "")]
    attempt = Attempt.objects.get(analysis=analysis)
    assert Attempt.failed_checks(attempt.checks) == ["No hallucinations"]


def test_fail_fails_at_once_when_the_policy_says_so() -> None:
    Policy.objects.filter(pk=Policy.load().pk).update(fail_ends_analysis=True)

    analysis = _validate("FAIL", 0.2)

    assert analysis.status == Analysis.Status.FAILED
    assert _audit(analysis)[-1] == ("failed", "The validator decided FAIL (confidence 0.20).")


def test_the_policy_switch_is_off_by_default() -> None:
    assert Policy.load().fail_ends_analysis is False


def test_a_failed_analysis_is_released_from_its_claim(reviewer: User) -> None:
    Policy.objects.filter(pk=Policy.load().pk).update(fail_ends_analysis=True)
    until = timezone.now() + timedelta(minutes=5)
    analysis = _validate("FAIL", 0.2, claimed_by=reviewer, claimed_until=until)

    assert (analysis.claimed_by, analysis.claimed_until) == (None, None)


def test_an_analysis_rejected_while_validating_keeps_its_status() -> None:
    analysis = _validate("APPROVE", 0.9, status=Analysis.Status.REJECTED)

    assert analysis.status == Analysis.Status.REJECTED
    assert _audit(analysis) == [("validated", "")]
