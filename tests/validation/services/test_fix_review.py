"""Reviewing fixes: accept, reject (with a reason), edit, undo, bulk accept (DESIGN: Review and
apply). Every action writes an audit event and claims the analysis for the reviewer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis
from redline_errors import (
    DomainError,
    FindNotUnique,
    FixNotReviewable,
    IllegalTransition,
    ReasonRequired,
)
from tests.support.review_data import BODY, add_fix, add_revision, analysis_in_review
from validation import services
from validation.models import AuditEvent, Fix, Policy

pytestmark = pytest.mark.django_db


def _actions(analysis: Analysis) -> list[str]:
    return list(AuditEvent.objects.filter(analysis=analysis).values_list("action", flat=True))


def test_accepting_a_fix_records_the_reviewer_claims_the_analysis_and_audits(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    returned = services.fix_accept(fix=fix, user=reviewer)

    assert returned is fix
    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED
    assert fix.reviewer == reviewer
    assert fix.reviewed_at is not None
    analysis.refresh_from_db()
    assert analysis.claimed_by == reviewer
    assert _actions(analysis) == ["claimed", "fix_accepted"]
    event = AuditEvent.objects.get(action="fix_accepted")
    assert (event.actor, event.fix, event.revision_id) == (reviewer, fix, fix.revision_id)


def test_accepting_twice_changes_nothing_the_second_time(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_accept(fix=fix, user=reviewer)

    services.fix_accept(fix=fix, user=reviewer)

    assert _actions(analysis).count("fix_accepted") == 1


def test_a_rejection_needs_a_reason_by_default_and_nothing_changes_without_one(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(ReasonRequired, match=r"Give a reason for rejecting this fix\."):
        services.fix_reject(fix=fix, user=reviewer, reason="   ")

    fix.refresh_from_db()
    assert fix.status == Fix.Status.PROPOSED
    assert _actions(analysis) == []


def test_a_rejection_keeps_its_reason_and_audits_it(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    services.fix_reject(fix=fix, user=reviewer, reason="  The report means gross earnings. ")

    fix.refresh_from_db()
    assert (fix.status, fix.reason) == (Fix.Status.REJECTED, "The report means gross earnings.")
    event = AuditEvent.objects.get(action="fix_rejected")
    assert event.comment == "The report means gross earnings."


def test_the_policy_can_allow_rejections_without_a_reason(reviewer: User) -> None:
    Policy.objects.filter(pk=1).update(require_reject_reason=False)
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    services.fix_reject(fix=fix, user=reviewer, reason="")

    fix.refresh_from_db()
    assert fix.status == Fix.Status.REJECTED


def test_editing_a_fix_changes_the_replacement_keeps_the_proposal_and_accepts_it(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    services.fix_edit(fix=fix, user=reviewer, replace="= $14.8B (15.5 - 0.7)")

    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED
    assert fix.replace == "= $14.8B (15.5 - 0.7)"
    assert fix.proposed_replace == "= $14.8B"
    assert fix.edited
    event = AuditEvent.objects.get(action="fix_edited")
    assert event.data["previous_replace"] == "= $14.8B"
    assert event.data["replace"] == "= $14.8B (15.5 - 0.7)"


def test_an_edit_from_a_browser_textarea_gets_plain_newlines(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    services.fix_edit(fix=fix, user=reviewer, replace="= $14.8B\r\n(recomputed)")

    fix.refresh_from_db()
    assert fix.replace == "= $14.8B\n(recomputed)"


def test_an_edit_is_refused_when_find_does_not_match_exactly_once(reviewer: User) -> None:
    analysis = analysis_in_review()
    ambiguous = add_fix(analysis, "10%", "11%")  # "10%" occurs twice in BODY
    assert BODY.count("10%") == 2

    with pytest.raises(FindNotUnique, match="occurs 2 times in revision 1"):
        services.fix_edit(fix=ambiguous, user=reviewer, replace="12%")

    ambiguous.refresh_from_db()
    assert (ambiguous.status, ambiguous.replace) == (Fix.Status.PROPOSED, "11%")
    assert "fix_edited" not in _actions(analysis)


def test_an_edit_that_replaces_text_with_itself_is_refused(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(DomainError, match="same as the text it replaces"):
        services.fix_edit(fix=fix, user=reviewer, replace="= $15.8B")


def test_undo_returns_a_fix_to_proposed_and_keeps_an_edited_replacement(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_edit(fix=fix, user=reviewer, replace="= $14.80B")

    services.fix_undo(fix=fix, user=reviewer)

    fix.refresh_from_db()
    assert (fix.status, fix.reviewer, fix.reviewed_at) == (Fix.Status.PROPOSED, None, None)
    assert fix.replace == "= $14.80B"
    assert AuditEvent.objects.get(action="fix_undone").data == {"previous_status": "accepted"}


def test_undo_of_a_rejection_clears_its_reason(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_reject(fix=fix, user=reviewer, reason="Not needed.")

    services.fix_undo(fix=fix, user=reviewer)

    fix.refresh_from_db()
    assert (fix.status, fix.reason) == (Fix.Status.PROPOSED, "")


def test_a_fix_of_an_older_revision_is_stale_and_cannot_be_reviewed(reviewer: User) -> None:
    analysis = analysis_in_review()
    old = add_fix(analysis, "= $15.8B", "= $14.8B")
    add_revision(analysis, BODY.replace("$15.8B", "$14.8B"))

    actions: tuple[Callable[[], object], ...] = (
        lambda: services.fix_accept(fix=old, user=reviewer),
        lambda: services.fix_reject(fix=old, user=reviewer, reason="no"),
        lambda: services.fix_edit(fix=old, user=reviewer, replace="x"),
        lambda: services.fix_undo(fix=old, user=reviewer),
    )
    for action in actions:
        with pytest.raises(FixNotReviewable, match=r"proposed for revision 1.*now at revision 2"):
            action()
    old.refresh_from_db()
    assert old.status == Fix.Status.PROPOSED


def test_an_applied_fix_cannot_be_reviewed_again(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_accept(fix=fix, user=reviewer)
    services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    Analysis.objects.filter(pk=analysis.pk).update(status=Analysis.Status.IN_REVIEW)

    with pytest.raises(FixNotReviewable, match="already applied in revision 2"):
        services.fix_undo(fix=fix, user=reviewer)


def test_a_conflicting_fix_can_be_undone_or_rejected_but_not_accepted(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "nowhere in the body", "x", status=Fix.Status.CONFLICT)
    Fix.objects.filter(pk=fix.pk).update(reason="FIND text not found in this revision")

    with pytest.raises(FixNotReviewable, match="This fix conflicts \\(FIND text not found"):
        services.fix_accept(fix=fix, user=reviewer)
    services.fix_undo(fix=fix, user=reviewer)

    fix.refresh_from_db()
    assert fix.status == Fix.Status.PROPOSED


def test_fixes_can_only_be_reviewed_while_the_analysis_is_in_review(reviewer: User) -> None:
    analysis = analysis_in_review(status=Analysis.Status.APPROVED)
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(
        IllegalTransition,
        match=r"Only an analysis in review can have its fixes reviewed \(this one is approved\)\.",
    ):
        services.fix_accept(fix=fix, user=reviewer)


def test_bulk_accept_takes_proposed_fixes_of_the_current_revision_at_or_above_the_threshold(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    old = add_fix(analysis, "Revenue", "Sales", confidence=0.99)
    add_revision(analysis, BODY + "\nAppendix.\n")
    high = add_fix(analysis, "= $15.8B", "= $14.8B", confidence=0.95)
    at = add_fix(analysis, "$10.5B", "$10.4B", confidence=0.9)
    low = add_fix(analysis, "$152.4", "$150.0", confidence=0.6)
    rejected = add_fix(analysis, "Appendix", "Notes", confidence=0.99, status=Fix.Status.REJECTED)

    accepted = services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=0.9)

    assert {fix.pk for fix in accepted} == {high.pk, at.pk}
    statuses = dict(Fix.objects.values_list("pk", "status"))
    assert statuses[high.pk] == statuses[at.pk] == Fix.Status.ACCEPTED
    assert statuses[low.pk] == Fix.Status.PROPOSED
    assert statuses[old.pk] == Fix.Status.PROPOSED
    assert statuses[rejected.pk] == Fix.Status.REJECTED
    event = AuditEvent.objects.get(action="bulk_accepted")
    assert event.data == {"min_confidence": 0.9, "fixes": [fix.pk for fix in accepted]}


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan")])
def test_bulk_accept_refuses_a_threshold_outside_zero_to_one(
    reviewer: User, threshold: Any
) -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(DomainError, match="between 0 and 1"):
        services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=threshold)

    assert not Fix.objects.filter(status=Fix.Status.ACCEPTED).exists()


def test_bulk_accept_with_nothing_above_the_threshold_writes_nothing(reviewer: User) -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.8B", confidence=0.5)

    assert services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=0.9) == []
    assert "bulk_accepted" not in _actions(analysis)


def test_an_action_that_changes_nothing_still_records_the_claim_it_took(
    reviewer: User, other_reviewer: User
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_accept(fix=fix, user=reviewer)
    services.analysis_release(analysis=analysis, user=reviewer)

    services.fix_accept(fix=fix, user=other_reviewer)  # already accepted: a no-op

    analysis.refresh_from_db()
    assert analysis.claimed_by == other_reviewer
    claims = AuditEvent.objects.filter(analysis=analysis, action="claimed")
    assert list(claims.values_list("actor__username", flat=True)) == ["dana", "sam"]
