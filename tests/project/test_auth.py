"""Every page needs a login, except the login pages themselves."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RegexPattern, RoutePattern

pytestmark = pytest.mark.django_db

# The pages a stranger must be able to reach to log in at all.
# /favicon.ico: browsers ask for it before anyone logs in; it redirects to the static icon.
PUBLIC = {"/accounts/login/", "/admin/login/", "/favicon.ico"}


def _machine(path: str) -> bool:
    from project.middleware import MACHINE_PREFIXES

    return path.startswith(MACHINE_PREFIXES)


# "1" is a valid int, str, slug and path, and the pk of the first row: the likeliest real URL.
_SAMPLE_BY_CONVERTER = {
    "int": "1",
    "str": "1",
    "slug": "1",
    "path": "1",
    "uuid": str(uuid.UUID(int=1)),
}
_ROUTE_PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
_NAMED_GROUP = re.compile(r"\(\?P<\w+>((?:[^()]|\([^()]*\))*)\)")


def _sample_route(route: str) -> str:
    return _ROUTE_PARAM.sub(lambda m: _SAMPLE_BY_CONVERTER[m.group("converter") or "str"], route)


def _sample_regex(regex: str) -> str:
    """One concrete path the regex matches, good enough for Django's own URL regexes."""

    def group(match: re.Match[str]) -> str:
        body = match.group(1)
        if re.fullmatch(r"[\w|-]+", body):  # an alternation of words: take the first
            return body.split("|")[0]
        if "\\d" in body:
            return "1"
        return "x"

    path = _NAMED_GROUP.sub(group, regex)
    return path.removeprefix("^").removesuffix("$").replace("\\Z", "").replace("\\", "")


def _pattern_sample(pattern: RoutePattern | RegexPattern | object) -> str:
    if isinstance(pattern, RoutePattern):
        return _sample_route(str(pattern._route))  # type: ignore[attr-defined]  # private
    if isinstance(pattern, RegexPattern):
        return _sample_regex(str(pattern._regex))  # type: ignore[attr-defined]  # private
    raise AssertionError(f"unknown URL pattern type {type(pattern).__name__}")


def all_url_paths(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = "/"
) -> Iterator[str]:
    """One concrete path for every URL pattern of the project, integers as 1."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        path = prefix + _pattern_sample(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from all_url_paths(entry.url_patterns, path)
        else:
            yield path


def test_the_url_walk_covers_the_whole_project() -> None:
    paths = list(all_url_paths())

    assert "/accounts/login/" in paths
    assert "/admin/analyses/analysis/1/change/" in paths
    assert "/admin/validation/policy/" in paths
    assert reverse("queue") in paths
    for path in paths:
        resolve(path)  # every sample really is a URL of the project
    assert len(paths) > 60


@pytest.mark.parametrize("path", sorted(p for p in all_url_paths() if _machine(p)))
def test_machine_endpoints_answer_for_themselves_never_a_login_redirect(
    client: Client, path: Any
) -> None:
    for response in (client.get(path), client.post(path, {})):
        assert response.status_code != 302, f"{path} redirected"


@pytest.mark.parametrize("path", sorted(set(all_url_paths()) - PUBLIC))
def test_an_anonymous_visitor_is_sent_to_the_login_page(client: Client, path: Any) -> None:
    if _machine(path):
        return
    response = client.get(path)

    if response.status_code in (404, 405):
        return
    assert response.status_code == 302, f"{path} answered {response.status_code}"
    assert response["Location"].startswith(("/accounts/login/?next=", "/admin/login/?next="))


@pytest.mark.parametrize("path", sorted(set(all_url_paths()) - PUBLIC))
def test_an_anonymous_post_is_sent_to_the_login_page_too(client: Client, path: Any) -> None:
    if _machine(path):
        return
    response = client.post(path, {"approve_threshold": "0.1"})

    assert response.status_code in (302, 403, 404, 405), f"{path} answered {response.status_code}"
    if response.status_code == 302:
        assert response["Location"].startswith(("/accounts/login/?next=", "/admin/login/?next="))


def test_the_login_page_is_public_and_has_a_form(client: Client) -> None:
    page = client.get("/accounts/login/")

    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="username"' in html and 'name="password"' in html
    assert "csrfmiddlewaretoken" in html


def test_a_reviewer_logs_in_and_lands_on_the_queue(client: Client, reviewer: User) -> None:
    response = client.post(
        "/accounts/login/", {"username": "dana", "password": "pw-for-tests-only"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("queue")
    assert client.get(reverse("queue")).status_code == 200


def test_after_login_the_visitor_returns_to_the_page_asked_for(
    client: Client, reviewer: User
) -> None:
    asked = client.get("/admin/")
    assert asked.status_code == 302

    response = client.post(
        "/accounts/login/",
        {"username": "dana", "password": "pw-for-tests-only", "next": "/?status=in_review"},
    )

    assert response["Location"] == "/?status=in_review"


def test_a_wrong_password_shows_an_error_and_logs_nobody_in(client: Client, reviewer: User) -> None:
    page = client.post("/accounts/login/", {"username": "dana", "password": "wrong"})

    assert page.status_code == 200
    assert "didn't match" in page.content.decode()
    assert client.get(reverse("queue")).status_code == 302


def test_the_login_page_does_not_redirect_to_another_site(client: Client, reviewer: User) -> None:
    response = client.post(
        "/accounts/login/",
        {"username": "dana", "password": "pw-for-tests-only", "next": "https://evil.example/"},
    )

    assert response["Location"] == reverse("queue")


def test_logging_out_needs_a_post_and_ends_the_session(client: Client, reviewer: User) -> None:
    client.force_login(reviewer)

    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")

    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert client.get(reverse("queue")).status_code == 302


@pytest.mark.parametrize(
    "path", ["/api/v1/analyses/", "/api/", "/metrics", "/healthz", "/readyz", "/healthz/"]
)
def test_machine_endpoints_are_never_sent_to_the_login_page(client: Client, path: Any) -> None:
    """The API, metrics and health checks answer programs (401 or 200 themselves); the login
    gate leaves them alone."""
    response = client.get(path)

    assert response.status_code in (200, 401, 403, 404)  # /metrics: 403 without its token


def test_a_path_that_only_starts_like_the_api_is_still_gated(client: Client) -> None:
    assert client.get("/apiary/").status_code == 302
