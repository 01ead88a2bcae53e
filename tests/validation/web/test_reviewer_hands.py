"""Issue 28, the reviewer's side on the page: a reviewer's own fix from a selection mapped
back to the source, a FAIL in review with its checks explained, the nav count that stays
true, numbers for people in proofs, the favicon and the admin's labels."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from analyses.models import Analysis
from tests.validation.web.builders import BODY, Review, add_fix, make_review
from tests.validation.web.conftest import HX
from validation.models import Attempt, AuditEvent, Fix, Policy
from validation.web.rendering import render_report
from validation.web.selection import source_span

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client_for: Any, reviewer: Any) -> Client:
    reviewing: Client = client_for(reviewer)
    return reviewing


def _blocks(html: str) -> list[tuple[int, int]]:
    return [
        (int(a), int(b))
        for a, b in re.findall(r'data-src-start="(\d+)" data-src-end="(\d+)"', html)
    ]


# ---------------------------------------------------------------- selection -> source


def test_every_rendered_block_carries_the_source_offsets_it_came_from() -> None:
    source = "# Title\n\nRevenue was **$482.3 million** in 2024.\n\n- one\n- two\n"
    html = str(render_report(source))

    blocks = _blocks(html)

    assert [source[a:b] for a, b in blocks][:2] == [
        "# Title",
        "Revenue was **$482.3 million** in 2024.",
    ]
    assert "- one" in [source[a:b] for a, b in blocks]


def test_offsets_survive_the_finding_highlights() -> None:
    start = BODY.index("$15.8B")
    from validation.web.rendering import Highlight

    html = str(render_report(BODY, [Highlight(1, start, start + 6, "arithmetic")]))

    paragraph = next((a, b) for a, b in _blocks(html) if BODY[a:b].startswith("Novo"))
    assert BODY[paragraph[0] : paragraph[1]].endswith("= $15.8B.")


def test_a_selection_maps_back_through_markup_to_its_source() -> None:
    source = "Revenue was **$482.3 million** in [2024](https://x.test). The segment_1 grew."
    end = len(source)

    assert source_span(source, 0, end, "$482.3 million", 0) == (14, 28)
    span = source_span(source, 0, end, "segment_1 grew", 0)
    assert span is not None and source[span[0] : span[1]] == "segment_1 grew"
    assert source_span(source, 0, end, "not there", 0) is None


def test_of_two_occurrences_the_one_nearest_the_selection_is_taken() -> None:
    source = "10% in one year and 10% in the next"
    assert source_span(source, 0, len(source), "10%", 20) == (20, 23)
    assert source_span(source, 0, len(source), "10%", 0) == (0, 3)


# ---------------------------------------------------------------- the reviewer's own fix


def _author_url(review: Review) -> str:
    return reverse("fix_author", args=[review.analysis.pk])


def test_a_selection_becomes_a_reviewers_fix_card_with_htmx(
    client: Client, review: Review, reviewer: Any
) -> None:
    html = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()
    block = next((a, b) for a, b in _blocks(html) if BODY[a:b].startswith("Return on"))

    response = client.post(
        _author_url(review),
        {
            "find": "22.0%",
            "replace": "22.5%",
            "revision": "1",
            "src_start": str(block[0]),
            "src_end": str(block[1]),
            "sel_at": "32",
        },
        **HX,
    )

    assert response.status_code == 200
    fix = Fix.objects.get(origin=Fix.Origin.REVIEWER)
    assert (fix.find, fix.replace, fix.author_id) == ("22.0%", "22.5%", reviewer.pk)
    page = response.content.decode()
    assert f'id="fix-{fix.pk}"' in page and "written by dana" in page
    assert "checked" in page  # 0.225 is the evidence's roic
    assert 'id="nav-queue-count"' in page and 'hx-swap-oob="true"' in page
    assert AuditEvent.objects.filter(action="fix_authored", fix=fix).exists()


def test_a_plain_form_redirects_with_the_refusal_and_changes_nothing(
    client: Client, review: Review
) -> None:
    response = client.post(_author_url(review), {"find": "$15.5B", "replace": "$15.6B"})

    assert response.status_code == 302
    assert not Fix.objects.filter(origin=Fix.Origin.REVIEWER).exists()
    page = client.get(response["Location"]).content.decode()
    assert "Your fix was not added: The text to replace occurs 2 times" in page


def test_outsiders_get_404_and_submitters_403(
    client_for: Any, review: Review, outsider: Any, submitter: Any
) -> None:
    data = {"find": "WATCH", "replace": "HOLD"}
    assert client_for(outsider).post(_author_url(review), data).status_code == 404
    assert client_for(submitter).post(_author_url(review), data).status_code == 403
    assert not Fix.objects.filter(origin=Fix.Origin.REVIEWER).exists()


def test_the_write_a_fix_panel_and_key_are_on_the_page(client: Client, review: Review) -> None:
    html = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()
    assert 'id="own-fix"' in html and "Write a fix <kbd>w</kbd>" in html
    assert 'data-revision="1"' in html


# ---------------------------------------------------------------- FAIL in review


def test_a_fail_in_review_explains_its_checks_and_signs_off_only_with_a_comment(
    client: Client,
) -> None:
    review = make_review()
    Attempt.objects.filter(pk=review.attempt.pk).update(
        decision="FAIL",
        confidence=0.26,
        check_reasons={"claims_supported": "2 numbers found in no evidence"},
    )
    page = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()

    assert "Failed without a finding" not in page
    assert "<strong>Claims supported</strong> failed: 2 numbers found in no evidence" in page
    assert "The validator rated this FAIL" in page  # the sign-off form warns

    seen = {"revision": review.revision.number}  # the revision the reviewer read
    refused = client.post(reverse("analysis_sign_off", args=[review.analysis.pk]), seen, **HX)
    assert refused.status_code == 422 or refused.status_code == 409
    Fix.objects.filter(revision=review.revision).update(status="rejected", reason="no")
    client.post(
        reverse("analysis_sign_off", args=[review.analysis.pk]),
        {"comment": "False alarms: the numbers are in the filing.", **seen},
        **HX,
    )
    analysis = Analysis.objects.get(pk=review.analysis.pk)
    assert analysis.status == Analysis.Status.APPROVED
    event = AuditEvent.objects.get(action="approved")
    assert event.data["against_validator"] is True and event.data["decision"] == "FAIL"


# ---------------------------------------------------------------- the nav count


def test_the_dashboard_nav_shows_the_queue_count(client: Client, review: Review) -> None:
    html = client.get(reverse("dashboard")).content.decode()
    assert '<span id="nav-queue-count" class="count">(1)</span>' in html


def test_the_nav_count_follows_a_sign_off_out_of_band(client: Client, review: Review) -> None:
    Fix.objects.filter(revision=review.revision).update(status="rejected", reason="no")
    response = client.post(
        reverse("analysis_sign_off", args=[review.analysis.pk]),
        {"comment": "ok", "revision": review.revision.number},
        **HX,
    )
    html = response.content.decode()
    assert '<span id="nav-queue-count" class="count" hx-swap-oob="true"></span>' in html


# ---------------------------------------------------------------- numbers, small ones


def test_a_calculators_answer_reads_at_its_inputs_precision(client: Client, review: Review) -> None:
    fix = add_fix(
        review,
        "$131.40",
        "$134.22",
        "orphan",
        "deterministic",
        0.9,
        "calculator: 873 * 100000 = 87300000.0000000000",
        [("calculator", {"expression": "873 * 100000"}, "87300000.0000000000")],
        {"source_ref": "quote", "excerpt": "price 134.22"},
    )
    html = client.get(reverse("analysis_review", args=[review.analysis.pk])).content.decode()
    card = html[html.index(f'id="fix-{fix.pk}"') :]
    assert "87,300,000</button>" in card
    assert 'data-exact="87300000.0000000000"' in card


def test_favicon_ico_is_served_to_anyone(client_for: Any) -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")


def test_the_admin_labels_read_as_written() -> None:
    assert Policy._meta.get_field("llm_enabled").verbose_name == "LLM enabled"
    assert Policy._meta.get_field("api_rate_per_minute").verbose_name == "API rate per minute"


def test_a_selection_that_is_too_long_or_not_in_the_source_is_refused(
    client: Client, review: Review
) -> None:
    data = {"replace": "x", "revision": "1", "src_start": "0", "src_end": "20", "sel_at": "0"}

    too_long = client.post(_author_url(review), {**data, "find": "a" * 2001}, **HX)
    nowhere = client.post(_author_url(review), {**data, "find": "not in the report"}, **HX)
    no_revision = client.post(_author_url(review), {**data, "revision": "9", "find": "NVO"}, **HX)

    assert too_long.status_code == nowhere.status_code == no_revision.status_code == 409
    assert "Select less" in too_long.content.decode()
    assert "was not found in the report" in nowhere.content.decode()
    assert "There is no revision 9" in no_revision.content.decode()
    assert not Fix.objects.filter(origin=Fix.Origin.REVIEWER).exists()
