"""Pipelines in the API: a token sends into its pipeline and sees only that pipeline's
analyses (two tokens of one pipeline share them); a reviewer's token sees every pipeline and
filters by one; the exports filter too."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Pipeline
from tests.factories import UserFactory
from tests.validation.api.conftest import ApiClient
from validation.services import api_token_create, pipeline_create

pytestmark = pytest.mark.django_db


def _client(user: User, pipeline: Pipeline | None, scope: str = "write") -> ApiClient:
    return ApiClient(api_token_create(user=user, scope=scope, pipeline=pipeline)[1])


@pytest.fixture
def thesis() -> Pipeline:
    return pipeline_create(slug="thesis", name="Investment thesis")


def test_a_token_sends_into_its_pipeline_and_sees_only_its_analyses(
    thesis: Pipeline, bundle: Any
) -> None:
    agent = _client(UserFactory.create(username="agent"), thesis)
    colleague = _client(UserFactory.create(username="agent-2"), thesis, scope="read")
    stranger = _client(UserFactory.create(username="summariser"), None)

    created = agent.post("/analyses", bundle).json()

    assert created["pipeline"] == "thesis"
    assert colleague.get(f"/analyses/{created['id']}").status_code == 200
    assert stranger.get(f"/analyses/{created['id']}").status_code == 404
    assert [item["id"] for item in colleague.get("/analyses").json()["items"]] == [created["id"]]
    assert stranger.get("/analyses").json()["items"] == []


def test_the_same_external_id_in_two_pipelines_is_two_analyses(
    thesis: Pipeline, bundle: Any
) -> None:
    agent = _client(UserFactory.create(username="agent"), thesis)
    summariser = _client(UserFactory.create(username="summariser"), None)

    first = agent.post("/analyses", bundle)
    other = summariser.post("/analyses", bundle)
    again = agent.post("/analyses", bundle)

    assert (first.status_code, other.status_code, again.status_code) == (201, 201, 200)
    assert again.json()["id"] == first.json()["id"] != other.json()["id"]


def test_a_reviewers_token_sees_every_pipeline_and_filters_by_one(
    thesis: Pipeline, reviewer: User, bundle: Any
) -> None:
    agent = _client(UserFactory.create(username="agent"), thesis)
    summariser = _client(UserFactory.create(username="summariser"), None)
    mine = agent.post("/analyses", bundle).json()["id"]
    theirs = summariser.post("/analyses", bundle).json()["id"]
    review = _client(reviewer, None, scope="read")

    every = [item["id"] for item in review.get("/analyses").json()["items"]]
    only = [item["id"] for item in review.get("/analyses", pipeline="thesis").json()["items"]]

    assert sorted(every) == sorted([mine, theirs])
    assert only == [mine]
    assert review.get("/analyses", pipeline="no-such").json()["items"] == []
    assert review.get("/analyses", pipeline="bad slug!").status_code == 422
    assert review.get("/exports/approved", pipeline="thesis").status_code == 200


def test_a_token_of_an_inactive_pipeline_is_refused(thesis: Pipeline, bundle: Any) -> None:
    agent = _client(UserFactory.create(username="agent"), thesis)
    Pipeline.objects.filter(pk=thesis.pk).update(active=False)

    assert agent.post("/analyses", bundle).status_code == 401
