"""The review page: header, report with highlighted findings, fix cards with their proof,
the other tabs, htmx fragments, sanitizing, and a constant number of queries."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from analyses.models import Analysis
from tests.factories import AttemptFactory, AuditEventFactory, RevisionFactory
from tests.validation.web.builders import XSS_BODY, Review, make_review, make_review_with_fixes
from tests.validation.web.conftest import counters, hx
from validation.models import Attempt, AuditEvent, Fix

pytestmark = pytest.mark.django_db


def page(client: Any, review: Review, **params: str) -> str:
    response = client.get(reverse("analysis_review", args=[review.analysis.pk]), params)
    assert response.status_code == 200
    html: str = response.content.decode()
    return html


def no_script(html: str) -> None:
    # Raw HTML in a report is shown as text (issue 27): only real tags could run anything.
    tags = " ".join(re.findall(r"<[^<>]*>", html))
    assert not re.search(r"<script(?![^>]*\bsrc=\"/static/)", tags), "an inline script survived"
    assert not re.search(r"\son[a-z]+\s*=", tags), "an event handler attribute survived"
    assert 'href="javascript:' not in tags.lower()


class TestHeader:
    def test_title_decision_checks_loops_and_claim(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        Analysis.objects.filter(pk=review.analysis.pk).update(
            claimed_by=reviewer, claimed_until=timezone.now() + timedelta(minutes=28)
        )
        Attempt.objects.filter(pk=review.attempt.pk).update(
            started_at=timezone.now() - timedelta(seconds=5),
            finished_at=timezone.now() - timedelta(seconds=4),
        )
        html = page(client_for(reviewer), review)
        assert "<h1>NVO — investment thesis</h1>" in html
        assert "REVISE · 0.64" in html
        assert "claimed by you · 28 min left" in html
        assert '✗</span><span class="sr-only">failed:</span> claims supported' in html
        assert '✓</span><span class="sr-only">passed:</span> query addressed' in html
        # Issue 11: loops say what is used and what is left (the first validation uses none).
        assert re.search(
            r"revision 1\s+· attempt 1\s+· <span[^>]*>loops used: REVISE 0 of 2, RETRY 0 of 1, "
            r"0 of 3 in all · <strong>2</strong> REVISE left",
            html,
        )
        # Finished 4 s before the page was asked for; more on a busy machine.
        assert re.search(r"validated <time[^>]*>[4-9] s ago</time> in 11 ms", html)


class TestReportTab:
    def test_findings_are_highlighted_at_their_spans(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review)
        by_find = {f.find: f for f in review.fixes}
        arithmetic = by_find["$15.8B"].finding_id
        close = by_find["22.0%"].finding_id
        orphan = by_find["$131.40"].finding_id
        assert re.search(
            rf'<mark class="finding finding--arithmetic" data-finding="{arithmetic}"'
            r"[^>]*>\$15\.8B</mark>",
            html,
        )
        assert re.search(
            rf'<mark class="finding finding--close-but-wrong" data-finding="{close}"'
            r"[^>]*>22\.0%</mark>",
            html,
        )
        assert re.search(
            rf'<mark class="finding finding--orphan" data-finding="{orphan}"[^>]*>\$131\.40</mark>',
            html,
        )

    def test_findings_are_listed_by_check(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review)
        findings = html[html.index('id="findings-title"') :]
        assert findings.index("claims supported") < findings.index("no hallucinations")
        assert "$131.40 is not supported by the evidence." in findings
        assert "orphan" in html[html.index('class="legend"') :]

    def test_the_report_is_sanitized(self, client_for: Any, reviewer: Any) -> None:
        review = make_review(body=XSS_BODY)
        html = page(client_for(reviewer), review)
        body = html[html.index('class="markdown report-body"') : html.index('id="findings-title"')]
        no_script(body)
        assert 'href="https://example.com/report" rel="noopener noreferrer"' in body

    def test_a_span_that_no_longer_matches_its_text_is_listed_but_not_marked(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        finding = review.fixes[0].finding
        assert finding is not None
        finding.text = "something else"
        finding.save()
        html = page(client_for(reviewer), review)
        assert (
            f'data-finding="{finding.pk}"'
            not in html.split('id="findings-title"')[0].split("report-body")[1]
        )
        assert finding.message in html


class TestFixCards:
    def test_one_card_per_fix_with_diff_proof_and_actions(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review)
        assert html.count('<article id="fix-') == 3
        assert html.count('class="fix-review" data-status="proposed"') == 3
        card = html[html.index(f'id="fix-{review.fixes[0].pk}"') :]
        card = card[: card.index("</article>")]
        assert "<del>$15.8B</del><ins>$14.8B</ins>" in card
        assert '<span class="ctx">…Cash Flow $15.5B - CapEx $0.7B = </span>' in card
        assert "calculator: 15.5 - 0.7 = 14.8" in card
        assert "calculator({&quot;expression&quot;: &quot;15.5 - 0.7&quot;})" in card
        assert "<code>14.8</code>" in card
        assert "gurufocus-nvo-2024 · capex" in card
        assert ">0.99<" in card and "arithmetic · deterministic" in card
        for action in ("accept", "reject", "edit"):
            assert f'data-action="{action}"' in card

    def test_evidence_links_are_only_http(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        fix = review.fixes[1]
        fix.evidence = [
            {"source_ref": "x", "url": "javascript:alert(1)", "excerpt": "e"},
            *fix.evidence,
        ]
        fix.save()
        html = page(client_for(reviewer), review)
        assert "javascript:" not in html
        # Issue 11: "open source" opens the stored evidence item, not the outside URL.
        assert "?tab=evidence#source-gurufocus" in html

    def test_accepted_card_says_who_and_offers_undo(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        Fix.objects.filter(pk=review.fixes[1].pk).update(
            status=Fix.Status.ACCEPTED, reviewer=reviewer, reviewed_at=timezone.now()
        )
        html = page(client_for(reviewer), review)
        card = html[html.index(f'id="fix-{review.fixes[1].pk}"') :]
        card = card[: card.index("</article>")]
        assert "✓ accepted by dana" in card
        assert 'data-action="undo"' in card and 'data-action="accept"' not in card

    def test_footer_counts_bulk_and_buttons(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        Fix.objects.filter(pk=review.fixes[1].pk).update(
            status=Fix.Status.ACCEPTED, reviewer=reviewer
        )
        html = page(client_for(reviewer), review)
        assert counters(1, 0, 2) in html
        assert re.search(r'data-action="apply">Apply accepted fixes', html)  # enabled
        assert 'value="0.90"' in html and "<span data-bulk-count>1</span>" in html  # 0.99 only
        assert "Apply or undo the accepted fixes first" in html  # sign-off disabled

    def test_cards_of_someone_elses_claim_have_no_actions(
        self, client_for: Any, reviewer: Any, other_reviewer: Any, review: Review
    ) -> None:
        Analysis.objects.filter(pk=review.analysis.pk).update(
            claimed_by=other_reviewer, claimed_until=timezone.now() + timedelta(minutes=5)
        )
        html = page(client_for(reviewer), review)
        assert "claimed by sam · 5 min left" in html
        assert 'data-action="accept"' not in html


class TestOtherTabs:
    def test_evidence_tab_pretty_prints_and_escapes(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review, tab="evidence")
        assert "Evidence (2)" in html
        assert "&quot;roic&quot;: 0.225" in html and "\n  &quot;capex&quot;: 0.7" in html
        assert "&lt;b&gt;not bold&lt;/b&gt;" in html
        # Issue 11: "open source" opens the stored evidence item, not the outside URL.
        assert "?tab=evidence#source-gurufocus" in html

    def test_revisions_tab_diffs_two_revisions(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        body2 = review.revision.body.replace("= $15.8B", "= $14.8B").replace("<", "&lt;")
        revision = RevisionFactory.create(
            analysis=review.analysis, number=2, body=body2 + "\n<script>window.__xss=1</script>\n"
        )
        AttemptFactory.create(revision=revision, status=Attempt.Status.QUEUED)
        html = page(client_for(reviewer), review, tab="revisions", a="1", b="2")
        assert "Revisions (2)" in html
        assert "<del>$15.8B</del><ins>$14.8B</ins>" in html
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html
        diff = html.split('class="diff"')[1].split("</table>")[0]
        assert "<script" not in diff  # shown as text, never as markup
        same = page(client_for(reviewer), review, tab="revisions", a="2", b="2")
        assert "compared with itself" in same
        assert page(client_for(reviewer), review, tab="revisions", a="x", b="99")  # defaults

    def test_attempts_tab_renders_the_record_sanitized(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        Attempt.objects.filter(pk=review.attempt.pk).update(error="")
        html = page(client_for(reviewer), review, tab="attempts")
        panel = html[html.index('id="tab-panel"') :]
        assert "<h2>7. Validation (Attempt 1)</h2>" in panel
        assert "REVISE · 0.64" in panel and "whole run" in panel and "11 ms" in panel
        no_script(panel.split("</nav>", 1)[1].split('id="fixes-column"')[0])

    def test_attempts_tab_shows_errors(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        revision = RevisionFactory.create(analysis=review.analysis, number=2, body="x")
        AttemptFactory.create(
            revision=revision, status=Attempt.Status.ERRORED, error="LLM timeout after 30 s"
        )
        html = page(client_for(reviewer), review, tab="attempts")
        assert "LLM timeout after 30 s" in html

    def test_audit_tab_lists_who_did_what(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        AuditEventFactory.create(
            analysis=review.analysis,
            actor=reviewer,
            action=AuditEvent.Action.FIX_REJECTED,
            fix=review.fixes[0],
            revision=review.revision,
            comment="<i>not</i> supported",
        )
        html = page(client_for(reviewer), review, tab="audit")
        assert "Audit (1)" in html
        assert f"Rejected fix · fix #{review.fixes[0].pk} · revision 1" in html
        assert "&lt;i&gt;not&lt;/i&gt; supported" in html and ">dana<" in html

    def test_an_unknown_tab_falls_back_to_the_report(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        assert 'class="markdown report-body"' in page(client_for(reviewer), review, tab="../../etc")


class TestHtmx:
    def test_a_tab_request_returns_only_the_tab_panel(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        url = reverse("analysis_review", args=[review.analysis.pk])
        response = client_for(reviewer).get(url, {"tab": "evidence"}, **hx("tab-panel"))
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="tab-panel"')
        assert "<html" not in html and "fix-card" not in html
        assert "gurufocus-nvo-2024" in html
        assert 'aria-current="page">Evidence (2)' in html

    def test_tabs_are_links_with_htmx_beside_href(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review)
        url = reverse("analysis_review", args=[review.analysis.pk])
        assert f'href="{url}?tab=audit" hx-get="{url}?tab=audit" hx-target="#tab-panel"' in html

    def test_a_history_restore_gets_the_whole_page(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        url = reverse("analysis_review", args=[review.analysis.pk])
        response = client_for(reviewer).get(
            url, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
        )
        assert "<html" in response.content.decode()

    def test_the_page_loads_htmx_and_review_js_from_static(
        self, client_for: Any, reviewer: Any, review: Review
    ) -> None:
        html = page(client_for(reviewer), review)
        assert '<script src="/static/js/htmx.min.js" defer></script>' in html
        assert '<script src="/static/js/review.js" defer></script>' in html
        assert "//cdn" not in html and "unpkg" not in html


class TestQueryCount:
    def count_queries(self, client: Any, review: Review, tab: str = "report") -> int:
        url = reverse("analysis_review", args=[review.analysis.pk])
        client.get(url, {"tab": tab})  # warm caches (content types, policy row)
        with CaptureQueriesContext(connection) as context:
            response = client.get(url, {"tab": tab})
        assert response.status_code == 200
        return len(context.captured_queries)

    @pytest.mark.parametrize("tab", ["report", "evidence", "revisions", "attempts", "audit"])
    def test_constant_in_the_number_of_fixes(
        self, client_for: Any, reviewer: Any, django_assert_max_num_queries: Any, tab: str
    ) -> None:
        client = client_for(reviewer)
        small = make_review_with_fixes(5, title="small")
        large = make_review_with_fixes(100, title="large")
        assert (
            len(large.fixes) == 100 and Fix.objects.filter(revision=large.revision).count() == 100
        )
        few = self.count_queries(client, small, tab)
        many = self.count_queries(client, large, tab)
        assert few == many
        url = reverse("analysis_review", args=[large.analysis.pk])
        with django_assert_max_num_queries(15):
            html = client.get(url, {"tab": tab}).content.decode()
        assert html.count('<article id="fix-') == 100
