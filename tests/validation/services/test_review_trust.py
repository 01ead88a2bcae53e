"""Issue 11: an edited fix is re-verified against its proof; applying uses a REVISE loop and
is refused past the limit; sign-off needs every fix decided or an override with a comment."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis
from redline_errors import FixesUndecided, LoopLimitReached, ReasonRequired
from tests.support.review_data import add_fix, analysis_in_review
from validation import services
from validation.models import AuditEvent, Fix, Policy, ToolCall

pytestmark = pytest.mark.django_db


def _calculator_fix(analysis: Analysis) -> Fix:
    fix = add_fix(analysis, "= $15.8B", "= $14.8B", confidence=0.99)
    fix.verified_with = "calculator: 15.5 - 0.7 = 14.8"
    fix.save()
    ToolCall.objects.create(
        attempt=fix.attempt,
        fix=fix,
        tool="calculator",
        input={"expression": "15.5 - 0.7"},
        output="14.8",
    )
    return fix


def test_an_edit_the_calculator_contradicts_is_unverified_not_accepted_and_low_confidence(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    fix = _calculator_fix(analysis)

    services.fix_edit(fix=fix, user=reviewer, replace="= $14.9B")

    fix.refresh_from_db()
    assert fix.edit_check == Fix.EditCheck.UNVERIFIED
    assert fix.status == Fix.Status.PROPOSED
    assert (fix.confidence, fix.proposed_confidence) == (0.25, 0.99)
    assert "gives 14.8" in fix.edit_note
    event = AuditEvent.objects.get(action="fix_edited")
    assert event.data["edit_check"] == "unverified"


def test_bulk_accept_skips_an_unverified_edit_even_at_a_zero_threshold(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = _calculator_fix(analysis)
    other = add_fix(analysis, "$152.4", "$152.40", confidence=0.95)
    services.fix_edit(fix=fix, user=reviewer, replace="= $14.9B")

    accepted = services.fixes_bulk_accept(analysis=analysis, user=reviewer, min_confidence=0.0)

    assert [f.pk for f in accepted] == [other.pk]
    fix.refresh_from_db()
    assert fix.status == Fix.Status.PROPOSED


def test_an_edit_that_agrees_with_the_proof_is_accepted_and_editing_back_restores_it(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    fix = _calculator_fix(analysis)
    services.fix_edit(fix=fix, user=reviewer, replace="= $14.9B")

    services.fix_edit(fix=fix, user=reviewer, replace="= $14.80B (15.5 - 0.7)")
    fix.refresh_from_db()
    assert (fix.edit_check, fix.status, fix.confidence) == ("verified", "accepted", 0.99)

    services.fix_edit(fix=fix, user=reviewer, replace="= $14.8B")
    fix.refresh_from_db()
    assert (fix.edit_check, fix.edit_note, fix.confidence) == ("", "", 0.99)


def test_apply_uses_a_revise_loop_and_is_refused_past_the_limit(reviewer: User) -> None:
    analysis = analysis_in_review(revise_loops=1)
    add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)

    services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    analysis.refresh_from_db()
    assert analysis.revise_loops == 2

    at_limit = analysis_in_review(revise_loops=2)
    add_fix(at_limit, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)
    with pytest.raises(LoopLimitReached, match=r"REVISE loop limit reached \(2 of 2 used\)"):
        services.fixes_apply(analysis_id=at_limit.pk, user=reviewer)


def test_sign_off_is_refused_with_undecided_fixes_without_an_override(reviewer: User) -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.8B")

    with pytest.raises(FixesUndecided, match="1 fix is not decided"):
        services.analysis_sign_off(analysis=analysis, user=reviewer, comment="fine")
    with pytest.raises(ReasonRequired):
        services.analysis_sign_off(analysis=analysis, user=reviewer, override=True)

    services.analysis_sign_off(
        analysis=analysis, user=reviewer, comment="The figure is immaterial.", override=True
    )
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.APPROVED
    event = AuditEvent.objects.get(action="approved")
    assert (event.comment, event.data["override"]) == ("The figure is immaterial.", True)
    assert len(event.data["undecided_fixes"]) == 1


def test_at_the_loop_limit_sign_off_needs_a_comment_and_accepted_fixes_do_not_block_it(
    reviewer: User,
) -> None:
    Policy.objects.filter(pk=1).update(max_revise_loops=1, max_total_loops=1)
    analysis = analysis_in_review(revise_loops=1)
    add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)

    with pytest.raises(ReasonRequired):
        services.analysis_sign_off(analysis=analysis, user=reviewer)
    services.analysis_sign_off(analysis=analysis, user=reviewer, comment="Good enough.")

    event = AuditEvent.objects.get(action="approved")
    assert event.data["loop_limit"].startswith("REVISE loop limit reached (1 of 1 used)")
    assert len(event.data["accepted_not_applied"]) == 1
