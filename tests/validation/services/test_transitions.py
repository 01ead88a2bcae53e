"""Status transitions a person or the pipeline makes: sign-off, reject, a new draft, new
evidence, re-validation. Each refuses an illegal move with a sentence and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis, Evidence, Revision
from redline_errors import DomainError, IllegalTransition, ReasonRequired
from tests.support.review_data import BODY, add_fix, analysis_in_review
from validation import services
from validation.engine.types import EvidenceItem
from validation.models import Attempt, AuditEvent, Fix

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------- sign-off


def test_sign_off_approves_an_analysis_in_review_and_releases_the_claim(reviewer: User) -> None:
    analysis = analysis_in_review(decision="APPROVE")

    approved = services.analysis_sign_off(analysis=analysis, user=reviewer, comment="Checked.")

    assert approved.status == Analysis.Status.APPROVED
    assert (approved.claimed_by, approved.claimed_until) == (None, None)
    event = AuditEvent.objects.get(action="approved")
    assert (event.actor, event.comment, event.data["decision"]) == (reviewer, "Checked.", "APPROVE")


@pytest.mark.parametrize(
    "status", [Analysis.Status.VALIDATING, Analysis.Status.APPROVED, Analysis.Status.REJECTED]
)
def test_only_an_analysis_in_review_can_be_signed_off(reviewer: User, status: Any) -> None:
    analysis = analysis_in_review(status=status)

    with pytest.raises(IllegalTransition) as error:
        services.analysis_sign_off(analysis=analysis, user=reviewer)

    word = {"validating": "validating", "approved": "approved", "rejected": "rejected"}[status]
    assert str(error.value) == (
        f"Only an analysis in review can be signed off (this one is {word})."
    )
    analysis.refresh_from_db()
    assert analysis.status == status


def test_sign_off_needs_the_latest_validation_to_be_done(reviewer: User) -> None:
    analysis = analysis_in_review(attempt_status=Attempt.Status.ERRORED)

    with pytest.raises(IllegalTransition, match=r"latest validation is done.*attempt 1 is errored"):
        services.analysis_sign_off(analysis=analysis, user=reviewer)


def test_sign_off_is_refused_while_accepted_fixes_are_not_applied(reviewer: User) -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)

    with pytest.raises(IllegalTransition, match="1 accepted fix is not applied yet"):
        services.analysis_sign_off(analysis=analysis, user=reviewer)
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW


# ---------------------------------------------------------------- reject


def test_rejecting_an_analysis_needs_a_comment(reviewer: User) -> None:
    analysis = analysis_in_review()

    with pytest.raises(ReasonRequired, match=r"Say why the analysis is rejected\."):
        services.analysis_reject(analysis=analysis, user=reviewer, comment=" ")
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW


@pytest.mark.parametrize("status", [Analysis.Status.VALIDATING, Analysis.Status.IN_REVIEW])
def test_an_open_analysis_can_be_rejected(reviewer: User, status: Any) -> None:
    analysis = analysis_in_review(status=status)

    rejected = services.analysis_reject(analysis=analysis, user=reviewer, comment="Wrong company.")

    assert rejected.status == Analysis.Status.REJECTED
    assert AuditEvent.objects.get(action="rejected").comment == "Wrong company."


def test_a_closed_analysis_cannot_be_rejected(reviewer: User) -> None:
    analysis = analysis_in_review(status=Analysis.Status.APPROVED)

    with pytest.raises(IllegalTransition, match=r"\(this one is approved\)"):
        services.analysis_reject(analysis=analysis, user=reviewer, comment="Too late.")


# ---------------------------------------------------------------- new draft


def test_a_new_draft_becomes_the_next_revision_and_is_validated_as_a_retry_loop(
    django_capture_on_commit_callbacks: Any,
) -> None:
    analysis = analysis_in_review(decision="RETRY", needs_new_input=True)
    open_fix = add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)
    body = BODY.replace("$15.8B", "$14.8B").replace("WATCH", "BUY")

    with django_capture_on_commit_callbacks() as callbacks:
        revision = services.analysis_submit_draft(analysis=analysis, user=None, body=body)

    assert (revision.number, revision.reason, revision.body) == (2, "new_draft", body)
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.VALIDATING
    assert analysis.needs_new_input is False
    assert analysis.retry_loops == 1  # issue 11: counted when used (the new draft), not decided
    assert analysis.decision == "BUY"
    attempt = Attempt.objects.get(revision=revision)
    assert (attempt.status, attempt.loop_kind) == ("queued", "retry")
    assert len(callbacks) == 1
    open_fix.refresh_from_db()
    assert open_fix.status == Fix.Status.STALE
    assert AuditEvent.objects.get(action="new_draft").revision == revision


def test_a_draft_identical_to_the_current_revision_is_refused() -> None:
    analysis = analysis_in_review()

    with pytest.raises(DomainError, match="same as revision 1"):
        services.analysis_submit_draft(analysis=analysis, user=None, body=BODY)
    assert Revision.objects.filter(analysis=analysis).count() == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [("  \n", "must not be blank"), ("a\x00b", "NUL"), ("x" * 300_000, "byte limit")],
)
def test_a_bad_draft_is_refused_and_changes_nothing(body: Any, message: Any) -> None:
    analysis = analysis_in_review()

    with pytest.raises(DomainError, match=message):
        services.analysis_submit_draft(analysis=analysis, user=None, body=body)
    assert Revision.objects.filter(analysis=analysis).count() == 1


def test_a_draft_is_refused_while_the_analysis_is_validating() -> None:
    analysis = analysis_in_review(status=Analysis.Status.VALIDATING)

    with pytest.raises(IllegalTransition, match="can take a new draft"):
        services.analysis_submit_draft(analysis=analysis, user=None, body=BODY + "More.\n")


# ---------------------------------------------------------------- new evidence


def test_new_evidence_replaces_by_source_ref_adds_the_rest_and_revalidates_the_same_body(
    django_capture_on_commit_callbacks: Any,
) -> None:
    analysis = analysis_in_review(needs_new_input=True)
    items = [
        EvidenceItem(source_ref="gurufocus", kind="tool_output", content={"revenue": 10.5}),
        EvidenceItem(
            source_ref="10-K", kind="source", url="https://example.com/10k", content="Revenue 10.5B"
        ),
    ]

    with django_capture_on_commit_callbacks() as callbacks:
        revision = services.analysis_submit_evidence(analysis=analysis, user=None, evidence=items)

    assert (revision.number, revision.reason, revision.body) == (2, "new_evidence", BODY)
    evidence = {item.source_ref: item for item in Evidence.objects.filter(analysis=analysis)}
    assert evidence["gurufocus"].content == {"revenue": 10.5}
    assert (evidence["10-K"].content, evidence["10-K"].url) == (
        "Revenue 10.5B",
        "https://example.com/10k",
    )
    assert Attempt.objects.get(revision=revision).loop_kind == "retry"
    assert len(callbacks) == 1
    event = AuditEvent.objects.get(action="new_evidence")
    assert event.data == {"added": ["10-K"], "replaced": ["gurufocus"]}


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([], "at least one evidence item"),
        (
            [EvidenceItem(source_ref="a", content="x"), EvidenceItem(source_ref="a", content="y")],
            "'a' is used more than once",
        ),
        # The model refuses these at construction; the service checks again for items
        # built without validation.
        ([EvidenceItem.model_construct(source_ref="a", content="x", url="bad")], "not a valid URL"),
        ([EvidenceItem.model_construct(source_ref="a", content="  ")], "must not be empty"),
    ],
)
def test_bad_evidence_is_refused_and_changes_nothing(items: Any, message: Any) -> None:
    analysis = analysis_in_review()

    with pytest.raises(DomainError, match=message):
        services.analysis_submit_evidence(analysis=analysis, user=None, evidence=items)
    assert Revision.objects.filter(analysis=analysis).count() == 1
    assert Evidence.objects.filter(analysis=analysis).count() == 1


# ---------------------------------------------------------------- re-validate


def test_an_errored_attempt_can_be_re_run(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review(attempt_status=Attempt.Status.ERRORED)
    Attempt.objects.filter(analysis=analysis).update(error="Validation failed: boom", runs=2)

    with django_capture_on_commit_callbacks() as callbacks:
        attempt = services.analysis_revalidate(analysis=analysis, user=reviewer)

    assert (attempt.status, attempt.error, attempt.runs) == ("queued", "", 0)
    assert attempt.lease_expires_at is not None
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.VALIDATING
    assert len(callbacks) == 1
    event = AuditEvent.objects.get(action="validated")
    assert event.data["previous_error"] == "Validation failed: boom"


def test_only_an_errored_attempt_can_be_re_run(reviewer: User) -> None:
    analysis = analysis_in_review()

    with pytest.raises(
        IllegalTransition,
        match=r"Only an errored attempt, or one whose LLM path errored, can be re-run \(attempt 1",
    ):
        services.analysis_revalidate(analysis=analysis, user=reviewer)
