from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from validation.services import api_token_create


class ApiClient:
    """A test client that speaks JSON with one bearer token."""

    def __init__(self, token: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(f"/api/v1{path}", params, headers=self.headers)

    def post(self, path: str, data: Any, **extra: Any) -> Any:
        body = data if isinstance(data, bytes | str) else __import__("json").dumps(data)
        return self.client.post(
            f"/api/v1{path}",
            body,
            content_type="application/json",
            headers=self.headers,
            **extra,
        )


@pytest.fixture(autouse=True)
def _fresh_rate_counts() -> None:
    cache.clear()


@pytest.fixture
def pipeline_user(db: None) -> User:
    from tests.factories import UserFactory

    return UserFactory.create(username="pipeline")


@pytest.fixture
def writer(pipeline_user: User) -> ApiClient:
    return ApiClient(api_token_create(user=pipeline_user, scope="write")[1])


@pytest.fixture
def reader(pipeline_user: User) -> ApiClient:
    return ApiClient(api_token_create(user=pipeline_user, scope="read")[1])


@pytest.fixture
def outsider_api(db: None) -> ApiClient:
    """A token of another pipeline (and another user)."""
    from analyses.models import Pipeline
    from tests.factories import UserFactory

    other = Pipeline.objects.create(slug="other", name="Another pipeline")
    user = UserFactory.create(username="other")
    return ApiClient(api_token_create(user=user, scope="write", pipeline=other)[1])
