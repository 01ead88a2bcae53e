"""Property-based: requests generated from the OpenAPI schema (schemathesis) never get a 500,
and every error answer is the documented JSON."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from django.test import Client
from hypothesis import HealthCheck, settings

from tests.support.review_data import analysis_in_review
from validation.services import api_token_create

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())


@pytest.fixture
def token_and_analysis(db: None) -> tuple[str, int]:
    from tests.factories import UserFactory

    user = UserFactory.create(username="fuzzer")
    analysis = analysis_in_review(submitter=user, decision="RETRY", needs_new_input=True)
    return api_token_create(user=user, scope="write")[1], analysis.pk


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_request_the_schema_allows_gets_a_500(case: Any, token_and_analysis: Any) -> None:
    token, analysis_id = token_and_analysis
    if case.path_parameters and "analysis_id" in case.path_parameters:
        # Half the time an analysis that exists, so the endpoints run past their 404.
        given = case.path_parameters["analysis_id"]
        if isinstance(given, int) and given % 2 == 0:
            case.path_parameters["analysis_id"] = analysis_id
    sent = case.as_transport_kwargs(headers={"Authorization": f"Bearer {token}"})
    headers = {k: v for k, v in sent["headers"].items() if k.lower() != "content-type"}
    body = json.dumps(sent["json"]) if "json" in sent else sent.get("data", "")
    # Django's test client, not WSGI: it keeps the test's database connection open.
    response = Client().generic(
        sent["method"],
        sent["path"]
        + ("?" + urlencode(sent["query_string"], doseq=True) if sent["query_string"] else ""),
        body,
        content_type=sent["headers"].get("Content-Type", "application/json"),
        headers=headers,
    )
    assert response.status_code < 500, response.content[:2000]
    if response.status_code >= 400 and response.status_code != 405:  # 405: Django's own
        assert response["Content-Type"].startswith("application/json"), (
            sent,
            response.status_code,
            response.content[:300],
        )
        answer = response.json()
        assert isinstance(answer["message"], str) and answer["message"]
