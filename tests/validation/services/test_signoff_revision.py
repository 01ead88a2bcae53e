"""A sign-off names its revision (issue 27, point 2): a reviewer who read revision 1 cannot
approve or reject revision 2, which a pipeline posted meanwhile. The refusal says the report
changed; the revision they did read is approved, and nothing carries over. (Rejected fixes
still carry over to a new revision: tests/validation/services/test_record_verdict.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis, Revision
from redline_errors import IllegalTransition, RevisionChanged, http_status
from tests.support.review_data import BODY, analysis_in_review
from validation import services
from validation.models import Attempt, AuditEvent

pytestmark = pytest.mark.django_db

AVOID = BODY.replace("WATCH", "AVOID")
STRONG_BUY = BODY.replace("WATCH", "STRONG BUY") + "\nAllocate 40 % of the fund.\n"


def _new_draft_validated(analysis: Analysis, capture: Any) -> Revision:
    """The pipeline's new draft, validated by the real engine (the eager task on commit)."""
    with capture(execute=True):
        revision = services.analysis_submit_draft(analysis=analysis, user=None, body=STRONG_BUY)
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW
    assert Attempt.objects.get(revision=revision).status == Attempt.Status.DONE
    return revision


def test_a_sign_off_for_the_revision_read_is_refused_once_a_new_draft_is_current(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review(body=AVOID, decision="APPROVE")
    services.analysis_claim(analysis=analysis, user=reviewer)
    _new_draft_validated(analysis, django_capture_on_commit_callbacks)

    with pytest.raises(RevisionChanged) as refused:
        services.analysis_sign_off(
            analysis=analysis, user=reviewer, comment="Looks right.", override=True, revision=1
        )

    assert str(refused.value) == (
        "The report changed: you read revision 1, and revision 2 is current now (a new draft "
        "arrived). Nothing was signed off; read revision 2 first."
    )
    assert http_status(refused.value) == 409
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW
    assert not AuditEvent.objects.filter(analysis=analysis, action="approved").exists()


def test_a_reject_for_a_revision_no_longer_current_is_refused(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review(body=AVOID)
    _new_draft_validated(analysis, django_capture_on_commit_callbacks)

    with pytest.raises(RevisionChanged, match="Nothing was rejected; read revision 2 first"):
        services.analysis_reject(analysis=analysis, user=reviewer, comment="No.", revision=1)

    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW


def test_the_revision_read_is_the_one_approved_and_audited(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review(body=AVOID)
    revision = _new_draft_validated(analysis, django_capture_on_commit_callbacks)

    services.analysis_sign_off(
        analysis=analysis, user=reviewer, comment="Read revision 2.", override=True, revision=2
    )

    event = AuditEvent.objects.get(analysis=analysis, action="approved")
    assert event.revision_id == revision.pk


def test_a_sign_off_does_not_carry_over_to_a_later_revision(reviewer: User) -> None:
    analysis = analysis_in_review(decision="APPROVE")
    services.analysis_sign_off(analysis=analysis, user=reviewer, revision=1)

    with pytest.raises(IllegalTransition):
        services.analysis_submit_draft(analysis=analysis, user=None, body=STRONG_BUY)

    assert list(Revision.objects.filter(analysis=analysis).values_list("number", flat=True)) == [1]
