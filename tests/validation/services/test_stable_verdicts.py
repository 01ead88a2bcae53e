"""Issue 25, point 5, at the service level: applying the fix of one sentence and
re-validating the revision leaves every other sentence's findings as they were."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis, Evidence
from tests.support.review_data import analysis_in_review
from validation import services, tasks
from validation.models import Attempt, Fix

pytestmark = pytest.mark.django_db

TABLE = (
    "(in millions)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
    "| Freight revenue | 612.0 | 540.0 |\n| Storage revenue | 88.0 | 91.0 |\n"
)
# Sentence one is right; sentence two has a wrong percentage; sentence three a number
# the evidence does not hold (its finding must survive the other sentence's fix).
BODY = (
    "# Segment note\n\n"
    "Freight revenue rose to $612.0 million from $540.0 million, up 13.3%.\n\n"
    "Storage revenue slipped to $88.0 million from $91.0 million, a decline of 4.3%.\n\n"
    "Handling fees came to $14.2 million in 2024.\n"
)


def _numeric(attempt: Attempt) -> set[tuple[str, str]]:
    return {
        (finding.kind, finding.text)
        for finding in attempt.findings.all()
        if finding.check_name in ("claims_supported", "no_hallucinations")
    }


def test_a_fix_applied_to_one_sentence_leaves_the_others_verdicts(
    reviewer: User, django_capture_on_commit_callbacks: Any
) -> None:
    analysis = analysis_in_review(
        body=BODY, status=Analysis.Status.VALIDATING, attempt_status=Attempt.Status.QUEUED
    )
    Evidence.objects.create(analysis=analysis, source_ref="segments", content_text=TABLE)
    first = Attempt.objects.get(analysis=analysis)
    tasks.validate_revision.delay(first.revision_id)
    first.refresh_from_db()
    (fix,) = [fix for fix in Fix.objects.filter(attempt=first) if "4.3%" in fix.find]
    assert "3.3%" in fix.replace
    services.fix_accept(fix=fix, user=reviewer)

    with django_capture_on_commit_callbacks(execute=True):
        outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None
    second = Attempt.objects.get(revision=outcome.revision)
    assert second.status == "done"
    before, after = _numeric(first), _numeric(second)
    assert any(text == "4.3%" for _, text in before)
    assert before - after == {(kind, text) for kind, text in before if text == "4.3%"}
    assert after <= before
    assert any(text == "$14.2 million" for _, text in after)
