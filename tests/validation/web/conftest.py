from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.validation.web.builders import Review, make_review


@pytest.fixture(autouse=True)
def fast_password_hasher(settings: Any) -> None:
    # Users are created in nearly every test; PBKDF2 would dominate the run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def submitter(db: Any) -> Any:
    """A pipeline user with no role: sees the analyses they submitted, read-only."""
    return UserFactory.create(username="pipe")


@pytest.fixture
def review(submitter: Any) -> Review:
    return make_review(submitter=submitter)


@pytest.fixture
def client_for(db: Any) -> Callable[..., Client]:
    """A logged-in test client for `user` (enforce_csrf=True checks CSRF like a browser)."""

    def make(user: Any, *, enforce_csrf: bool = False) -> Client:
        client = Client(enforce_csrf_checks=enforce_csrf)
        client.force_login(user)
        return client

    return make


HX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


def counters(accepted: int, rejected: int, to_review: int) -> str:
    """The footer counters as the page renders them."""
    return (
        f"<strong>{accepted}</strong> accepted · <strong>{rejected}</strong> rejected · "
        f"<strong>{to_review}</strong> to review"
    )


def hx(target: str | None = None) -> dict[str, Any]:
    headers = dict(HX)
    if target:
        headers["HTTP_HX_TARGET"] = target
    return headers
