"""The queue: analyses by status with counts, filters, search, pagination, live rows while
validating, claim badges, and "Next"."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from analyses.models import Analysis
from tests.factories import AnalysisFactory, AttemptFactory, RevisionFactory
from tests.validation.web.builders import make_review
from tests.validation.web.conftest import hx
from validation.models import Attempt

pytestmark = pytest.mark.django_db

S = Analysis.Status


def analysis_with(status: str, *, title: str, decision: str = "", **fields: Any) -> Analysis:
    analysis = AnalysisFactory.create(title=title, status=status, **fields)
    revision = RevisionFactory.create(analysis=analysis, number=1)
    done = bool(decision)
    AttemptFactory.create(
        revision=revision,
        status=Attempt.Status.DONE if done else Attempt.Status.QUEUED,
        decision=decision,
        confidence=0.7 if done else None,
    )
    return analysis


class TestList:
    def test_shows_every_analysis_with_counts_per_status(
        self, client_for: Any, reviewer: Any
    ) -> None:
        analysis_with(S.IN_REVIEW, title="Alpha", decision="REVISE")
        analysis_with(S.IN_REVIEW, title="Beta", decision="RETRY")
        analysis_with(S.VALIDATING, title="Gamma")
        analysis_with(S.APPROVED, title="Delta", decision="APPROVE")
        response = client_for(reviewer).get(reverse("queue"))
        assert response.status_code == 200
        html = response.content.decode()
        for title in ("Alpha", "Beta", "Gamma", "Delta"):
            assert title in html
        counts = {value: count for value, _label, count in response.context["status_counts"]}
        assert counts == {
            "validating": 1,
            "in_review": 2,
            "approved": 1,
            "failed": 0,
            "rejected": 0,
        }
        assert "REVISE · 0.70" in html

    def test_a_verdict_that_is_not_approve_names_its_failed_checks(
        self, client_for: Any, reviewer: Any
    ) -> None:
        """At the approval threshold yet not approved: the row says why (issue 20)."""
        failed = {"claims_supported": False, "no_hallucinations": True, "query_addressed": True}
        for title, decision in (("Alpha", "REVISE"), ("Beta", "RETRY"), ("Gamma", "APPROVE")):
            analysis = analysis_with(S.IN_REVIEW, title=title, decision=decision)
            checks = failed if decision != "APPROVE" else {"claims_supported": True}
            Attempt.objects.filter(analysis=analysis).update(confidence=0.8, checks=checks)
        html = client_for(reviewer).get(reverse("queue")).content.decode()
        assert html.count('<span class="failed-checks">failed: Claims supported</span>') == 2
        assert "REVISE · 0.80" in html and "RETRY · 0.80" in html and "APPROVE · 0.80" in html

    def test_status_filter(self, client_for: Any, reviewer: Any) -> None:
        analysis_with(S.IN_REVIEW, title="Alpha", decision="REVISE")
        analysis_with(S.APPROVED, title="Delta", decision="APPROVE")
        html = client_for(reviewer).get(reverse("queue"), {"status": "approved"}).content.decode()
        assert "Delta" in html and "Alpha" not in html

    def test_decision_filter_uses_the_validators_last_decision(
        self, client_for: Any, reviewer: Any
    ) -> None:
        analysis_with(S.IN_REVIEW, title="Alpha", decision="REVISE")
        analysis_with(S.IN_REVIEW, title="Beta", decision="RETRY")
        html = client_for(reviewer).get(reverse("queue"), {"decision": "RETRY"}).content.decode()
        assert "Beta" in html and "Alpha" not in html

    def test_search_matches_title_and_query(self, client_for: Any, reviewer: Any) -> None:
        analysis_with(S.IN_REVIEW, title="Novo thesis", decision="REVISE", query="Owner earnings?")
        analysis_with(S.IN_REVIEW, title="Apple note", decision="REVISE", query="Services margin?")
        client = client_for(reviewer)
        assert "Novo thesis" in client.get(reverse("queue"), {"q": "novo"}).content.decode()
        by_query = client.get(reverse("queue"), {"q": "services"}).content.decode()
        assert "Apple note" in by_query and "Novo thesis" not in by_query

    def test_claimed_by_me_and_claim_badges(
        self, client_for: Any, reviewer: Any, other_reviewer: Any
    ) -> None:
        soon = timezone.now() + timedelta(minutes=12, seconds=30)
        analysis_with(
            S.IN_REVIEW, title="Mine", decision="REVISE", claimed_by=reviewer, claimed_until=soon
        )
        analysis_with(
            S.IN_REVIEW,
            title="Theirs",
            decision="REVISE",
            claimed_by=other_reviewer,
            claimed_until=soon,
        )
        client = client_for(reviewer)
        html = client.get(reverse("queue")).content.decode()
        assert "claimed by you · 13 min left" in html
        assert "claimed by sam · 13 min left" in html
        mine = client.get(reverse("queue"), {"mine": "1"}).content.decode()
        assert "Mine" in mine and "Theirs" not in mine

    def test_an_expired_claim_shows_no_badge(
        self, client_for: Any, reviewer: Any, other_reviewer: Any
    ) -> None:
        past = timezone.now() - timedelta(minutes=1)
        analysis_with(
            S.IN_REVIEW,
            title="Old",
            decision="REVISE",
            claimed_by=other_reviewer,
            claimed_until=past,
        )
        assert "badge--claim" not in client_for(reviewer).get(reverse("queue")).content.decode()

    def test_pagination_by_25(self, client_for: Any, reviewer: Any) -> None:
        for i in range(30):
            AnalysisFactory.create(title=f"Report {i:02d}", status=S.IN_REVIEW)
        client = client_for(reviewer)
        first = client.get(reverse("queue"))
        assert len(first.context["page_obj"].object_list) == 25
        assert "page 1 of 2" in first.content.decode()
        second = client.get(reverse("queue"), {"page": 2})
        assert len(second.context["page_obj"].object_list) == 5
        assert client.get(reverse("queue"), {"page": "zzz"}).status_code == 200

    def test_bad_filter_values_are_ignored(self, client_for: Any, reviewer: Any) -> None:
        analysis_with(S.IN_REVIEW, title="Alpha", decision="REVISE")
        response = client_for(reviewer).get(reverse("queue"), {"status": "nope", "decision": "<x>"})
        assert response.status_code == 200
        assert "Alpha" in response.content.decode()

    def test_a_submitter_sees_only_their_own(self, client_for: Any, submitter: Any) -> None:
        make_review(submitter=submitter, title="Mine")
        make_review(title="Someone else's")
        html = client_for(submitter).get(reverse("queue")).content.decode()
        assert "Mine" in html and "Someone else" not in html

    def test_htmx_filter_request_returns_only_the_results(
        self, client_for: Any, reviewer: Any
    ) -> None:
        analysis_with(S.IN_REVIEW, title="Alpha", decision="REVISE")
        response = client_for(reviewer).get(reverse("queue"), {"q": "alp"}, **hx("queue-results"))
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="queue-results"')
        assert "<html" not in html and "Alpha" in html
        assert "HX-Request" in response["Vary"]


class TestLiveRows:
    def test_a_validating_row_polls_every_two_seconds(self, client_for: Any, reviewer: Any) -> None:
        analysis = analysis_with(S.VALIDATING, title="Gamma")
        html = client_for(reviewer).get(reverse("queue")).content.decode()
        row_url = reverse("analysis_queue_row", args=[analysis.pk])
        assert f'hx-get="{row_url}" hx-trigger="every 2s"' in html

    def test_the_row_keeps_polling_while_validating(self, client_for: Any, reviewer: Any) -> None:
        analysis = analysis_with(S.VALIDATING, title="Gamma")
        response = client_for(reviewer).get(
            reverse("analysis_queue_row", args=[analysis.pk]), **hx()
        )
        assert response.status_code == 200
        assert 'hx-trigger="every 2s"' in response.content.decode()

    def test_the_row_stops_polling_once_done(self, client_for: Any, reviewer: Any) -> None:
        analysis = analysis_with(S.IN_REVIEW, title="Gamma", decision="REVISE")
        response = client_for(reviewer).get(
            reverse("analysis_queue_row", args=[analysis.pk]), **hx()
        )
        assert response.status_code == 286  # htmx: stop polling
        html = response.content.decode()
        assert html.lstrip().startswith("<tr")
        assert "hx-trigger" not in html
        assert "In review" in html and "REVISE" in html

    def test_a_plain_request_for_a_row_goes_to_the_review_page(
        self, client_for: Any, reviewer: Any
    ) -> None:
        analysis = analysis_with(S.IN_REVIEW, title="Gamma", decision="REVISE")
        response = client_for(reviewer).get(reverse("analysis_queue_row", args=[analysis.pk]))
        assert response.status_code == 302
        assert response["Location"] == reverse("analysis_review", args=[analysis.pk])


class TestNext:
    def test_claims_the_oldest_unclaimed_in_review_and_opens_it(
        self, client_for: Any, reviewer: Any, other_reviewer: Any
    ) -> None:
        soon = timezone.now() + timedelta(minutes=10)
        oldest = analysis_with(
            S.IN_REVIEW,
            title="Oldest",
            decision="REVISE",
            claimed_by=other_reviewer,
            claimed_until=soon,
        )
        second = analysis_with(S.IN_REVIEW, title="Second", decision="REVISE")
        analysis_with(S.IN_REVIEW, title="Third", decision="REVISE")
        Analysis.objects.filter(pk=oldest.pk).update(created_at=timezone.now() - timedelta(days=2))
        Analysis.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(days=1))
        response = client_for(reviewer).post(reverse("queue_next"))
        assert response.status_code == 302
        assert response["Location"] == reverse("analysis_review", args=[second.pk])
        assert Analysis.objects.get(pk=second.pk).claimed_by == reviewer

    def test_says_so_when_nothing_is_left(self, client_for: Any, reviewer: Any) -> None:
        client = client_for(reviewer)
        response = client.post(reverse("queue_next"), follow=True)
        assert response.redirect_chain == [(reverse("queue"), 302)]
        assert "Nothing left to review" in response.content.decode()
