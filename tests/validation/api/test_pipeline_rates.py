"""The per-token API rate is that of the token's pipeline's policy: its own when it has one,
else the default's (real requests through the API)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.factories import UserFactory
from tests.validation.api.conftest import ApiClient
from validation.services import api_token_create, pipeline_create, policy_set

pytestmark = pytest.mark.django_db


def _statuses(client: ApiClient, n: int) -> list[int]:
    return [client.get("/analyses").status_code for _ in range(n)]


def test_each_token_gets_the_rate_of_its_pipeline_policy(pipeline_user: User) -> None:
    thesis, plain = pipeline_create(slug="thesis"), pipeline_create(slug="plain")
    policy_set(pipeline=thesis, assignments=["api_rate_per_minute=2"])
    policy_set(pipeline=None, assignments=["api_rate_per_minute=4"])
    own = ApiClient(api_token_create(user=pipeline_user, scope="read", pipeline=thesis)[1])
    other = UserFactory.create(username="plain-sender")
    default = ApiClient(api_token_create(user=other, scope="read", pipeline=plain)[1])

    assert _statuses(own, 3) == [200, 200, 429]
    assert _statuses(default, 5) == [200, 200, 200, 200, 429]


def test_a_pipeline_policy_set_later_changes_its_tokens_rate(pipeline_user: User) -> None:
    thesis = pipeline_create(slug="thesis")
    policy_set(pipeline=None, assignments=["api_rate_per_minute=1"])
    client = ApiClient(api_token_create(user=pipeline_user, scope="read", pipeline=thesis)[1])
    assert _statuses(client, 2) == [200, 429]

    policy_set(pipeline=thesis, assignments=["api_rate_per_minute=3"])

    assert _statuses(client, 2) == [200, 429]  # third and fourth of this minute
