"""API tokens: shown once, stored hashed, revocable, last-used; the command and the admin."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from validation.models import ApiToken
from validation.services import api_token_authenticate, api_token_create, api_token_revoke

pytestmark = pytest.mark.django_db


def test_a_token_is_stored_only_as_its_hash(pipeline_user: User) -> None:
    token, raw = api_token_create(user=pipeline_user, scope="write")
    assert raw.startswith("rl_") and len(raw) > 40
    assert token.token_sha256 == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in str(ApiToken.objects.filter(pk=token.pk).values().get())


def test_authenticate_records_last_use_and_refuses_revoked(pipeline_user: User) -> None:
    token, raw = api_token_create(user=pipeline_user, scope="read")
    assert api_token_authenticate(raw) == token
    token.refresh_from_db()
    assert token.last_used_at is not None
    api_token_revoke(token=token)
    assert api_token_authenticate(raw) is None
    assert api_token_authenticate("rl_unknown") is None


def test_an_inactive_users_token_is_refused(pipeline_user: User) -> None:
    _, raw = api_token_create(user=pipeline_user, scope="read")
    pipeline_user.is_active = False
    pipeline_user.save()
    assert api_token_authenticate(raw) is None


def test_command_creates_prints_once_lists_and_revokes(pipeline_user: User) -> None:
    out = StringIO()
    call_command(
        "api_token", "create", "pipeline", "--scope", "write", stdout=out, stderr=StringIO()
    )
    raw = out.getvalue().strip()
    token = api_token_authenticate(raw)
    assert token is not None and token.scope == "write"
    listing = StringIO()
    call_command("api_token", "list", stdout=listing)
    assert token.prefix in listing.getvalue() and raw not in listing.getvalue()
    call_command("api_token", "revoke", token.prefix, stdout=StringIO())
    assert api_token_authenticate(raw) is None
    with pytest.raises(CommandError):
        call_command("api_token", "create", "nobody", stdout=StringIO())


def test_admin_adds_a_token_shows_it_once_and_revokes(
    admin_user: User, pipeline_user: User, client: Client
) -> None:
    admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    response = client.post(
        "/admin/validation/apitoken/add/",
        {"user": pipeline_user.pk, "name": "ci", "scope": "write"},
        follow=True,
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(name="ci")
    shown = [str(m) for m in response.context["messages"]]
    assert any(token.prefix in message for message in shown)
    client.post(
        "/admin/validation/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_a_token_for_a_user_that_does_not_exist_says_how_to_create_one(db: None) -> None:
    with pytest.raises(CommandError, match="add --create-user to create this one"):
        call_command("api_token", "create", "pipeline", "--scope", "write", stdout=StringIO())
    assert not User.objects.filter(username="pipeline").exists()

    out, err = StringIO(), StringIO()
    call_command(
        "api_token",
        "create",
        "pipeline",
        "--scope",
        "write",
        "--create-user",
        stdout=out,
        stderr=err,
    )
    token = api_token_authenticate(out.getvalue().strip())
    assert token is not None and token.user.username == "pipeline" and token.scope == "write"
    assert not token.user.has_usable_password()  # it cannot log in to the review screens
    assert not token.user.groups.exists()
    assert "Created the user 'pipeline'" in err.getvalue()
    # An existing user is used as it is, --create-user or not.
    again = StringIO()
    call_command(
        "api_token", "create", "pipeline", "--create-user", stdout=again, stderr=StringIO()
    )
    assert api_token_authenticate(again.getvalue().strip()).user == token.user  # type: ignore[union-attr]
