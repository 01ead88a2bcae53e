"""Apply: accepted fixes of the current revision go into revision n+1 in one pass; the rest
conflict or are stale (DESIGN: Review and apply)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis, Revision
from redline_errors import ClaimedByOther, IllegalTransition, NothingToApply
from tests.support.review_data import BODY, add_fix, add_revision, analysis_in_review
from validation import services
from validation.models import Attempt, AuditEvent, Fix

pytestmark = pytest.mark.django_db


def _accepted(analysis: Analysis, find: str, replace: str, **kwargs: Any) -> Fix:
    return add_fix(analysis, find, replace, status=Fix.Status.ACCEPTED, **kwargs)


def test_accepted_fixes_that_match_once_become_revision_two_and_validation_is_queued(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review()
    arithmetic = _accepted(analysis, "= $15.8B", "= $14.8B")
    revenue = _accepted(analysis, "$10.5B", "$10.4B")
    untouched = add_fix(analysis, "$152.4", "$150.0")  # proposed, not accepted

    with django_capture_on_commit_callbacks() as callbacks:
        outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    revision = outcome.revision
    assert revision is not None
    assert (revision.number, revision.reason, revision.author) == (2, "fixes_applied", reviewer)
    assert revision.body == BODY.replace("= $15.8B", "= $14.8B").replace("$10.5B", "$10.4B")
    assert Revision.objects.get(analysis=analysis, number=1).body == BODY  # never edited
    assert {fix.pk for fix in outcome.applied} == {arithmetic.pk, revenue.pk}
    assert outcome.conflicts == outcome.stale == []
    for fix in (arithmetic, revenue):
        fix.refresh_from_db()
        assert (fix.status, fix.applied_in) == (Fix.Status.APPLIED, revision)
    untouched.refresh_from_db()
    assert untouched.status == Fix.Status.STALE  # its revision is no longer current

    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.VALIDATING
    attempt = Attempt.objects.get(revision=revision)
    assert (attempt.number, attempt.status, attempt.loop_kind) == (2, "queued", "revise")
    assert len(callbacks) == 1  # the task is sent once the transaction commits
    event = AuditEvent.objects.get(action="applied")
    assert (event.actor, event.revision) == (reviewer, revision)
    assert sorted(event.data["applied"]) == sorted([arithmetic.pk, revenue.pk])


def test_a_fix_whose_find_is_missing_conflicts_with_its_reason_and_the_others_apply(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    missing = _accepted(analysis, "$99.9B", "$98.0B")
    good = _accepted(analysis, "$10.5B", "$10.4B")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    missing.refresh_from_db()
    assert (missing.status, missing.reason) == (
        Fix.Status.CONFLICT,
        "FIND text not found in this revision",
    )
    assert outcome.conflicts == [missing]
    assert outcome.applied == [good]
    assert outcome.revision is not None
    assert "$10.4B" in outcome.revision.body


def test_a_fix_whose_find_occurs_twice_conflicts(reviewer: User) -> None:
    analysis = analysis_in_review()
    ambiguous = _accepted(analysis, "10%", "11%")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    ambiguous.refresh_from_db()
    assert (ambiguous.status, ambiguous.reason) == (Fix.Status.CONFLICT, "FIND text occurs 2 times")
    assert outcome.revision is None


def test_overlapping_fixes_all_conflict_and_name_each_other(reviewer: User) -> None:
    analysis = analysis_in_review()
    first = _accepted(analysis, "CapEx $0.7B = $15.8B", "CapEx $0.7B = $14.8B")
    second = _accepted(analysis, "= $15.8B [gurufocus]", "= $14.8B [gurufocus]")
    other = _accepted(analysis, "$10.5B", "$10.4B")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.reason) == (Fix.Status.CONFLICT, f"overlaps fix {second.pk}")
    assert (second.status, second.reason) == (Fix.Status.CONFLICT, f"overlaps fix {first.pk}")
    assert outcome.applied == [other]
    assert outcome.revision is not None
    assert "= $15.8B" in outcome.revision.body


def test_an_accepted_fix_of_an_older_revision_is_stale(reviewer: User) -> None:
    analysis = analysis_in_review()
    old = _accepted(analysis, "$10.5B", "$10.4B")
    add_revision(analysis, BODY.replace("$10.5B", "$10.6B"))
    current = _accepted(analysis, "= $15.8B", "= $14.8B")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    old.refresh_from_db()
    assert old.status == Fix.Status.STALE
    assert old.reason == "Proposed for revision 1; the report is now at revision 2."
    assert outcome.stale == [old]
    assert outcome.applied == [current]
    assert outcome.revision is not None
    assert outcome.revision.number == 3
    assert "$10.6B" in outcome.revision.body


def test_an_edited_fix_applies_the_reviewers_replacement(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    services.fix_edit(fix=fix, user=reviewer, replace="= $14.8B (15.5 - 0.7)")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None
    assert "CapEx $0.7B = $14.8B (15.5 - 0.7) [gurufocus]" in outcome.revision.body


def test_when_nothing_can_be_applied_no_revision_is_made_and_the_analysis_stays_in_review(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    missing = _accepted(analysis, "not in the report", "x")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is None
    assert outcome.conflicts == [missing]
    assert Revision.objects.filter(analysis=analysis).count() == 1
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.IN_REVIEW
    event = AuditEvent.objects.get(action="applied")
    assert event.comment == "Nothing applied: every accepted fix conflicts or is stale."


def test_apply_without_accepted_fixes_is_refused_and_changes_nothing(reviewer: User) -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(NothingToApply, match=r"No accepted fixes to apply\."):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    analysis.refresh_from_db()
    assert analysis.claimed_by is None  # the auto-claim was rolled back too
    assert not AuditEvent.objects.filter(analysis=analysis).exists()


def test_apply_on_an_approved_analysis_is_an_illegal_transition(reviewer: User) -> None:
    analysis = analysis_in_review(status=Analysis.Status.APPROVED)
    _accepted(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(
        IllegalTransition,
        match=r"Only an analysis in review can have fixes applied \(this one is approved\)\.",
    ):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    assert Revision.objects.filter(analysis=analysis).count() == 1


def test_apply_is_refused_while_another_reviewer_holds_the_claim(
    reviewer: User, other_reviewer: User
) -> None:
    analysis = analysis_in_review()
    _accepted(analysis, "= $15.8B", "= $14.8B")
    services.analysis_claim(analysis=analysis, user=other_reviewer)

    with pytest.raises(ClaimedByOther, match="Claimed by sam until"):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    assert Revision.objects.filter(analysis=analysis).count() == 1


def test_structured_fields_are_re_read_from_the_new_revision(reviewer: User) -> None:
    analysis = analysis_in_review()
    _accepted(analysis, "**FINAL DECISION: WATCH**", "**FINAL DECISION: BUY**")
    _accepted(analysis, "$152.4 per share", "$160.5 per share")

    services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    analysis.refresh_from_db()
    assert analysis.decision == "BUY"
    assert analysis.conviction == "MODERATE"


def test_a_field_the_new_revision_no_longer_states_keeps_its_value(reviewer: User) -> None:
    analysis = analysis_in_review()
    _accepted(analysis, "**FINAL DECISION: WATCH**\n", "")  # the decision line is deleted
    _accepted(analysis, "**FINAL CONVICTION: MODERATE**", "**FINAL CONVICTION: HIGH**")

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None
    assert "FINAL DECISION" not in outcome.revision.body
    analysis.refresh_from_db()
    assert analysis.decision == "WATCH"  # unreadable: kept
    assert analysis.conviction == "HIGH"
    assert analysis.numeric_fields["roic"] == "0.225"  # never in the body: kept
