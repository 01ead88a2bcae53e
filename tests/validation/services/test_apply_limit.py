"""Apply obeys the body limit a draft obeys (issue 27, point 7): reviewer edits grew a
revision to 299,427 bytes against a 200,000-byte limit. Now the apply is refused with a
sentence that says so, and nothing changes."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from analyses.models import Analysis, Revision
from redline_errors import DomainError
from tests.support.review_data import BODY, add_fix, analysis_in_review
from validation import services
from validation.models import AuditEvent, Fix

pytestmark = pytest.mark.django_db


def test_an_apply_that_would_pass_the_body_limit_is_refused_and_changes_nothing(
    reviewer: User, settings: Settings
) -> None:
    settings.REDLINE_MAX_BODY_BYTES = len(BODY.encode()) + 100
    analysis = analysis_in_review()
    grown = add_fix(analysis, "$10.5B", "$10.4B " + "and more " * 40, status=Fix.Status.ACCEPTED)

    with pytest.raises(DomainError) as refused:
        services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    message = str(refused.value)
    assert message.startswith("The accepted fixes would make revision 2 a body the input rules ")
    limit = settings.REDLINE_MAX_BODY_BYTES
    assert f"body: exceeds the {limit}-byte limit (REDLINE_MAX_BODY_BYTES)" in message
    assert message.endswith("nothing was applied: undo or shorten some of them.")
    assert Revision.objects.filter(analysis=analysis).count() == 1
    grown.refresh_from_db()
    assert grown.status == Fix.Status.ACCEPTED
    assert Analysis.objects.get(pk=analysis.pk).status == Analysis.Status.IN_REVIEW
    assert not AuditEvent.objects.filter(analysis=analysis, action="applied").exists()


def test_an_apply_within_the_limit_still_applies(reviewer: User, settings: Settings) -> None:
    settings.REDLINE_MAX_BODY_BYTES = len(BODY.encode()) + 100
    analysis = analysis_in_review()
    add_fix(analysis, "$10.5B", "$10.4B", status=Fix.Status.ACCEPTED)

    outcome = services.fixes_apply(analysis_id=analysis.pk, user=reviewer)

    assert outcome.revision is not None and outcome.revision.number == 2
