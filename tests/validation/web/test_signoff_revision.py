"""The sign-off and reject forms carry the revision the reviewer read (issue 27, point 2).
A form for a revision that is no longer current answers 409 "the report changed" with the
page of the current revision; the reviewer's own apply moves the form to the new revision;
an open page learns of a new draft by its slow status poll."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from analyses.models import Analysis
from tests.validation.web.builders import Review
from tests.validation.web.conftest import HX
from validation import services
from validation.models import Attempt, AuditEvent

pytestmark = pytest.mark.django_db

STRONG_BUY = "# NVO\n\nSTRONG BUY: allocate 40 % of the fund.\n\n**FINAL DECISION: BUY**\n"


def url(name: str, review: Review) -> str:
    return reverse(name, args=[review.analysis.pk])


def revision_field(html: str) -> list[str]:
    return re.findall(r'<input type="hidden" name="revision" value="(\d+)">', html)


@pytest.fixture
def client(client_for: Any, reviewer: Any) -> Client:
    reviewing: Client = client_for(reviewer)
    return reviewing


def _new_draft_validated(review: Review, capture: Any) -> None:
    with capture(execute=True):
        services.analysis_submit_draft(analysis=review.analysis, user=None, body=STRONG_BUY)
    assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW


def test_the_sign_off_and_reject_forms_carry_the_revision_shown(
    client: Client, review: Review
) -> None:
    html = client.get(url("analysis_review", review)).content.decode()

    assert revision_field(html) == ["1", "1"]  # reject, then sign-off


def test_a_stale_sign_off_answers_409_and_shows_the_new_revision(
    client: Client, review: Review, django_capture_on_commit_callbacks: Any
) -> None:
    _new_draft_validated(review, django_capture_on_commit_callbacks)

    response = client.post(
        url("analysis_sign_off", review),
        {"comment": "Fine.", "override": "1", "revision": "1"},
        **HX,
    )

    assert response.status_code == 409
    html = response.content.decode()
    assert "The report changed: you read revision 1, and revision 2 is current now" in html
    assert "STRONG BUY: allocate 40 % of the fund." in html  # the report the page shows now
    assert set(revision_field(html)) <= {"2"}
    assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW
    assert not AuditEvent.objects.filter(action="approved").exists()


def test_a_stale_plain_form_gets_the_whole_page_of_the_new_revision_with_409(
    client: Client, review: Review, django_capture_on_commit_callbacks: Any
) -> None:
    _new_draft_validated(review, django_capture_on_commit_callbacks)

    response = client.post(url("analysis_reject", review), {"comment": "No.", "revision": "1"})

    assert response.status_code == 409
    html = response.content.decode()
    assert "<html" in html and "Nothing was rejected; read revision 2 first." in html
    assert "STRONG BUY: allocate 40 % of the fund." in html
    assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW


@pytest.mark.parametrize("sent", [{}, {"revision": ""}, {"revision": "one"}, {"revision": "²"}])
def test_a_form_that_names_no_revision_is_400_and_changes_nothing(
    client: Client, review: Review, sent: dict[str, str]
) -> None:
    response = client.post(url("analysis_reject", review), {"comment": "No.", **sent})

    assert response.status_code == 302  # back to the page, with the message
    assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW
    htmx = client.post(url("analysis_reject", review), {"comment": "No.", **sent}, **HX)
    assert htmx.status_code == 400
    assert "does not say which revision you read" in htmx.content.decode()


def test_after_the_reviewers_own_apply_the_page_sends_the_new_revision(
    client: Client, review: Review, django_capture_on_commit_callbacks: Any
) -> None:
    client.post(reverse("fix_accept", args=[review.analysis.pk, review.fixes[0].pk]), **HX)
    with django_capture_on_commit_callbacks(execute=True):
        applied = client.post(url("fixes_apply", review), **HX)
    assert applied.status_code == 200
    html = client.get(url("analysis_review", review)).content.decode()
    assert "revision 2" in html and set(revision_field(html)) == {"2"}

    signed = client.post(
        url("analysis_sign_off", review),
        {"comment": "Applied and read.", "override": "1", "revision": "2"},
        **HX,
    )

    assert signed.status_code == 200, signed.content.decode()[:2000]
    assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.APPROVED
    event = AuditEvent.objects.get(action="approved")
    assert event.revision is not None and event.revision.number == 2


def test_an_open_page_watches_for_a_new_revision_and_swaps_it_in(
    client: Client, review: Review, django_capture_on_commit_callbacks: Any
) -> None:
    html = client.get(url("analysis_review", review)).content.decode()
    watch = f"{url('analysis_status', review)}?revision=1&amp;status=in_review&amp;watch=1"
    assert f'hx-get="{watch}" hx-trigger="every 5s"' in html
    quiet = client.get(url("analysis_status", review) + "?revision=1&watch=1", **HX)
    assert quiet.status_code == 200
    assert quiet.content.decode().lstrip().startswith('<div id="validation-progress"')

    with django_capture_on_commit_callbacks(execute=False):  # the worker has not run yet
        services.analysis_submit_draft(analysis=review.analysis, user=None, body=STRONG_BUY)
    changed = client.get(url("analysis_status", review) + "?revision=1&watch=1", **HX)

    assert changed["HX-Retarget"] == "#review-main"
    page = changed.content.decode()
    assert "The report changed while you read revision 1: revision 2 is current now" in page
    assert "new draft submitted" in page
    assert "STRONG BUY: allocate 40 % of the fund." in page
    assert "Validating revision 2" in page  # and its own 1.5 s poll takes over
    assert 'hx-trigger="every 1500ms"' in page
    assert Attempt.objects.filter(revision__number=2, status="queued").exists()
