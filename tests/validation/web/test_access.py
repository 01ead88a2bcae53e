"""Who may reach what: every page needs a login, outsiders get 404 (ids reveal nothing),
only reviewers may change anything (403), and every POST needs a CSRF token."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from analyses.models import Analysis
from tests.validation.web.builders import Review, make_review
from validation.models import Fix

pytestmark = pytest.mark.django_db

# (url name, method, takes a fix id, POST data)
ANALYSIS_GETS: list[tuple[str, dict[str, Any]]] = [
    ("analysis_review", {}),
    ("analysis_status", {}),
    ("analysis_queue_row", {}),
]
ANALYSIS_POSTS = [
    ("analysis_claim", {}),
    ("analysis_release", {}),
    ("fixes_apply", {}),
    ("analysis_sign_off", {"comment": "ok"}),
    ("analysis_reject", {"comment": "wrong evidence"}),
    ("analysis_revalidate", {}),
    ("fixes_bulk_accept", {"min_confidence": "0.5"}),
]
FIX_POSTS = [
    ("fix_accept", {}),
    ("fix_reject", {"reason": "not supported"}),
    ("fix_edit", {"replace": "$14.9B"}),
    ("fix_undo", {}),
]
ALL_POSTS = ANALYSIS_POSTS + FIX_POSTS


def url_for(name: str, review: Review) -> str:
    if name in dict(FIX_POSTS):
        return reverse(name, args=[review.analysis.pk, review.fixes[0].pk])
    return reverse(name, args=[review.analysis.pk])


def snapshot(review: Review) -> tuple[Any, ...]:
    analysis = Analysis.objects.get(pk=review.analysis.pk)
    fixes = tuple(Fix.objects.filter(revision=review.revision).values_list("status", "replace"))
    return analysis.status, analysis.claimed_by_id, fixes, review.analysis.revisions.count()


class TestAnonymous:
    @pytest.mark.parametrize("name", ["queue"])
    def test_queue_redirects_to_login(self, client: Client, name: str) -> None:
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=/")

    @pytest.mark.parametrize(("name", "data"), ANALYSIS_GETS)
    def test_gets_redirect_to_login(
        self, client: Client, review: Review, name: str, data: dict[str, str]
    ) -> None:
        response = client.get(url_for(name, review))
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")

    @pytest.mark.parametrize(("name", "data"), [*ALL_POSTS, ("queue_next", {})])
    def test_posts_redirect_to_login_and_change_nothing(
        self, client: Client, review: Review, name: str, data: dict[str, str]
    ) -> None:
        before = snapshot(review)
        url = reverse(name) if name == "queue_next" else url_for(name, review)
        response = client.post(url, data)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
        assert snapshot(review) == before


class TestOutsider:
    """A logged-in user with no role who did not submit the analysis."""

    def test_queue_shows_nothing_of_others(
        self, client_for: Any, outsider: Any, review: Review
    ) -> None:
        response = client_for(outsider).get(reverse("queue"))
        assert response.status_code == 200
        assert review.analysis.title not in response.content.decode()
        assert "Next" not in response.content.decode()

    @pytest.mark.parametrize(("name", "data"), ANALYSIS_GETS)
    def test_gets_are_404(
        self, client_for: Any, outsider: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        assert (
            client_for(outsider)
            .get(url_for(name, review), **{"HTTP_HX_REQUEST": "true"})
            .status_code
            == 404
        )
        assert client_for(outsider).get(url_for(name, review)).status_code == 404

    @pytest.mark.parametrize(("name", "data"), ALL_POSTS)
    def test_posts_are_404_and_change_nothing(
        self, client_for: Any, outsider: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        before = snapshot(review)
        assert client_for(outsider).post(url_for(name, review), data).status_code == 404
        assert snapshot(review) == before

    def test_unknown_ids_are_404(self, client_for: Any, reviewer: Any, review: Review) -> None:
        client = client_for(reviewer)
        assert client.get(reverse("analysis_review", args=[999_999])).status_code == 404
        assert (
            client.post(reverse("fix_accept", args=[review.analysis.pk, 999_999])).status_code
            == 404
        )

    def test_a_fix_of_another_analysis_is_404(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        other = make_review(title="Other")
        url = reverse("fix_accept", args=[review.analysis.pk, other.fixes[0].pk])
        assert client_for(reviewer).post(url).status_code == 404
        assert Fix.objects.get(pk=other.fixes[0].pk).status == Fix.Status.PROPOSED


class TestSubmitterWithoutRole:
    """The submitter may read their analysis but not act on it."""

    def test_can_read_the_review_page_without_actions(
        self, client_for: Any, submitter: Any, review: Review
    ) -> None:
        response = client_for(submitter).get(reverse("analysis_review", args=[review.analysis.pk]))
        assert response.status_code == 200
        html = response.content.decode()
        assert "NVO — investment thesis" in html
        assert 'data-action="accept"' not in html
        assert "Apply accepted fixes" not in html
        assert "Sign off" not in html

    @pytest.mark.parametrize(("name", "data"), ALL_POSTS)
    def test_posts_are_403_and_change_nothing(
        self, client_for: Any, submitter: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        before = snapshot(review)
        response = client_for(submitter).post(url_for(name, review), data, HTTP_HX_REQUEST="true")
        assert response.status_code == 403
        assert snapshot(review) == before

    def test_next_is_403(self, client_for: Any, submitter: Any, review: Review) -> None:
        assert client_for(submitter).post(reverse("queue_next")).status_code == 403
        assert Analysis.objects.get(pk=review.analysis.pk).claimed_by_id is None


class TestCsrf:
    @pytest.mark.parametrize(("name", "data"), [*ALL_POSTS, ("queue_next", {})])
    def test_post_without_token_is_403_and_changes_nothing(
        self, client_for: Any, reviewer: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        client = client_for(reviewer, enforce_csrf=True)
        before = snapshot(review)
        url = reverse(name) if name == "queue_next" else url_for(name, review)
        response = client.post(url, data, HTTP_HX_REQUEST="true")
        assert response.status_code == 403
        assert snapshot(review) == before

    def test_the_htmx_header_token_from_the_page_is_accepted(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        client = client_for(reviewer, enforce_csrf=True)
        page = client.get(reverse("analysis_review", args=[review.analysis.pk]))
        token = page.context["csrf_token"]
        assert f'hx-headers=\'{{"X-CSRFToken": "{token}"}}\'' in page.content.decode()
        response = client.post(
            url_for("fix_accept", review), HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=str(token)
        )
        assert response.status_code == 200
        assert Fix.objects.get(pk=review.fixes[0].pk).status == Fix.Status.ACCEPTED

    def test_the_form_token_is_accepted_without_javascript(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        client = client_for(reviewer, enforce_csrf=True)
        page = client.get(reverse("analysis_review", args=[review.analysis.pk]))
        token = str(page.context["csrf_token"])
        response = client.post(url_for("fix_accept", review), {"csrfmiddlewaretoken": token})
        assert response.status_code == 302
        assert Fix.objects.get(pk=review.fixes[0].pk).status == Fix.Status.ACCEPTED


class TestMethods:
    @pytest.mark.parametrize(("name", "data"), ALL_POSTS)
    def test_actions_refuse_get(
        self, client_for: Any, reviewer: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        assert client_for(reviewer).get(url_for(name, review)).status_code == 405

    @pytest.mark.parametrize(("name", "data"), ANALYSIS_GETS)
    def test_pages_refuse_post(
        self, client_for: Any, reviewer: Any, review: Review, name: str, data: dict[str, str]
    ) -> None:
        assert client_for(reviewer).post(url_for(name, review)).status_code == 405

    def test_queue_refuses_post_and_next_refuses_get(self, client_for: Any, reviewer: Any) -> None:
        client = client_for(reviewer)
        assert client.post(reverse("queue")).status_code == 405
        assert client.get(reverse("queue_next")).status_code == 405


class TestRoles:
    def test_admin_group_members_review_too(
        self, client_for: Any, admin_user: Any, review: Review
    ) -> None:
        response = client_for(admin_user).post(
            url_for("fix_accept", review), HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
        assert Fix.objects.get(pk=review.fixes[0].pk).reviewer == admin_user

    def test_a_reviewer_cannot_change_the_policy_in_admin(
        self, client_for: Any, reviewer: Any
    ) -> None:
        response = client_for(reviewer).get("/admin/validation/policy/1/change/")
        assert response.status_code in (302, 403)
        if response.status_code == 302:
            assert "/admin/login/" in response["Location"]
