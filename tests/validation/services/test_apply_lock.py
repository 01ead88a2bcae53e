"""Apply does its text work before it takes the analysis lock, and only writes under it;
a change between the two is detected; a busy SQLite database is retried, then refused
in one sentence (issue 12: nothing slow under a lock)."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from analyses.models import Revision
from redline_errors import DatabaseBusy, DomainError
from tests.support.review_data import BODY, add_fix, add_revision, analysis_in_review
from validation import services
from validation.models import Fix
from validation.services import apply as apply_module


def _accepted(analysis: Any, find: str, replace: str) -> Fix:
    return add_fix(analysis, find, replace, status=Fix.Status.ACCEPTED)


def _lock_calls(monkeypatch: pytest.MonkeyPatch, after_plan: Any = None) -> list[str]:
    """Record, in order, the text work and the lock; run `after_plan(n)` (as another
    reviewer would, outside apply's transaction) between plan n and its lock."""
    events: list[str] = []
    # The names apply looks up in its own module (imported there), which the test patches.
    real_apply = apply_module.apply_fixes  # type: ignore[attr-defined]
    real_extract = apply_module.extract_fields  # type: ignore[attr-defined]
    real_lock, real_plan = apply_module.lock_analysis, apply_module._plan_apply  # type: ignore[attr-defined]

    def plan_apply(analysis_id: int) -> Any:
        plan = real_plan(analysis_id)
        if after_plan is not None:
            after_plan(events.count("lock") + 1)
        return plan

    def apply_fixes(*args: Any, **kwargs: Any) -> Any:
        events.append("apply_fixes")
        return real_apply(*args, **kwargs)

    def extract_fields(*args: Any, **kwargs: Any) -> Any:
        events.append("extract_fields")
        return real_extract(*args, **kwargs)

    def lock_analysis(analysis: Any) -> Any:
        events.append("lock")
        return real_lock(analysis)

    monkeypatch.setattr(apply_module, "apply_fixes", apply_fixes)
    monkeypatch.setattr(apply_module, "extract_fields", extract_fields)
    monkeypatch.setattr(apply_module, "lock_analysis", lock_analysis)
    monkeypatch.setattr(apply_module, "_plan_apply", plan_apply)
    return events


@pytest.mark.django_db
def test_the_new_body_and_its_fields_are_built_before_the_lock_is_taken(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    _accepted(analysis, "= $15.8B", "= $14.8B")
    events = _lock_calls(monkeypatch)

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None
    assert events == ["apply_fixes", "extract_fields", "lock"]  # nothing after the lock


@pytest.mark.django_db
def test_a_fix_edited_between_the_read_and_the_lock_is_applied_as_edited(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    fix = _accepted(analysis, "= $15.8B", "= $14.8B")

    def edit_once(n: int) -> None:
        if n == 1:
            Fix.objects.filter(pk=fix.pk).update(replace="= $14.8B (edited)")

    events = _lock_calls(monkeypatch, edit_once)

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None
    assert "= $14.8B (edited)" in outcome.revision.body  # the plan was redone, not the old one
    assert events == ["apply_fixes", "extract_fields", "lock"] * 2
    assert Revision.objects.filter(analysis=analysis).count() == 2


@pytest.mark.django_db
def test_a_revision_made_between_the_read_and_the_lock_makes_the_fix_stale(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    fix = _accepted(analysis, "$10.5B", "$10.4B")

    def new_revision(n: int) -> None:
        if n == 1:
            add_revision(analysis, BODY.replace("$10.5B", "$10.6B"))

    _lock_calls(monkeypatch, new_revision)

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is None
    assert outcome.stale == [fix]
    fix.refresh_from_db()
    assert fix.status == Fix.Status.STALE
    assert Revision.objects.filter(analysis=analysis).count() == 2  # none made by apply


@pytest.mark.django_db
def test_fixes_that_keep_changing_are_refused_cleanly_and_nothing_is_written(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    fix = _accepted(analysis, "= $15.8B", "= $14.8B")

    def edit_every_time(n: int) -> None:
        Fix.objects.filter(pk=fix.pk).update(replace=f"= $14.8B ({n})")

    _lock_calls(monkeypatch, edit_every_time)

    with pytest.raises(DomainError, match=r"kept changing .*press Apply again\."):
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert Revision.objects.filter(analysis=analysis).count() == 1
    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED
    analysis.refresh_from_db()
    assert analysis.claimed_by is None  # every locked round was rolled back


sqlite_only = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="'database is locked' is SQLite's busy error"
)


def _busy_database(monkeypatch: pytest.MonkeyPatch) -> sqlite3.Connection:
    """Another writer holding SQLite's write lock; our connection gives up after 50 ms."""
    monkeypatch.setattr(apply_module, "BUSY_BACKOFF_SECONDS", 0.01)
    connection.ensure_connection()
    connection.connection.execute("PRAGMA busy_timeout = 50")
    blocker = sqlite3.connect(
        connection.settings_dict["NAME"], isolation_level=None, check_same_thread=False
    )
    blocker.execute("BEGIN IMMEDIATE")
    return blocker


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_busy_database_is_retried_and_the_apply_goes_through(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    _accepted(analysis, "= $15.8B", "= $14.8B")
    blocker = _busy_database(monkeypatch)
    released = threading.Timer(0.08, blocker.execute, args=("COMMIT",))
    released.start()
    try:
        outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    finally:
        released.join()
        blocker.close()

    assert outcome.revision is not None
    assert outcome.revision.number == 2


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_database_busy_through_every_retry_gives_one_sentence_and_changes_nothing(
    reviewer: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analysis_in_review()
    fix = _accepted(analysis, "= $15.8B", "= $14.8B")
    blocker = _busy_database(monkeypatch)
    try:
        with pytest.raises(DatabaseBusy) as refused:
            services.fixes_apply(analysis_id=analysis.pk, user=reviewer)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()

    assert str(refused.value) == (
        "The database is busy with another change; nothing was applied. Try again in a moment."
    )
    assert isinstance(refused.value, DomainError)  # answered 409 by the views and the API
    assert Revision.objects.filter(analysis=analysis).count() == 1
    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED
