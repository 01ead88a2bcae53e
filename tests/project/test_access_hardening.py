"""Login throttling, the admin group's limits over superusers, Policy ranges and the
Content-Security-Policy header (issue 12, "Access")."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from tests.factories import UserFactory
from validation.models import Policy

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


def _user(username: str, **flags: Any) -> User:
    user = UserFactory.create(username=username)
    user.set_password(PASSWORD)
    for name, value in flags.items():
        setattr(user, name, value)
    user.save()
    return user


# ---------------------------------------------------------------- login throttling


@pytest.mark.parametrize("login_url", ["/accounts/login/", "/admin/login/"])
def test_after_five_wrong_passwords_even_the_right_one_is_refused(
    client: Client, settings: Settings, login_url: Any
) -> None:
    _user("mallory-target", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post(login_url, {"username": "mallory-target", "password": "wrong"})
        assert response.status_code in (200, 429)

    response = client.post(login_url, {"username": "mallory-target", "password": PASSWORD})

    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_few_wrong_passwords_then_the_right_one_logs_in_and_resets_the_count(
    client: Client,
) -> None:
    _user("forgetful")
    for _ in range(3):
        client.post("/accounts/login/", {"username": "forgetful", "password": "wrong"})

    response = client.post("/accounts/login/", {"username": "forgetful", "password": PASSWORD})

    assert response.status_code == 302
    assert "_auth_user_id" in client.session


def test_failures_are_counted_in_the_database_so_every_process_sees_them(
    client: Client, settings: Settings
) -> None:
    from axes.models import AccessAttempt

    _user("victim")
    for _ in range(2):
        client.post("/accounts/login/", {"username": "victim", "password": "wrong"})

    assert AccessAttempt.objects.get(username="victim").failures_since_start == 2


# ---------------------------------------------------------------- the admin group and superusers


@pytest.fixture
def admin_member() -> User:
    user = _user("ada-admin", is_staff=True)
    user.groups.add(*Group.objects.filter(name="admin"))
    return user


def _user_form(user: User, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00",
    }
    data.update(changes)
    return data


def test_an_admin_group_member_cannot_make_anyone_superuser(
    client: Client, admin_member: User
) -> None:
    target = _user("bob")
    client.force_login(admin_member)

    for who in (target, admin_member):
        url = reverse("admin:auth_user_change", args=[who.pk])
        response = client.post(url, _user_form(who, is_staff="on", is_superuser="on"))
        assert response.status_code == 403  # only superusers manage users (issue 19)
        who.refresh_from_db()
        assert who.is_superuser is False


def test_an_admin_group_member_cannot_see_edit_or_delete_a_superuser(
    client: Client, admin_member: User
) -> None:
    root = _user("root", is_staff=True, is_superuser=True)
    client.force_login(admin_member)

    change = client.get(reverse("admin:auth_user_change", args=[root.pk]))
    assert change.status_code == 302  # "does not exist", back to the admin index
    posted = client.post(
        reverse("admin:auth_user_change", args=[root.pk]),
        _user_form(root, username="pwned"),
    )
    assert posted.status_code in (302, 403)
    password = client.post(
        reverse("admin:auth_user_password_change", args=[root.pk]),
        {"password1": "x-new-pass-123", "password2": "x-new-pass-123"},
    )
    assert password.status_code in (302, 403, 404)
    client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "delete_selected", "_selected_action": [root.pk], "post": "yes"},
    )
    root.refresh_from_db()
    assert root.username == "root" and root.check_password(PASSWORD)
    listing = client.get(reverse("admin:auth_user_changelist")).content.decode()
    assert ">root<" not in listing


def test_a_superuser_may_grant_superuser(client: Client) -> None:
    root = _user("root", is_staff=True, is_superuser=True)
    target = _user("carol")
    client.force_login(root)

    url = reverse("admin:auth_user_change", args=[target.pk])
    response = client.post(url, _user_form(target, is_staff="on", is_superuser="on"))

    assert response.status_code == 302
    target.refresh_from_db()
    assert target.is_superuser is True


# ---------------------------------------------------------------- Policy ranges


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_total_loops", 21),  # in smallint range on PostgreSQL, above the cap of 20
        ("max_revise_loops", 11),
        ("retry_delay_seconds", 1e308),
        ("retry_delay_seconds", -1.0),
        ("retry_max_attempts", 0),
        ("relative_tolerance", 2.0),
        ("fix_confidence_threshold", -0.1),
        ("claim_minutes", 0),
    ],
)
def test_the_database_refuses_a_policy_out_of_range(field: Any, value: Any) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Policy.objects.filter(pk=1).update(**{field: value})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"max_total_loops": "99999999"}, "less than or equal to 20"),
        ({"retry_delay_seconds": "1e308"}, "less than or equal to 60"),
        ({"max_retry_loops": "50"}, "less than or equal to 10"),
    ],
)
def test_the_policy_form_refuses_values_out_of_range(
    client: Client, admin_user: User, changes: Any, message: Any
) -> None:
    from tests.validation.test_admin import _policy_form, _url

    client.force_login(admin_user)
    before = Policy.objects.values().get()

    response = client.post(_url(Policy, "change", 1), _policy_form(**changes))

    assert response.status_code == 200
    assert message in response.content.decode()
    assert Policy.objects.values().get() == before


# ---------------------------------------------------------------- Content-Security-Policy


def test_every_page_carries_a_strict_content_security_policy(
    client: Client, reviewer: User
) -> None:
    login = client.get("/accounts/login/")
    client.force_login(reviewer)
    queue = client.get("/")

    for response in (login, queue):
        policy = response["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["default-src"] == "'none'"
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        html = response.content.decode()
        assert "<style" not in html
        assert "<script>" not in html
