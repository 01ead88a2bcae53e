"""Review actions: each is a POST that calls a service. With htmx the response is only the
changed fragment (the card, with the counters out of band); without JavaScript it redirects
back with a message. A refused action (DomainError) changes nothing: 409 with the error in
the fragment, or a redirect with the error as a message."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from analyses.models import Analysis, Revision
from tests.validation.web.builders import Review, add_fix
from tests.validation.web.conftest import HX, counters
from validation.models import Attempt, AuditEvent, Fix

pytestmark = pytest.mark.django_db


def fix_url(action: str, review: Review, fix: Fix) -> str:
    return reverse(f"fix_{action}", args=[review.analysis.pk, fix.pk])


def url(name: str, review: Review) -> str:
    return reverse(name, args=[review.analysis.pk])


def status_of(fix: Fix) -> str:
    return Fix.objects.get(pk=fix.pk).status


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


@pytest.fixture
def client(client_for: Any, reviewer: Any) -> Client:
    reviewing: Client = client_for(reviewer)
    return reviewing


class TestAccept:
    def test_htmx_returns_the_cards_review_part_and_the_counters_out_of_band(
        self, client: Client, review: Review
    ) -> None:
        """Accept changes the card's state and buttons, not its diff or proof: the answer is
        the card's review part, which htmx swaps (issue 20: the accept answer was the whole
        card and the page's state, 24 queries)."""
        fix = review.fixes[0]
        response = client.post(fix_url("accept", review, fix), **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith(
            f'<div id="fix-{fix.pk}-review" class="fix-review" data-status="accepted">'
        )
        assert f'hx-target="#fix-{fix.pk}-review"' in html  # its Undo swaps it again
        assert "<html" not in html and "report-body" not in html
        assert '<footer id="review-footer" class="review-footer" hx-swap-oob="true">' in html
        assert counters(1, 0, 2) in html
        assert '<div id="bulk-accept" class="bulk" hx-swap-oob="true">' in html
        assert '<span id="claim-status" class="claim-status" hx-swap-oob="true">' in html
        assert "claimed by you · 30 min left" in html  # acting claimed it
        assert "✓ accepted by dana" in html
        assert status_of(fix) == Fix.Status.ACCEPTED
        assert (
            AuditEvent.objects.filter(fix=fix, action=AuditEvent.Action.FIX_ACCEPTED).count() == 1
        )

    def test_without_javascript_it_redirects_back_with_a_message(
        self, client: Client, review: Review
    ) -> None:
        fix = review.fixes[0]
        response = client.post(fix_url("accept", review, fix))
        assert response.status_code == 302
        assert response["Location"] == url("analysis_review", review) + f"#fix-{fix.pk}"
        follow = client.get(response["Location"])
        assert f"Fix {fix.pk} accepted." in messages_of(follow)
        assert status_of(fix) == Fix.Status.ACCEPTED


class TestReject:
    def test_a_reason_is_required(self, client: Client, review: Review) -> None:
        fix = review.fixes[1]
        response = client.post(fix_url("reject", review, fix), {"reason": "  "}, **HX)
        assert response.status_code == 409
        html = response.content.decode()
        assert html.lstrip().startswith(f'<div id="fix-{fix.pk}-review"')
        assert '<p class="fix-error" role="alert">Give a reason for rejecting this fix.</p>' in html
        assert status_of(fix) == Fix.Status.PROPOSED

    def test_a_missing_reason_without_javascript_redirects_with_the_error(
        self, client: Client, review: Review
    ) -> None:
        fix = review.fixes[1]
        response = client.post(fix_url("reject", review, fix), follow=True)
        assert f"Fix {fix.pk}: Give a reason for rejecting this fix." in messages_of(response)
        assert status_of(fix) == Fix.Status.PROPOSED

    def test_reject_with_a_reason(self, client: Client, review: Review) -> None:
        fix = review.fixes[1]
        response = client.post(
            fix_url("reject", review, fix), {"reason": "ROIC <b>is</b> 22.0%"}, **HX
        )
        assert response.status_code == 200
        html = response.content.decode()
        assert "✗ rejected by dana" in html and "“ROIC &lt;b&gt;is&lt;/b&gt; 22.0%”" in html
        assert counters(0, 1, 2) in html
        saved = Fix.objects.get(pk=fix.pk)
        assert (saved.status, saved.reason) == (Fix.Status.REJECTED, "ROIC <b>is</b> 22.0%")


class TestEditAndUndo:
    def test_edit_replaces_and_accepts(self, client: Client, review: Review) -> None:
        fix = review.fixes[2]
        response = client.post(fix_url("edit", review, fix), {"replace": "$134.220"}, **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert "<del>$131.40</del><ins>$134.220</ins>" in html
        assert "Replacement edited by the reviewer; proposed: <code>$134.22</code>" in html
        assert "edited — re-verified" in html
        saved = Fix.objects.get(pk=fix.pk)
        assert (saved.status, saved.replace, saved.proposed_replace) == (
            "accepted",
            "$134.220",
            "$134.22",
        )

    def test_an_edit_its_proof_contradicts_is_flagged_not_accepted(
        self, client: Client, review: Review
    ) -> None:
        fix = review.fixes[2]
        response = client.post(fix_url("edit", review, fix), {"replace": "$134.20"}, **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert "edited — unverified" in html and "bulk accept skips this fix" in html
        saved = Fix.objects.get(pk=fix.pk)
        assert (saved.status, saved.edit_check, saved.confidence) == (
            "proposed",
            "unverified",
            0.25,
        )

    def test_an_edit_the_service_refuses_shows_its_error(
        self, client: Client, review: Review
    ) -> None:
        fix = review.fixes[2]
        response = client.post(fix_url("edit", review, fix), {"replace": fix.find}, **HX)
        assert response.status_code == 409
        assert "reject the fix instead" in response.content.decode()
        assert Fix.objects.get(pk=fix.pk).replace == "$134.22"

    def test_undo_returns_the_fix_to_proposed(self, client: Client, review: Review) -> None:
        fix = review.fixes[0]
        client.post(fix_url("accept", review, fix), **HX)
        response = client.post(fix_url("undo", review, fix), **HX)
        assert response.status_code == 200
        assert 'class="state state--proposed">to review' in response.content.decode()
        assert status_of(fix) == Fix.Status.PROPOSED


class TestBulkAccept:
    def test_accepts_every_proposed_fix_at_or_above_the_threshold(
        self, client: Client, review: Review
    ) -> None:
        response = client.post(url("fixes_bulk_accept", review), {"min_confidence": "0.90"}, **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith('<aside id="fixes-column"')
        assert 'id="review-footer" class="review-footer" hx-swap-oob="true"' in html
        assert 'id="flash" class="flash" aria-live="polite" hx-swap-oob="true"' in html
        assert "Accepted 2 fixes with confidence ≥ 0.90." in html
        assert '<div id="bulk-accept" class="bulk">' in html  # inside the column, not OOB
        assert [status_of(f) for f in review.fixes] == ["accepted", "accepted", "proposed"]

    @pytest.mark.parametrize("bad", ["abc", "1.5", "-0.1", "nan"])
    def test_a_bad_threshold_is_a_clear_error_that_changes_nothing(
        self, client: Client, review: Review, bad: str
    ) -> None:
        response = client.post(url("fixes_bulk_accept", review), {"min_confidence": bad}, **HX)
        assert response.status_code == 400
        assert "The confidence threshold must be" in response.content.decode()
        assert {status_of(f) for f in review.fixes} == {"proposed"}

    def test_without_javascript_it_redirects(self, client: Client, review: Review) -> None:
        response = client.post(
            url("fixes_bulk_accept", review), {"min_confidence": "0.7"}, follow=True
        )
        assert "Accepted 3 fixes with confidence ≥ 0.70." in messages_of(response)


class TestApply:
    def test_apply_creates_the_next_revision_and_polls_its_validation(
        self, client: Client, review: Review
    ) -> None:
        for fix in review.fixes[:2]:
            client.post(fix_url("accept", review, fix), **HX)
        response = client.post(url("fixes_apply", review), **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="review-main"')
        assert "Applied 2 fixes into revision 2; re-validating." in html
        status_url = url("analysis_status", review)
        assert (
            f'hx-get="{status_url}?revision=2&amp;status=validating" hx-trigger="every 1500ms"'
            in html
        )
        assert "✓ applied in revision 2" in html
        assert "These are the fixes of revision 1; revision 2 is being validated." in html
        revision = Revision.objects.get(analysis=review.analysis, number=2)
        assert (
            "= $14.8B" in revision.body and "22.5%" in revision.body and "$131.40" in revision.body
        )
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.VALIDATING

    def test_the_status_fragment_polls_until_done_then_swaps_the_page_in(
        self, client: Client, review: Review
    ) -> None:
        client.post(fix_url("accept", review, review.fixes[0]), **HX)
        client.post(url("fixes_apply", review), **HX)
        attempt = Attempt.objects.get(revision__analysis=review.analysis, revision__number=2)

        polling = client.get(url("analysis_status", review), **HX)
        assert polling.status_code == 200
        assert polling.content.decode().lstrip().startswith('<div id="validation-progress"')
        assert 'hx-trigger="every 1500ms"' in polling.content.decode()
        assert "queued" in polling.content.decode()

        Attempt.objects.filter(pk=attempt.pk).update(status="running")
        assert (
            ">running</strong>" in client.get(url("analysis_status", review), **HX).content.decode()
        )

        Attempt.objects.filter(pk=attempt.pk).update(
            status="done", decision="APPROVE", confidence=0.93, checks={}
        )
        Analysis.objects.filter(pk=review.analysis.pk).update(status=Analysis.Status.IN_REVIEW)
        done = client.get(url("analysis_status", review), **HX)
        assert done.status_code == 286  # stop polling
        assert done["HX-Retarget"] == "#review-main" and done["HX-Reswap"] == "outerHTML"
        html = done.content.decode()
        assert html.lstrip().startswith('<div id="review-main"')
        assert 'hx-trigger="every 1500ms"' not in html and "APPROVE · 0.93" in html
        watch = f"{url('analysis_status', review)}?revision=2&amp;status=in_review&amp;watch=1"
        assert watch in html  # the slow watch
        assert "Validation of revision 2 finished: APPROVE · 0.93." in html  # in the flash, OOB
        assert "revision 2" in html

    def test_a_plain_status_request_goes_to_the_page(self, client: Client, review: Review) -> None:
        response = client.get(url("analysis_status", review))
        assert response.status_code == 302

    def test_conflicts_are_shown_on_their_cards(self, client: Client, review: Review) -> None:
        overlapping = add_fix(
            review, "CapEx $0.7B = $15.8B", "CapEx $0.7B = $14.8B", confidence=0.8
        )
        client.post(fix_url("accept", review, review.fixes[0]), **HX)
        client.post(fix_url("accept", review, overlapping), **HX)
        response = client.post(url("fixes_apply", review), **HX)
        html = response.content.decode()
        assert "No revision was created. 2 conflicts: see the cards." in html
        assert html.count('class="state state--conflict">⚠ conflict</span>') == 2
        reason = Fix.objects.get(pk=overlapping.pk).reason
        assert reason and reason in html
        assert Revision.objects.filter(analysis=review.analysis).count() == 1

    def test_nothing_accepted_is_refused(self, client: Client, review: Review) -> None:
        response = client.post(url("fixes_apply", review), **HX)
        assert response.status_code == 409
        assert "No accepted fixes to apply." in response.content.decode()
        plain = client.post(url("fixes_apply", review), follow=True)
        assert "No accepted fixes to apply." in messages_of(plain)
        assert Revision.objects.filter(analysis=review.analysis).count() == 1


class TestSignOffAndReject:
    def test_sign_off_with_undecided_fixes_needs_the_override(
        self, client: Client, review: Review
    ) -> None:
        response = client.post(
            url("analysis_sign_off", review), {"comment": "Checked by hand.", "revision": "1"}, **HX
        )
        assert response.status_code == 409
        assert "not decided" in response.content.decode()
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW

    def test_sign_off_approves_with_a_comment(self, client: Client, review: Review) -> None:
        response = client.post(
            url("analysis_sign_off", review),
            {"comment": "Checked by hand.", "override": "1", "revision": "1"},
            **HX,
        )
        assert response.status_code == 200
        html = response.content.decode()
        assert "Signed off: the analysis is approved." in html and "✓ signed off" in html
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.APPROVED
        event = AuditEvent.objects.get(analysis=review.analysis, action=AuditEvent.Action.APPROVED)
        assert event.actor is not None
        assert (event.actor.username, event.comment) == ("dana", "Checked by hand.")

    def test_sign_off_with_accepted_fixes_pending_is_refused(
        self, client: Client, review: Review
    ) -> None:
        client.post(fix_url("accept", review, review.fixes[0]), **HX)
        page = client.get(url("analysis_review", review)).content.decode()
        assert re.search(r'<button type="button" class="btn" disabled title="Apply or undo', page)
        response = client.post(url("analysis_sign_off", review), {"revision": "1"}, **HX)
        assert response.status_code == 409
        assert "apply or undo them before signing off" in response.content.decode()
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW

    def test_reject_needs_a_comment(self, client: Client, review: Review) -> None:
        response = client.post(
            url("analysis_reject", review), {"comment": "", "revision": "1"}, **HX
        )
        assert response.status_code == 409
        assert "Say why the analysis is rejected." in response.content.decode()
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.IN_REVIEW
        client.post(
            url("analysis_reject", review), {"comment": "Evidence is stale.", "revision": 1}
        )
        assert Analysis.objects.get(pk=review.analysis.pk).status == Analysis.Status.REJECTED

    def test_a_closed_analysis_shows_no_actions(self, client: Client, review: Review) -> None:
        Analysis.objects.filter(pk=review.analysis.pk).update(status=Analysis.Status.REJECTED)
        html = client.get(url("analysis_review", review)).content.decode()
        assert 'data-action="accept"' not in html and "Reject analysis" not in html


class TestClaims:
    def test_claim_and_release(self, client: Client, review: Review, reviewer: Any) -> None:
        response = client.post(url("analysis_claim", review), **HX)
        assert "claimed by you · 30 min left" in response.content.decode()
        assert Analysis.objects.get(pk=review.analysis.pk).claimed_by == reviewer
        response = client.post(url("analysis_release", review), **HX)
        assert "You released your claim." in response.content.decode()
        assert Analysis.objects.get(pk=review.analysis.pk).claimed_by is None

    def test_someone_elses_claim_is_refused(
        self, client_for: Any, other_reviewer: Any, client: Client, review: Review
    ) -> None:
        client.post(url("analysis_claim", review))
        response = client_for(other_reviewer).post(fix_url("accept", review, review.fixes[0]), **HX)
        assert response.status_code == 409
        assert "Claimed by dana until" in response.content.decode()
        assert status_of(review.fixes[0]) == Fix.Status.PROPOSED


class TestRevalidate:
    def test_an_errored_attempt_can_be_rerun(self, client: Client, review: Review) -> None:
        Attempt.objects.filter(pk=review.attempt.pk).update(
            status="errored", error="LLM timed out", decision=""
        )
        html = client.get(url("analysis_review", review)).content.decode()
        assert "Validation errored:" in html and "LLM timed out" in html
        response = client.post(url("analysis_revalidate", review), **HX)
        assert response.status_code == 200
        assert "Re-validation queued." in response.content.decode()
        assert Attempt.objects.get(pk=review.attempt.pk).status == Attempt.Status.QUEUED
