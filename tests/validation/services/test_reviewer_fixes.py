"""Issue 28: a reviewer's own fix. It replaces text of the current revision (a finding's, a
selection's, or typed), widened until it occurs once; it is checked on save (calculations
recomputed, numbers looked up in the evidence, else the reviewer's word); it is recorded as
the reviewer's and audited; it is applied by the same apply, even past a loop limit."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis
from redline_errors import DomainError, FindNotUnique, IllegalTransition, LoopLimitReached
from tests.factories import EvidenceFactory, FindingFactory
from tests.support.review_data import BODY, add_fix, analysis_in_review, current_revision
from validation import services
from validation.models import Attempt, AuditEvent, Fix, Policy

pytestmark = pytest.mark.django_db


def test_a_reviewer_fixes_typed_text_and_a_number_found_in_the_evidence_is_checked(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()

    fix = services.fix_author(
        analysis_id=analysis.pk, user=reviewer, find="$10.5B in 2024", replace="$10.4B in 2024"
    )

    assert (fix.origin, fix.kind, fix.status) == ("reviewer", "reviewer_fix", "proposed")
    assert (fix.author, fix.authored_at is not None) == (reviewer, True)
    assert fix.offset == BODY.index("$10.5B in 2024")
    assert fix.edit_check == Fix.EditCheck.VERIFIED
    assert "found $10.4B in gurufocus" in fix.verified_with
    assert fix.confidence == 1.0
    event = AuditEvent.objects.get(action=AuditEvent.Action.FIX_AUTHORED)
    assert (event.actor, event.fix_id, event.data["check"]) == (reviewer, fix.pk, "verified")


def test_a_calculation_is_recomputed_and_a_wrong_one_is_contradicted(reviewer: User) -> None:
    analysis = analysis_in_review()

    right = services.fix_author(
        analysis_id=analysis.pk,
        user=reviewer,
        find="= $15.8B",
        replace="= $14.8B (15.5 - 0.7 = 14.8)",
    )
    assert right.edit_check == Fix.EditCheck.VERIFIED
    assert "recomputed 15.5 - 0.7 = 14.8" in right.verified_with

    wrong = services.fix_author(
        analysis_id=analysis.pk, user=reviewer, find="$152.4 per", replace="(15.5 - 0.7) = 14.9 per"
    )
    assert wrong.edit_check == Fix.EditCheck.UNVERIFIED
    assert "calculator, which gives 14.80" in wrong.verified_with
    assert wrong.confidence == 0.25


def test_words_the_engine_cannot_check_are_the_reviewers_word(reviewer: User) -> None:
    analysis = analysis_in_review()

    fix = services.fix_author(analysis_id=analysis.pk, user=reviewer, find="WATCH", replace="HOLD")

    assert fix.edit_check == Fix.EditCheck.REVIEWERS_WORD
    assert fix.verified_with.startswith("The reviewer's word")


def test_a_selection_is_widened_until_it_occurs_once(reviewer: User) -> None:
    analysis = analysis_in_review()
    start = BODY.index("10% in the next")  # "10%" occurs twice: widened to the right words

    fix = services.fix_author(
        analysis_id=analysis.pk,
        user=reviewer,
        replace="12%",
        span=(start, start + 3),
        revision_number=1,
    )

    assert fix.find != "10%" and "10%" in fix.find and BODY.count(fix.find) == 1
    assert fix.offset == BODY.index(fix.find)


def test_a_fix_on_a_finding_replaces_the_text_it_marks(reviewer: User) -> None:
    analysis = analysis_in_review()
    attempt = Attempt.objects.get(analysis=analysis)
    start = BODY.index("$152.4")
    finding = FindingFactory.create(
        attempt=attempt, start=start, end=start + 6, text="$152.4", kind="orphan"
    )

    fix = services.fix_author(
        analysis_id=analysis.pk, user=reviewer, replace="$150.0", finding_id=finding.pk
    )

    assert (fix.find, fix.finding_id) == ("$152.4", finding.pk)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"find": "10%", "replace": "12%"}, FindNotUnique, "occurs 2 times"),
        ({"find": "nowhere", "replace": "x"}, FindNotUnique, "does not occur"),
        ({"find": "", "replace": "x"}, DomainError, "Say what to replace"),
        ({"find": "WATCH", "replace": "WATCH"}, DomainError, "same as the text"),
        ({"span": (0, 5), "revision_number": 2, "replace": "x"}, DomainError, "select the text"),
        ({"span": (5, 5), "revision_number": 1, "replace": "x"}, DomainError, "not within"),
        ({"find": "WATCH", "replace": "a\x00"}, DomainError, "NUL"),
    ],
)
def test_a_bad_fix_is_refused_and_changes_nothing(
    reviewer: User, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    analysis = analysis_in_review()

    with pytest.raises(error, match=message):
        services.fix_author(analysis_id=analysis.pk, user=reviewer, **kwargs)  # type: ignore[arg-type]

    assert not Fix.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.FIX_AUTHORED).exists()


def test_no_fix_is_written_while_validating_or_on_a_closed_analysis(reviewer: User) -> None:
    validating = analysis_in_review(attempt_status=Attempt.Status.RUNNING)
    with pytest.raises(IllegalTransition, match="being validated"):
        services.fix_author(analysis_id=validating.pk, user=reviewer, find="WATCH", replace="X")
    approved = analysis_in_review(status=Analysis.Status.APPROVED)
    with pytest.raises(IllegalTransition):
        services.fix_author(analysis_id=approved.pk, user=reviewer, find="WATCH", replace="X")


def test_a_reviewers_fix_is_applied_past_the_loop_limit_and_audited(reviewer: User) -> None:
    policy = Policy.load()
    analysis = analysis_in_review(revise_loops=policy.max_revise_loops)
    fix = services.fix_author(analysis_id=analysis.pk, user=reviewer, find="WATCH", replace="HOLD")
    services.fix_accept(fix=fix, user=reviewer)

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None and outcome.revision.number == 2
    assert "HOLD" in current_revision(analysis).body
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.VALIDATING  # re-validated as usual
    event = AuditEvent.objects.filter(action=AuditEvent.Action.APPLIED).latest("id")
    assert "loop limit reached" in event.data["past_loop_limit"]


def test_the_validators_fixes_still_stop_at_the_loop_limit(reviewer: User) -> None:
    policy = Policy.load()
    analysis = analysis_in_review(revise_loops=policy.max_revise_loops)
    add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)

    with pytest.raises(LoopLimitReached, match="only fixes a reviewer wrote"):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert current_revision(analysis).number == 1


def test_editing_a_reviewers_fix_checks_it_afresh_and_accepts_what_holds(reviewer: User) -> None:
    analysis = analysis_in_review()
    fix = services.fix_author(analysis_id=analysis.pk, user=reviewer, find="WATCH", replace="HOLD")

    services.fix_edit(fix=fix, user=reviewer, replace="BUY")

    fix.refresh_from_db()
    assert (fix.replace, fix.status, fix.edit_check) == ("BUY", "accepted", "reviewers_word")
    assert fix.confidence == 0.5


# Issue 25, point 4: a reviewer's own fix is re-verified by the same rule as an edit of a
# proposed one, never by a number that merely occurs somewhere in the evidence.
_GROWTH_BODY = (
    "# Earnings note\n\n"
    "Net income rose to $120 million in 2024 from $100 million in 2023, up 25.0%.\n"
)


def _growth_analysis() -> Analysis:
    analysis = analysis_in_review(body=_GROWTH_BODY)
    EvidenceFactory.create(
        analysis=analysis,
        source_ref="filing",
        content_json={
            "net_income_2023_millions": 100,
            "net_income_2024_millions": 120,
            "effective_tax_rate_percent": 22.0,
        },
    )
    return analysis


def test_an_own_fix_found_only_as_an_unrelated_cell_is_not_verified(reviewer: User) -> None:
    analysis = _growth_analysis()

    fix = services.fix_author(
        analysis_id=analysis.pk, user=reviewer, find="up 25.0%", replace="up 22.0%"
    )

    # 22.0 is the tax rate: the growth its own operands give is 20.0%.
    assert fix.edit_check == Fix.EditCheck.UNVERIFIED
    assert "20.0%" in fix.verified_with
    assert fix.confidence == 0.25


def test_an_own_fix_the_engine_derives_is_verified_and_so_is_its_edit(reviewer: User) -> None:
    analysis = _growth_analysis()

    fix = services.fix_author(
        analysis_id=analysis.pk, user=reviewer, find="up 25.0%", replace="up 20.0%"
    )

    assert fix.edit_check == Fix.EditCheck.VERIFIED
    assert "$120 million - $100 million" in fix.verified_with and fix.confidence == 1.0

    services.fix_edit(fix=fix, user=reviewer, replace="up 22.0%")

    fix.refresh_from_db()
    assert (fix.edit_check, fix.status) == (Fix.EditCheck.UNVERIFIED, "proposed")
    assert fix.confidence == 0.25
