"""Two reviewers pressing Apply at the same moment produce exactly one revision n+1.

fixes_apply locks the analysis row (SELECT ... FOR UPDATE): the second transaction waits for
the first, then finds the analysis validating and is refused. Row locks are PostgreSQL's;
SQLite serializes every writer with BEGIN IMMEDIATE instead, so there is no race to test.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from analyses.models import Revision
from redline_errors import DomainError, IllegalTransition
from tests.support.review_data import add_fix, analysis_in_review
from validation import services
from validation.models import Attempt, Fix

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row locks (SELECT FOR UPDATE) exist on PostgreSQL only; "
        "run with DATABASE_URL=postgres://... (CI does)",
    ),
]


def test_two_reviewers_applying_at_once_make_exactly_one_new_revision(
    reviewer: User, other_reviewer: User
) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.ACCEPTED)
    start = threading.Barrier(2, timeout=30)
    results: dict[str, object] = {}

    def apply(user: User) -> None:
        try:
            start.wait()
            results[user.username] = services.fixes_apply(analysis_id=analysis.pk, user=user)
        except DomainError as error:
            results[user.username] = error
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=apply, args=(user,)) for user in (reviewer, other_reviewer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "an apply never finished"

    outcomes = [r for r in results.values() if isinstance(r, services.ApplyOutcome)]
    refusals = [r for r in results.values() if isinstance(r, IllegalTransition)]
    assert len(outcomes) == 1, results
    assert len(refusals) == 1, results
    assert str(refusals[0]) == (
        "Only an analysis in review can have fixes applied (this one is validating)."
    )
    assert list(
        Revision.objects.filter(analysis=analysis).order_by("number").values_list("number")
    ) == [(1,), (2,)]
    assert Attempt.objects.filter(analysis=analysis).count() == 2
    fix.refresh_from_db()
    assert fix.status == Fix.Status.APPLIED


def test_a_review_action_holds_the_analysis_lock_while_it_writes(reviewer: User) -> None:
    """The one-query read of accept/reject/undo locks the analysis row, as every writer does
    first: another transaction cannot lock it meanwhile."""
    from django.db import DatabaseError, transaction

    from analyses.models import Analysis
    from validation.review_read import fix_under_review

    analysis = analysis_in_review()
    fix = add_fix(analysis, "= $15.8B", "= $14.8B")
    seen: list[str] = []

    def try_lock() -> None:
        try:
            with transaction.atomic():
                Analysis.objects.select_for_update(nowait=True).get(pk=analysis.pk)
            seen.append("locked")
        except DatabaseError:
            seen.append("refused")
        finally:
            connection.close()

    with transaction.atomic():
        target = fix_under_review(fix_id=fix.pk, analysis_id=analysis.pk, lock=True)
        assert target is not None and target.fix.pk == fix.pk
        other = threading.Thread(target=try_lock)
        other.start()
        other.join(timeout=30)
    assert seen == ["refused"]
    after = threading.Thread(target=try_lock)
    after.start()
    after.join(timeout=30)
    assert seen == ["refused", "locked"]
