"""The Policy's LLM base URL (issue 19): the admin took http://169.254.169.254/ (a cloud
metadata address) without a word, and the worker would have sent the report there. Now
link-local, metadata and non-http(s) URLs are refused on save and again at use, unless
REDLINE_LLM_ALLOWED_HOSTS lists the host."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from pytest_django import Settings

from tests.validation.test_admin import _policy_form
from validation.engine.llm import LLMConfigError
from validation.engine.outbound import Profile, url_problem
from validation.models import Policy
from validation.services.llm import llm_settings

REFUSED = [
    ("http://169.254.169.254/latest/meta-data/", "a cloud metadata address"),
    ("http://metadata.google.internal/computeMetadata/v1/", "a cloud metadata service"),
    ("http://[fd00:ec2::254]/", "a cloud metadata address"),
    ("http://100.100.100.200/", "a cloud metadata address"),
    ("http://169.254.10.5:8000/v1", "a link-local address"),
    ("http://[fe80::1%25eth0]:8000/v1", "a link-local address"),
    ("http://[::ffff:169.254.169.254]/", "a cloud metadata address"),
    ("http://2852039166/", "a cloud metadata address"),  # 169.254.169.254 as one number
    ("http://0xa9fea9fe/", "a cloud metadata address"),
    ("file:///etc/passwd", "must be an http or https URL"),
    ("ftp://models.example.com/v1", "must be an http or https URL"),
    ("http://0.0.0.0:8000/v1", "an address no endpoint has"),
]
ALLOWED = [
    "https://api.openai.com/v1",
    "http://127.0.0.1:8088/v1",  # make run-llm's local server
    "http://10.0.0.7:8000/v1",  # vLLM on the private network
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_link_local_metadata_and_other_schemes_are_refused(url: str, reason: str) -> None:
    assert reason in url_problem(url, Profile.LLM, resolve=False)


@pytest.mark.parametrize("url", ALLOWED)
def test_ordinary_endpoints_are_allowed(url: str) -> None:
    assert url_problem(url, Profile.LLM, resolve=False) == ""


def test_a_listed_host_is_allowed_whatever_it_is() -> None:
    assert (
        url_problem("http://169.254.10.5:8000/v1", Profile.LLM, ["169.254.10.5"], resolve=False)
        == ""
    )


def test_a_name_is_checked_by_the_addresses_it_resolves_to(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    # A name its owner points at the metadata service (this machine has no DNS to ask).
    def resolve(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        address = "169.254.169.254" if host == "llm.attacker.example" else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert url_problem("http://llm.attacker.example/v1", Profile.LLM) == (
        "points at a cloud metadata address (llm.attacker.example, which is 169.254.169.254); "
        "list it in REDLINE_LLM_ALLOWED_HOSTS to allow it"
    )
    assert url_problem("http://localhost:8000/v1", Profile.LLM) == ""


@pytest.mark.django_db
def test_the_admin_refuses_a_metadata_url_and_keeps_the_policy(
    client: Client, admin_user: User
) -> None:
    client.force_login(admin_user)

    response = client.post(
        "/admin/validation/policy/1/change/",
        _policy_form(llm_base_url="http://169.254.169.254/latest/meta-data/"),
    )

    assert response.status_code == 200  # the form again
    assert "points at a cloud metadata address" in response.content.decode()
    assert Policy.load().llm_base_url == ""


@pytest.mark.django_db
def test_the_setting_lets_an_admin_name_a_link_local_host(
    client: Client, admin_user: User, settings: Settings
) -> None:
    settings.REDLINE_LLM_ALLOWED_HOSTS = ["169.254.10.5"]
    client.force_login(admin_user)

    response = client.post(
        "/admin/validation/policy/1/change/", _policy_form(llm_base_url="http://169.254.10.5/v1")
    )

    assert response.status_code == 302
    assert Policy.load().llm_base_url == "http://169.254.10.5/v1"


@pytest.mark.django_db
def test_a_policy_saved_before_the_rule_is_refused_at_use() -> None:
    Policy.objects.filter(pk=1).update(llm_base_url="http://169.254.169.254/v1")
    policy = Policy.load()

    with pytest.raises(ValidationError):
        policy.full_clean()
    with pytest.raises(LLMConfigError, match="Policy's LLM base URL points at a cloud metadata"):
        llm_settings(policy, environ={"REDLINE_LLM_BASE_URL": "https://api.example.com/v1"})
