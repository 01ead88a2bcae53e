"""POST/GET /api/v1/analyses: ingest through analysis_submit, idempotency, detail, list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django import DjangoAssertNumQueries, Settings

from analyses.models import Analysis
from tests.support.review_data import add_fix, analysis_in_review
from validation.models import Attempt, AuditEvent, Fix, Policy

pytestmark = pytest.mark.django_db


def test_create_answers_201_with_the_analysis_and_queues_validation(
    writer: Any, bundle: Any
) -> None:
    response = writer.post("/analyses", bundle)
    assert response.status_code == 201
    data = response.json()
    analysis = Analysis.objects.get(pk=data["id"])
    assert data["url"] == f"/api/v1/analyses/{analysis.pk}"
    assert data["external_id"] == "nvo-2024-q4"
    assert analysis.submitter is not None and analysis.submitter.username == "pipeline"
    assert AuditEvent.objects.filter(analysis=analysis, action="ingested").exists()
    assert Attempt.objects.filter(analysis=analysis, status="queued").count() == 1


def test_resending_the_same_bundle_returns_the_same_analysis_with_200(
    writer: Any, bundle: Any
) -> None:
    first = writer.post("/analyses", bundle).json()
    again = writer.post("/analyses", bundle)
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    assert Analysis.objects.count() == 1


def test_other_content_under_the_same_external_id_is_409(
    writer: Any, bundle: Any, nothing_written: Any
) -> None:
    writer.post("/analyses", bundle)
    bundle["body"] += "\nOne more line."
    with nothing_written():
        response = writer.post("/analyses", bundle)
    assert response.status_code == 409
    assert "external_id" in response.json()["message"]


def test_external_ids_are_per_token_owner(writer: Any, outsider_api: Any, bundle: Any) -> None:
    first = writer.post("/analyses", bundle).json()
    bundle["body"] += "\nDifferent."
    other = outsider_api.post("/analyses", bundle)
    assert other.status_code == 201
    assert other.json()["id"] != first["id"]


def test_a_body_that_is_not_json_is_400(writer: Any, nothing_written: Any) -> None:
    with nothing_written():
        response = writer.post("/analyses", b"{not json")
    assert response.status_code == 400
    assert "malformed JSON" in response.json()["message"]


def test_a_body_that_is_not_utf8_is_400(writer: Any, nothing_written: Any) -> None:
    with nothing_written():
        response = writer.post("/analyses", b'{"query": "\xff\xfe"')
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("break_it", "field"),
    [
        (lambda b: b.pop("query"), "query"),
        (lambda b: b["evidence"][0].pop("source_ref"), "evidence[0].source_ref"),
        (lambda b: b.update(body=""), "body"),
        (lambda b: b.update(surprise=1), "surprise"),
    ],
)
def test_an_invalid_bundle_is_422_naming_the_field_and_writes_nothing(
    writer: Any, bundle: Any, nothing_written: Any, break_it: Any, field: Any
) -> None:
    break_it(bundle)
    with nothing_written():
        response = writer.post("/analyses", bundle)
    assert response.status_code == 422
    assert response.json()["field"] == field


@pytest.mark.parametrize(
    ("break_it", "where"),
    [
        (lambda b: b["evidence"][1].update(content="nul\x00"), "evidence[1].content"),
        (lambda b: b.update(query="q\x00"), "query"),
        (lambda b: b.update(fields={"decision\x00": "BUY"}), "fields key 'decision\\x00'"),
    ],
)
def test_a_nul_character_anywhere_in_the_json_is_400_naming_the_field(
    writer: Any, bundle: Any, nothing_written: Any, break_it: Any, where: Any
) -> None:
    break_it(bundle)
    with nothing_written():
        response = writer.post("/analyses", bundle)
    assert response.status_code == 400
    assert response.json()["message"] == f"{where}: contains a NUL character"


def test_a_body_over_the_limit_is_413_before_it_is_read(
    writer: Any, settings: Settings, nothing_written: Any
) -> None:
    settings.REDLINE_MAX_BODY_BYTES = 100
    settings.REDLINE_MAX_EVIDENCE_BYTES = 100
    with nothing_written():
        response = writer.post("/analyses", b" " * 1_000_300)
    assert response.status_code == 413
    assert "limit" in response.json()["message"]


def test_without_a_token_every_endpoint_is_401(db: None, bundle: Any) -> None:
    from tests.validation.api.conftest import ApiClient

    anonymous, wrong = ApiClient(None), ApiClient("rl_not-a-real-token")
    for client in (anonymous, wrong):
        for response in (
            client.post("/analyses", bundle),
            client.get("/analyses"),
            client.get("/analyses/1"),
            client.get("/exports/approved"),
        ):
            assert response.status_code == 401
            assert response.json()["field"] == "Authorization"
            assert response["WWW-Authenticate"] == "Bearer"


def test_a_revoked_token_is_401(pipeline_user: User, bundle: Any) -> None:
    from tests.validation.api.conftest import ApiClient
    from validation.services import api_token_create, api_token_revoke

    token, raw = api_token_create(user=pipeline_user, scope="write")
    api_token_revoke(token=token)
    assert ApiClient(raw).get("/analyses").status_code == 401


def test_a_read_token_cannot_write(reader: Any, bundle: Any, nothing_written: Any) -> None:
    with nothing_written():
        response = reader.post("/analyses", bundle)
    assert response.status_code == 403
    assert reader.get("/analyses").status_code == 200


def test_over_the_rate_is_429_with_retry_after(writer: Any) -> None:
    policy = Policy.load()
    policy.api_rate_per_minute = 2
    policy.save()
    assert writer.get("/analyses").status_code == 200
    assert writer.get("/analyses").status_code == 200
    response = writer.get("/analyses")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60


def test_get_shows_status_revision_attempts_findings_and_fixes(
    pipeline_user: User, reader: Any
) -> None:
    analysis = analysis_in_review(submitter=pipeline_user)
    add_fix(analysis, "$15.8B", "$14.8B")
    response = reader.get(f"/analyses/{analysis.pk}")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "in_review"
    assert data["current_revision"]["number"] == 1
    [attempt] = data["attempts"]
    assert attempt["decision"] == "REVISE"
    [fix] = attempt["fixes"]
    assert (fix["find"], fix["replace"], fix["status"]) == ("$15.8B", "$14.8B", "proposed")


def test_an_unknown_or_foreign_analysis_is_404(
    pipeline_user: User, reader: Any, outsider_api: Any
) -> None:
    analysis = analysis_in_review(submitter=pipeline_user)
    assert reader.get("/analyses/999999").status_code == 404
    response = outsider_api.get(f"/analyses/{analysis.pk}")
    assert response.status_code == 404
    assert "message" in response.json()


def test_a_reviewer_token_sees_every_analysis(reviewer: User, pipeline_user: User) -> None:
    from tests.validation.api.conftest import ApiClient
    from validation.services import api_token_create

    analysis = analysis_in_review(submitter=pipeline_user)
    client = ApiClient(api_token_create(user=reviewer, scope="read")[1])
    assert client.get(f"/analyses/{analysis.pk}").status_code == 200


def _ids(response: Any) -> list[int]:
    return [item["id"] for item in response.json()["items"]]


def test_list_filters_and_pages_with_a_cursor(pipeline_user: User, reader: Any) -> None:
    made = [analysis_in_review(submitter=pipeline_user, external_id=f"x{n}") for n in range(5)]
    failed = analysis_in_review(submitter=pipeline_user, status="failed", decision="FAIL")
    first = reader.get("/analyses", limit=3)
    assert _ids(first) == [failed.pk, made[4].pk, made[3].pk]
    cursor = first.json()["next_cursor"]
    second = reader.get("/analyses", limit=3, cursor=cursor)
    assert _ids(second) == [made[2].pk, made[1].pk, made[0].pk]
    assert second.json()["next_cursor"] is None
    assert _ids(reader.get("/analyses", status="failed")) == [failed.pk]
    assert _ids(reader.get("/analyses", verdict="FAIL")) == [failed.pk]
    assert _ids(reader.get("/analyses", external_id="x2")) == [made[2].pk]
    assert _ids(reader.get("/analyses", received_after="2999-01-01T00:00:00Z")) == []
    assert _ids(reader.get("/analyses", approved_after="2000-01-01T00:00:00Z")) == []


def test_list_with_a_bad_filter_is_422(reader: Any) -> None:
    response = reader.get("/analyses", status="nonsense")
    assert response.status_code == 422
    assert response.json()["field"] == "status"
    assert reader.get("/analyses", received_after="yesterday").status_code == 422


def test_the_openapi_schema_and_docs_are_served(client: Client) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    assert "/api/v1/analyses" in schema["paths"]
    assert "bearer" in json.dumps(schema["components"]["securitySchemes"]).lower()
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()


def test_fixes_listed_carry_their_proof(pipeline_user: User, reader: Any) -> None:
    analysis = analysis_in_review(submitter=pipeline_user)
    fix = add_fix(analysis, "$15.8B", "$14.8B")
    Fix.objects.filter(pk=fix.pk).update(verified_with="15.5 - 0.7 = 14.8")
    data = reader.get(f"/analyses/{analysis.pk}").json()
    assert data["attempts"][0]["fixes"][0]["verified_with"] == "15.5 - 0.7 = 14.8"


def test_date_filters_are_normalized_to_utc_and_out_of_range_is_422(reader: Any) -> None:
    # PostgreSQL refuses offsets beyond ±15:59; the API converts to UTC first.
    assert reader.get("/analyses", received_after="2656-12-14T02:58:00-19:42").status_code == 200
    assert reader.get("/exports/approved", since="2020-01-01T00:00:00+23:59").status_code == 200
    assert reader.get("/analyses", received_after="0001-01-01T00:00:00+05:00").status_code == 422


def test_an_ingest_makes_at_most_eight_queries(
    writer: Any, bundle: Any, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    """The token with its user and the Policy's rate (one query), then the transaction: the
    analysis, its evidence (one bulk insert), revision 1, the audit event and attempt 1, with
    BEGIN and COMMIT (SAVEPOINT and RELEASE inside a test's transaction). No lookup of the
    external_id first and no re-read of what was written."""
    writer.get("/analyses")  # the token's first use records last_used_at (one UPDATE)
    with django_assert_max_num_queries(8):
        response = writer.post("/analyses", bundle)
    assert response.status_code == 201
    assert Attempt.objects.filter(analysis_id=response.json()["id"]).count() == 1
