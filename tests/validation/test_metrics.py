"""The review counters count what people did (issue 20): a fix a person rejected, which the
next revision proposes again and which arrives rejected, is one review -- in
``redline_fixes_reviewed_total`` and in the dashboard's acceptance rate alike."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from tests.engine.llm.helpers import DATA
from validation import services
from validation.models import Attempt, Fix

pytestmark = pytest.mark.django_db

WRONG = [
    ("of $15.5B less", "of $15.4B less"),
    ("$139.00 per share", "$138.00 per share"),
    ("current price of $104.20", "current price of $104.30"),
]


def submit_three_fixes() -> Attempt:
    """NVO with three wrong numbers: the engine proposes $15.4B -> $15.5B, $138.00 -> $139.00
    and $104.30 -> $104.20; a reviewer who knows the DCF was updated rejects the second."""
    data: dict[str, Any] = json.loads((DATA / "bundle_nvo.json").read_text())
    for old, new in WRONG:
        data["body"] = data["body"].replace(old, new)
    result = services.analysis_submit(data=data, submitter=None)
    assert result.revision is not None
    attempt = services.attempt_run(revision_id=result.revision.pk)
    assert attempt is not None and attempt.status == "done"
    return attempt


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found, f"{name} is not in /metrics"
    return float(found.group(1))


def test_a_rejection_carried_into_the_next_revision_is_counted_once(
    client: Client, reviewer: Any, settings: Any
) -> None:
    settings.REDLINE_METRICS_TOKEN = "scrape-secret"
    attempt = submit_three_fixes()
    fixes = {fix.find: fix for fix in Fix.objects.filter(attempt=attempt)}
    assert set(fixes) == {"$15.4B", "$138.00", "$104.30"}
    services.fix_reject(fix=fixes["$138.00"], user=reviewer, reason="the DCF was updated")
    services.fix_accept(fix=fixes["$15.4B"], user=reviewer)
    services.fix_accept(fix=fixes["$104.30"], user=reviewer)
    outcome = services.fixes_apply(analysis_id=attempt.analysis_id, user=reviewer)
    assert outcome.revision is not None
    second = services.attempt_run(revision_id=outcome.revision.pk)
    assert second is not None and second.status == "done"

    # Revision 2 proposes the rejected change again: it arrives rejected, carried over.
    (carried,) = Fix.objects.filter(attempt=second, find="$138.00")
    assert carried.status == "rejected" and carried.carried_from_id == fixes["$138.00"].pk
    assert carried.reason == "Rejected on revision 1: the DCF was updated"

    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret")
    assert response.status_code == 200
    text = response.content.decode()
    assert metric(text, 'redline_fixes_reviewed_total{decision="rejected"}') == 1
    assert metric(text, 'redline_fixes_reviewed_total{decision="accepted"}') == 2
    client.force_login(reviewer)
    data = client.get("/dashboard/data/").json()
    [origin] = data["fix_acceptance_by_origin"]
    assert (origin["accepted"], origin["rejected"]) == (2, 1)
    assert round(origin["rate"], 2) == 0.67


def test_undoing_a_carried_rejection_makes_it_a_proposal_of_its_own(reviewer: Any) -> None:
    attempt = submit_three_fixes()
    wrong = Fix.objects.get(attempt=attempt, find="$138.00")
    services.fix_reject(fix=wrong, user=reviewer, reason="the DCF was updated")
    services.fix_accept(fix=Fix.objects.get(attempt=attempt, find="$15.4B"), user=reviewer)
    outcome = services.fixes_apply(analysis_id=attempt.analysis_id, user=reviewer)
    assert outcome.revision is not None
    second = services.attempt_run(revision_id=outcome.revision.pk)
    carried = Fix.objects.get(attempt=second, find="$138.00")

    services.fix_undo(fix=carried, user=reviewer)
    carried.refresh_from_db()
    assert (carried.status, carried.carried_from_id) == ("proposed", None)
    # A person rejecting it again on this revision is a review of its own.
    services.fix_reject(fix=carried, user=reviewer, reason="still right")
    assert Fix.objects.filter(status="rejected", carried_from__isnull=True).count() == 2
