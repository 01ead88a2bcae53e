"""The "New analysis" page: reviewers and admins paste a report and its evidence; it goes
through the ingest service (the API's rules and limits) and opens on its review page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from analyses.models import Analysis, Evidence, Pipeline
from tests.validation.web.conftest import HX
from validation.models import AuditEvent

URL = "/analyses/new/"
BODY = (
    "# NVO quick screen\n\n"
    "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B [gurufocus].\n\n"
    "**FINAL DECISION: WATCH**\n"
)


def form_data(*rows: dict[str, Any], **report: str) -> dict[str, Any]:
    """What the page posts: the report fields, then the evidence formset."""
    data: dict[str, Any] = {
        "pipeline": str(Pipeline.default().pk),
        "title": "NVO quick screen",
        "query": "Is Novo Nordisk (NVO) a buy?",
        "goals": "Owner earnings\n\nA decision\n",
        "body": BODY,
        "fields_json": '{"decision": "WATCH", "intrinsic_value": 152.4}',
        "external_id": "",
        "action": "submit",
        "evidence-TOTAL_FORMS": str(len(rows) + 1),
        "evidence-INITIAL_FORMS": "0",
        "evidence-MIN_NUM_FORMS": "0",
        "evidence-MAX_NUM_FORMS": "50",
        **report,
    }
    blank: dict[str, Any] = {}
    for index, row in enumerate([*rows, blank]):  # the last row is left blank, as a person would
        data[f"evidence-{index}-format"] = "text"
        for name, value in row.items():
            data[f"evidence-{index}-{name}"] = value
    return data


GURUFOCUS = {
    "source_ref": "gurufocus",
    "kind": "tool_output",
    "url": "https://www.gurufocus.com/stock/NVO/financials",
    "format": "json",
    "content": '{"operating_cash_flow": 15500000000, "capex": 700000000}',
}
ANNUAL_REPORT = {"source_ref": "annual-report", "content": "Operating cash flow was 15.5 billion."}


@pytest.fixture
def reviewer_client(reviewer: Any, client_for: Callable[..., Client]) -> Client:
    return client_for(reviewer)


def test_the_page_is_a_form_with_evidence_rows_and_a_nav_link(reviewer_client: Client) -> None:
    response = reviewer_client.get(URL)

    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/analyses/new/">New analysis</a>' in html
    assert 'enctype="multipart/form-data"' in html and 'name="csrfmiddlewaretoken"' in html
    for name in ("pipeline", "title", "query", "goals", "body", "fields_json", "external_id"):
        assert f'name="{name}"' in html
    assert 'name="evidence-0-source_ref"' in html and 'name="evidence-1-file"' in html
    assert "style=" not in html and "<script>" not in html  # CSP: no inline style or script


def test_a_report_with_text_and_json_evidence_is_ingested_and_opens_in_review(
    reviewer_client: Client, reviewer: Any
) -> None:
    response = reviewer_client.post(URL, form_data(GURUFOCUS, ANNUAL_REPORT))

    analysis = Analysis.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/analyses/{analysis.pk}/"
    assert (analysis.title, analysis.query) == ("NVO quick screen", "Is Novo Nordisk (NVO) a buy?")
    assert analysis.goals == ["Owner earnings", "A decision"]
    assert analysis.submitter == reviewer
    assert analysis.decision == "WATCH"
    evidence = {item.source_ref: item for item in Evidence.objects.filter(analysis=analysis)}
    assert evidence["gurufocus"].as_item().content == {
        "operating_cash_flow": 15500000000,
        "capex": 700000000,
    }
    assert evidence["gurufocus"].url == GURUFOCUS["url"]
    assert evidence["annual-report"].as_item().content == ANNUAL_REPORT["content"]
    assert AuditEvent.objects.filter(analysis=analysis, action="ingested").count() == 1
    page = reviewer_client.get(response["Location"])
    assert "submitted: validation is under way" in page.content.decode()


def test_an_uploaded_file_is_evidence_named_after_the_file(reviewer_client: Client) -> None:
    data = form_data(
        {"format": "json", "file": SimpleUploadedFile("filings.json", b'{"capex": 700000000}')}
    )

    response = reviewer_client.post(URL, data)

    assert response.status_code == 302
    item = Evidence.objects.get()
    assert (item.source_ref, item.as_item().content) == ("filings.json", {"capex": 700000000})


def test_a_bad_json_evidence_field_shows_its_error_and_writes_nothing(
    reviewer_client: Client, nothing_written: Callable[[], Any]
) -> None:
    bad = {**GURUFOCUS, "content": '{"capex": 700000000,}'}

    with nothing_written():
        response = reviewer_client.post(URL, form_data(ANNUAL_REPORT, bad))

    assert response.status_code == 422
    html = response.content.decode()
    assert "Nothing was submitted" in html
    assert "Not valid JSON: Expecting property name enclosed in double quotes" in html
    assert 'id="evidence-row-1" ' not in html  # the class marks the row, not the id
    assert 'class="evidence-row has-error" id="evidence-row-1"' in html
    assert "{&quot;capex&quot;: 700000000,}" in html  # what was typed is kept


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"query": ""}, "This field is required."),
        ({"fields_json": "[1, 2]"}, "Give the fields as one JSON object"),
        (
            {"fields_json": '{"decision": "buy now or never, whatever it takes"}'},
            "must be a short label",
        ),
    ],
)
def test_report_field_errors_are_shown_on_the_form(
    reviewer_client: Client,
    nothing_written: Callable[[], Any],
    change: dict[str, str],
    expected: str,
) -> None:
    with nothing_written():
        response = reviewer_client.post(URL, form_data(ANNUAL_REPORT, **change))

    assert response.status_code == 422
    assert expected in response.content.decode()


def test_ingest_rules_land_on_the_evidence_row_they_name(
    reviewer_client: Client, nothing_written: Callable[[], Any]
) -> None:
    bad_url = {"source_ref": "filing", "content": "x", "url": "not a url"}

    with nothing_written():
        response = reviewer_client.post(URL, form_data(ANNUAL_REPORT, bad_url))
        twice = reviewer_client.post(URL, form_data(ANNUAL_REPORT, GURUFOCUS, ANNUAL_REPORT))

    html = response.content.decode()
    assert response.status_code == 422
    assert "&#x27;not a url&#x27; is not a valid URL" in html  # the ingest's words, on row 2
    assert 'class="evidence-row has-error" id="evidence-row-1"' in html
    html = twice.content.decode()
    assert "evidence[2].source_ref &#x27;annual-report&#x27; is used more than once" in html
    assert 'class="evidence-row has-error" id="evidence-row-2"' in html


def test_the_size_limit_is_the_apis(
    reviewer_client: Client, settings: Any, nothing_written: Callable[[], Any]
) -> None:
    settings.REDLINE_MAX_BODY_BYTES = 100

    with nothing_written():
        response = reviewer_client.post(URL, form_data(ANNUAL_REPORT))

    assert response.status_code == 422
    assert "exceeds the 100-byte limit (REDLINE_MAX_BODY_BYTES)" in response.content.decode()


def test_half_filled_rows_and_file_problems_are_named(
    reviewer_client: Client, nothing_written: Callable[[], Any]
) -> None:
    rows = (
        {"content": "no name"},
        {"source_ref": "both", "content": "x", "file": SimpleUploadedFile("a.txt", b"y")},
        {"source_ref": "latin1", "file": SimpleUploadedFile("b.txt", b"caf\xe9")},
    )
    with nothing_written():
        response = reviewer_client.post(URL, form_data(*rows))

    html = response.content.decode()
    assert response.status_code == 422
    assert "Name the source (its source_ref)." in html
    assert "Give the content or a file, not both." in html
    assert "The file is not UTF-8 text (byte offset 3)." in html


def test_the_same_external_id_and_content_opens_the_existing_analysis(
    reviewer_client: Client,
) -> None:
    data = form_data(ANNUAL_REPORT, external_id="desk-1")
    first = reviewer_client.post(URL, data)
    again = reviewer_client.post(URL, form_data(ANNUAL_REPORT, external_id="desk-1"))

    assert Analysis.objects.count() == 1
    assert again["Location"] == first["Location"]


def test_htmx_gets_the_form_fragment_with_errors_or_a_client_redirect(
    reviewer_client: Client,
) -> None:
    bad = reviewer_client.post(URL, form_data({**GURUFOCUS, "content": "{"}), **HX)
    html = bad.content.decode()
    assert bad.status_code == 422
    assert html.lstrip().startswith('<form id="new-analysis-form"')
    assert "<html" not in html and "Not valid JSON" in html

    good = reviewer_client.post(URL, form_data(GURUFOCUS), **HX)
    analysis = Analysis.objects.get()
    assert good.status_code == 200
    assert good["HX-Redirect"] == f"/analyses/{analysis.pk}/"


@pytest.mark.parametrize("htmx", [False, True])
def test_add_a_row_keeps_what_was_typed_and_submits_nothing(
    reviewer_client: Client, htmx: bool
) -> None:
    data = form_data(ANNUAL_REPORT, title="Typed title", action="add_row")

    response = reviewer_client.post(URL, data, **(HX if htmx else {}))

    html = response.content.decode()
    assert response.status_code == 200
    assert Analysis.objects.count() == 0
    assert 'value="Typed title"' in html and "Operating cash flow was 15.5 billion." in html
    assert 'name="evidence-TOTAL_FORMS" value="3"' in html
    assert 'name="evidence-2-source_ref"' in html
    assert "field-error" not in html and "Nothing was submitted" not in html


def test_an_admin_may_submit(admin_user: Any, client_for: Callable[..., Client]) -> None:
    response = client_for(admin_user).post(URL, form_data(ANNUAL_REPORT))

    assert response.status_code == 302
    assert Analysis.objects.get().submitter == admin_user


def test_an_outsider_never_sees_the_page(
    outsider: Any, client_for: Callable[..., Client], nothing_written: Callable[[], Any]
) -> None:
    client = client_for(outsider)

    assert client.get(URL).status_code == 404
    with nothing_written():
        assert client.post(URL, form_data(ANNUAL_REPORT)).status_code == 404
    assert "New analysis" not in client.get("/").content.decode()


def test_anonymous_is_sent_to_log_in(client: Client) -> None:
    response = client.get(URL)

    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_post_without_the_csrf_token_is_refused(
    reviewer: Any, client_for: Callable[..., Client], nothing_written: Callable[[], Any]
) -> None:
    client = client_for(reviewer, enforce_csrf=True)
    with nothing_written():
        response = client.post(URL, form_data(ANNUAL_REPORT))

    assert response.status_code == 403


def test_other_methods_are_refused(reviewer_client: Client) -> None:
    assert reviewer_client.put(URL).status_code == 405


def test_too_many_rows_are_refused(
    reviewer_client: Client, nothing_written: Callable[[], Any]
) -> None:
    data = form_data(ANNUAL_REPORT)
    data["evidence-TOTAL_FORMS"] = "5000"

    with nothing_written():
        response = reviewer_client.post(URL, data)

    assert response.status_code == 422
    assert "Please submit at most 50 forms." in response.content.decode()


def test_the_pipeline_picked_is_the_analysis_pipeline(reviewer_client: Client) -> None:
    thesis = Pipeline.objects.create(slug="thesis", name="Thesis agent")
    Pipeline.objects.create(slug="retired", name="Retired", active=False)
    page = reviewer_client.get(URL).content.decode()
    assert ">Thesis agent (thesis)</option>" in page and "Retired" not in page
    assert f'<option value="{Pipeline.default().pk}" selected>' in page  # the default first

    response = reviewer_client.post(URL, form_data(ANNUAL_REPORT, pipeline=str(thesis.pk)))

    assert response.status_code == 302
    assert Analysis.objects.get().pipeline == thesis


def test_an_inactive_pipeline_is_refused(
    reviewer_client: Client, nothing_written: Callable[[], Any]
) -> None:
    retired = Pipeline.objects.create(slug="retired", name="Retired", active=False)

    with nothing_written():
        response = reviewer_client.post(URL, form_data(ANNUAL_REPORT, pipeline=str(retired.pk)))

    assert response.status_code == 422
    assert "Select a valid choice." in response.content.decode()


def test_an_external_id_is_unique_per_pipeline(reviewer_client: Client) -> None:
    thesis = Pipeline.objects.create(slug="thesis", name="Thesis agent")

    reviewer_client.post(URL, form_data(ANNUAL_REPORT, external_id="desk-1"))
    reviewer_client.post(
        URL, form_data(ANNUAL_REPORT, external_id="desk-1", pipeline=str(thesis.pk))
    )

    assert sorted(Analysis.objects.values_list("pipeline__slug", flat=True)) == [
        "default",
        "thesis",
    ]
