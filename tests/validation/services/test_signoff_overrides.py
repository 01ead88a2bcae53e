"""A person's last word against the validator is said and recorded (issue 20): signing off
what the validator rated RETRY (or REVISE) with failed checks needs a comment, the form
warns, the audit marks the override; "Save edit" of a verified edit audits the edit and the
acceptance."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from redline_errors import ReasonRequired
from tests.support.review_data import add_fix, analysis_in_review
from validation import services
from validation.models import Attempt, AuditEvent, Fix

pytestmark = pytest.mark.django_db

FAILED = {
    "claims_supported": False,
    "no_hallucinations": False,
    "query_addressed": True,
    "coherent_format": True,
    "source_metadata_present": False,
}


def retry_with_failed_checks(decision: str = "RETRY") -> Any:
    analysis = analysis_in_review(decision=decision)
    Attempt.objects.filter(analysis=analysis).update(checks=FAILED, confidence=0.8)
    return analysis


def test_signing_off_a_retry_with_failed_checks_needs_a_comment(reviewer: Any) -> None:
    analysis = retry_with_failed_checks()
    with pytest.raises(ReasonRequired, match=r"rated this RETRY with failed checks \(Claims"):
        services.analysis_sign_off(analysis=analysis, user=reviewer)

    services.analysis_sign_off(analysis=analysis, user=reviewer, comment="Sources checked by hand.")
    event = AuditEvent.objects.get(analysis=analysis, action="approved")
    assert event.data["against_validator"] is True
    assert event.data["failed_checks"] == [
        "Claims supported",
        "No hallucinations",
        "Source metadata present",
    ]


def test_an_approved_verdict_or_one_with_no_failed_check_needs_no_comment(reviewer: Any) -> None:
    approved = analysis_in_review(decision="APPROVE")
    services.analysis_sign_off(analysis=approved, user=reviewer)
    passed = analysis_in_review(decision="REVISE")  # a REVISE whose checks all pass
    services.analysis_sign_off(analysis=passed, user=reviewer)
    assert not AuditEvent.objects.filter(data__against_validator=True).exists()


def test_the_sign_off_form_warns_and_requires_a_comment(client: Client, reviewer: Any) -> None:
    analysis = retry_with_failed_checks()
    client.force_login(reviewer)
    page = client.get(reverse("analysis_review", args=[analysis.pk])).content.decode()
    assert 'id="sign-off-against-validator"' in page
    assert "The validator rated this RETRY · 0.80, with failed checks: Claims supported" in page
    assert (
        '<textarea id="sign-off-comment" name="comment" rows="3" maxlength="2000" required>' in page
    )

    refused = client.post(
        reverse("analysis_sign_off", args=[analysis.pk]), {"revision": "1"}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 409
    assert "say why you sign off" in refused.content.decode()


def test_the_audit_tab_marks_an_override_sign_off(client: Client, reviewer: Any) -> None:
    analysis = retry_with_failed_checks()
    add_fix(analysis, "= $15.8B", "= $14.8B")
    services.analysis_sign_off(
        analysis=analysis, user=reviewer, comment="Immaterial.", override=True
    )
    client.force_login(reviewer)
    audit = client.get(reverse("analysis_review", args=[analysis.pk]) + "?tab=audit")
    html = audit.content.decode()
    assert (
        '<span class="badge badge--override">override: 1 undecided fix; against the '
        "validator&#x27;s RETRY (failed: Claims supported, No hallucinations, Source metadata "
        "present)</span>"
    ) in html


def test_save_and_accept_audits_the_edit_and_the_acceptance(reviewer: Any) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "$15.8B", "$14.8B")
    Fix.objects.filter(pk=fix.pk).update(verified_with="15.5 - 0.7 = 14.8")
    fix.refresh_from_db()

    services.fix_edit(fix=fix, user=reviewer, replace="$14.80B")

    fix.refresh_from_db()
    assert fix.status == Fix.Status.ACCEPTED
    events = list(
        AuditEvent.objects.filter(analysis=analysis, fix=fix)
        .order_by("id")
        .values_list("action", "actor")
    )
    assert events == [("fix_edited", reviewer.pk), ("fix_accepted", reviewer.pk)]


def test_an_edit_the_proof_contradicts_is_audited_as_an_edit_only(reviewer: Any) -> None:
    analysis = analysis_in_review()
    fix = add_fix(analysis, "$15.8B", "$14.8B")
    Fix.objects.filter(pk=fix.pk).update(verified_with="15.5 - 0.7 = 14.8")
    fix.refresh_from_db()

    services.fix_edit(fix=fix, user=reviewer, replace="$19.0B")

    fix.refresh_from_db()
    assert fix.status == Fix.Status.PROPOSED
    actions = AuditEvent.objects.filter(fix=fix).values_list("action", flat=True)
    assert list(actions) == ["fix_edited"]
