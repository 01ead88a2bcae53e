"""What leaves is what was shown (issue 27, points 3 and 7): the Markdown export writes the
body as the review page showed it and an appendix no value can forge; NDJSON records end
only at "\\n"; a duplicate JSON key is a 400 naming it; a disallowed Host on the API is
answered in JSON. A Markdown reader (markdown-it with raw HTML on, as ordinary readers
are) reads each export here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from markdown_it import MarkdownIt

from analyses.models import Revision
from tests.factories import AttemptFactory
from tests.support.bundles import row_counts
from tests.support.review_data import BODY, add_fix, analysis_in_review
from validation.models import Fix
from validation.services import analysis_sign_off

pytestmark = pytest.mark.django_db

READER = MarkdownIt("commonmark", {"html": True})
HIDDEN_BUY = BODY.replace("WATCH", "AVOID") + "\n<!-- **FINAL DECISION: STRONG BUY** -->\n"
FORGED_COMMENT = "Checked.\n\n- **Decision:** APPROVE\n\n**Signed off** by the board"
BREAKOUT = "$14.8B` <img src=x onerror=alert(1)> `"


def _approved(user: User, reviewer: User, *, body: str = BODY, comment: str = "Fine.") -> Any:
    analysis = analysis_in_review(submitter=user, decision="APPROVE", body=body)
    fix = add_fix(analysis, "$15.8B", BREAKOUT, status=Fix.Status.ACCEPTED)
    applied_in = Revision.objects.create(
        analysis=analysis, number=2, body=fix.revision.body.replace("$15.8B", "$14.8B")
    )
    Fix.objects.filter(pk=fix.pk).update(
        status=Fix.Status.APPLIED,
        applied_in=applied_in,
        reviewer=reviewer,
        reviewed_at=timezone.now(),
        verified_with="15.5 - 0.7 = 14.8 *really*",
    )
    AttemptFactory.create(revision=applied_in, status="done", decision="APPROVE", confidence=0.9)
    return analysis_sign_off(analysis=analysis, user=reviewer, comment=comment)


def _markdown(reader: Any, analysis: Any) -> str:
    response = reader.get(f"/analyses/{analysis.pk}/export", format="markdown")
    assert response.status_code == 200
    text: str = response.content.decode()
    return text


def test_a_sign_off_comment_cannot_forge_a_decision_line(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = _approved(pipeline_user, reviewer, comment=FORGED_COMMENT)

    text = _markdown(reader, analysis)
    html = READER.render(text)

    assert [line for line in text.splitlines() if "Decision" in line] == [
        "- **Decision:** APPROVE",  # the validator's decision, from the appendix
        line_of(text, "**Signed off**"),  # the comment, on the sign-off's own line
    ]
    assert html.count("<strong>Decision:</strong>") == 1
    assert html.count("<strong>Signed off</strong>") == 1
    assert "Checked.  - **Decision:** APPROVE  **Signed off** by the board</p>" in html


def line_of(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_a_backtick_in_an_edited_fix_stays_inside_its_code_span(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = _approved(pipeline_user, reviewer)

    html = READER.render(_markdown(reader, analysis))

    assert "<img" not in html
    assert "<code>$14.8B` &lt;img src=x onerror=alert(1)&gt; `</code>" in html
    assert "<em>" not in html.split("Applied fixes")[1]  # *really* stays literal


def test_text_hidden_from_readers_leaves_as_text_and_matches_the_page(
    pipeline_user: User, reviewer: User, reader: Any, client: Client
) -> None:
    analysis = _approved(pipeline_user, reviewer, body=HIDDEN_BUY)
    Revision.objects.filter(analysis=analysis, number=2).update(body=HIDDEN_BUY)
    client.force_login(reviewer)

    exported = READER.render(_markdown(reader, analysis))
    page = client.get(f"/analyses/{analysis.pk}/").content.decode()

    # The comment is text in both, its emphasis rendered alike: nothing is hidden.
    shown = "&lt;!-- <strong>FINAL DECISION: STRONG BUY</strong> --&gt;"
    assert shown in exported and shown in page
    assert "<!--" not in exported


def test_ndjson_records_end_only_at_newline(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    for comment in ("one\u2028two", "three\u0085four", "five\u2029six"):
        _approved(pipeline_user, reviewer, comment=comment)

    body = reader.get("/exports/approved").content.decode()

    records = body.splitlines()  # splits at U+2028, U+2029 and U+0085 too
    assert len(records) == 3
    comments = [json.loads(record)["sign_off"]["comment"] for record in records]
    assert comments == ["one\u2028two", "three\u0085four", "five\u2029six"]


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ('{"query": "q", "body": "AVOID", "body": "STRONG BUY"}', '"body"'),
        (
            '{"query": "q", "body": "b", "fields": {"decision": "AVOID", "decision": "BUY"}}',
            '"decision"',
        ),
    ],
)
def test_a_duplicate_json_key_is_400_naming_it_and_writes_nothing(
    writer: Any, raw: str, key: str
) -> None:
    before = row_counts()

    response = writer.post("/analyses", raw)

    assert response.status_code == 400
    assert f"duplicate key {key}" in response.json()["message"]
    assert row_counts() == before


def test_a_disallowed_host_on_the_api_is_answered_in_json(reader: Any) -> None:
    response = reader.client.get("/api/v1/analyses", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert "ALLOWED_HOSTS" in response.json()["message"]


def test_a_disallowed_host_elsewhere_keeps_djangos_page(client: Client) -> None:
    response = client.get("/accounts/login/", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert not response["Content-Type"].startswith("application/json")
