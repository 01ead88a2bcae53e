"""Least privilege in the admin (issue 19): a staff member of the admin group could mint a
write token for the superuser and give their own group every permission. Now only
superusers manage users, groups and permissions; a staff member mints and revokes tokens
only for users whose permissions are a subset of theirs, never for a superuser; and every
token action is recorded with who did it for whom."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from redline_errors import NotAllowed
from tests.factories import UserFactory
from validation.models import ApiToken, ApiTokenEvent
from validation.services import api_token_create, api_token_may_manage, api_token_revoke

pytestmark = pytest.mark.django_db

TOKEN_ADD = "/admin/validation/apitoken/add/"
TOKEN_LIST = "/admin/validation/apitoken/"


@pytest.fixture
def staff_admin() -> User:
    user = UserFactory.create(username="ada-admin")
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get(name="admin"))
    return user


@pytest.fixture
def root() -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")


@pytest.fixture
def pipeline() -> User:
    """A pipeline account with no role: no permission the staff admin lacks."""
    return UserFactory.create(username="pipeline")


def _add_token(client: Any, user: User, scope: str = "write") -> Any:
    return client.post(TOKEN_ADD, {"user": user.pk, "name": "ci", "scope": scope}, follow=True)


# ---------------------------------------------------------------- tokens


def test_a_staff_admin_cannot_mint_a_token_for_the_superuser(
    client: Client, staff_admin: User, root: Any
) -> None:
    client.force_login(staff_admin)

    form = client.get(TOKEN_ADD).content.decode()
    response = client.post(TOKEN_ADD, {"user": root.pk, "name": "x", "scope": "write"})

    assert f'value="{root.pk}"' not in form
    assert response.status_code == 200  # the form again, with its error
    assert "Select a valid choice" in response.content.decode()
    assert not ApiToken.objects.filter(user=root).exists()
    assert not ApiTokenEvent.objects.exists()


def test_the_service_refuses_it_too_and_writes_nothing(staff_admin: User, root: Any) -> None:
    with pytest.raises(NotAllowed, match="superuser's tokens are managed by superusers only"):
        api_token_create(user=root, scope="write", actor=staff_admin)

    assert not ApiToken.objects.exists()
    assert not ApiTokenEvent.objects.exists()


def test_a_token_only_for_a_user_whose_permissions_are_a_subset_of_the_actors(
    staff_admin: User, pipeline: Any
) -> None:
    stronger = UserFactory.create(username="mallory")
    stronger.user_permissions.add(Permission.objects.get(codename="change_user"))
    reviewer = UserFactory.create(username="rita", groups=["reviewer"])

    assert api_token_may_manage(actor=staff_admin, subject=pipeline)
    assert api_token_may_manage(actor=staff_admin, subject=reviewer)  # reviewer ⊂ admin
    assert not api_token_may_manage(actor=staff_admin, subject=stronger)
    assert not api_token_may_manage(actor=reviewer, subject=staff_admin)
    with pytest.raises(NotAllowed, match="mallory holds permissions you do not"):
        api_token_create(user=stronger, scope="read", actor=staff_admin)


def test_a_staff_admin_mints_a_token_for_a_pipeline_user_and_it_is_recorded(
    client: Client, staff_admin: User, pipeline: Any
) -> None:
    client.force_login(staff_admin)

    response = _add_token(client, pipeline)

    assert response.status_code == 200
    token = ApiToken.objects.get(user=pipeline)
    (event,) = ApiTokenEvent.objects.all()
    assert (event.action, event.via, event.prefix, event.scope) == (
        "created",
        "admin",
        token.prefix,
        "write",
    )
    assert (event.actor, event.actor_name) == (staff_admin, "ada-admin")
    assert (event.subject, event.subject_name) == (pipeline, "pipeline")


def test_revoking_is_recorded_once_and_a_superusers_tokens_are_out_of_reach(
    client: Client, staff_admin: User, pipeline: Any, root: Any
) -> None:
    mine, _ = api_token_create(user=pipeline, scope="read", actor=staff_admin)
    roots, _ = api_token_create(user=root, scope="write", actor=root)
    client.force_login(staff_admin)

    listing = client.get(TOKEN_LIST).content.decode()
    client.post(TOKEN_LIST, {"action": "revoke", "_selected_action": [mine.pk, roots.pk]})
    client.post(TOKEN_LIST, {"action": "revoke", "_selected_action": [mine.pk]})

    assert roots.prefix not in listing
    mine.refresh_from_db()
    roots.refresh_from_db()
    assert mine.revoked_at is not None and roots.revoked_at is None
    revoked = ApiTokenEvent.objects.filter(action="revoked")
    assert [(e.prefix, e.actor_name, e.subject_name) for e in revoked] == [
        (mine.prefix, "ada-admin", "pipeline")
    ]
    with pytest.raises(NotAllowed):
        api_token_revoke(token=roots, actor=staff_admin)


def test_tokens_are_revoked_never_deleted(client: Client, staff_admin: User, pipeline: Any) -> None:
    token, _ = api_token_create(user=pipeline, scope="read", actor=staff_admin)
    client.force_login(staff_admin)

    response = client.post(reverse("admin:validation_apitoken_delete", args=[token.pk]))

    assert response.status_code == 403
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_superuser_may_mint_for_anyone_and_the_command_line_is_recorded_too(root: Any) -> None:
    token, _ = api_token_create(user=root, scope="write", actor=root, via="admin")
    out = StringIO()
    call_command("api_token", "create", "root", "--scope", "read", stdout=out, stderr=StringIO())
    call_command("api_token", "revoke", token.prefix, stdout=StringIO())

    events = list(ApiTokenEvent.objects.order_by("id"))
    assert [(e.action, e.via) for e in events] == [
        ("created", "admin"),
        ("created", "command"),
        ("revoked", "command"),
    ]
    assert events[0].actor == root
    assert events[1].actor is None and events[1].actor_name.startswith("shell:")


def test_token_events_are_view_only(client: Client, root: Any, pipeline: Any) -> None:
    api_token_create(user=pipeline, scope="read", actor=root)
    event = ApiTokenEvent.objects.get()
    client.force_login(root)

    assert client.get(reverse("admin:validation_apitokenevent_changelist")).status_code == 200
    change = reverse("admin:validation_apitokenevent_change", args=[event.pk])
    client.post(change, {"subject_name": "someone else"})
    assert client.get(reverse("admin:validation_apitokenevent_add")).status_code == 403
    event.refresh_from_db()
    assert event.subject_name == "pipeline"


# ---------------------------------------------------------------- users, groups, permissions


def test_a_staff_admin_cannot_give_their_group_every_permission(
    client: Client, staff_admin: User
) -> None:
    admin_group = Group.objects.get(name="admin")
    before = set(admin_group.permissions.values_list("pk", flat=True))
    client.force_login(staff_admin)

    response = client.post(
        reverse("admin:auth_group_change", args=[admin_group.pk]),
        {"name": "admin", "permissions": list(Permission.objects.values_list("pk", flat=True))},
    )

    assert response.status_code == 403
    assert set(admin_group.permissions.values_list("pk", flat=True)) == before


def test_a_staff_admin_cannot_make_a_group_or_join_one(client: Client, staff_admin: User) -> None:
    client.force_login(staff_admin)
    every_permission = list(Permission.objects.values_list("pk", flat=True))

    added = client.post(
        reverse("admin:auth_group_add"), {"name": "everything", "permissions": every_permission}
    )
    own = client.post(
        reverse("admin:auth_user_change", args=[staff_admin.pk]),
        {"username": "ada-admin", "groups": list(Group.objects.values_list("pk", flat=True))},
    )
    new_user = client.post(
        reverse("admin:auth_user_add"),
        {"username": "sock", "password1": "x-Very-long-pass-1", "password2": "x-Very-long-pass-1"},
    )

    assert (added.status_code, own.status_code, new_user.status_code) == (403, 403, 403)
    assert not Group.objects.filter(name="everything").exists()
    assert list(staff_admin.groups.values_list("name", flat=True)) == ["admin"]
    assert not User.objects.filter(username="sock").exists()


def test_the_admin_group_holds_no_permission_to_manage_users_or_groups() -> None:
    admin_group = Group.objects.get(name="admin")
    auth = set(
        admin_group.permissions.filter(content_type__app_label="auth").values_list(
            "codename", flat=True
        )
    )
    assert auth == {"view_user", "view_group", "view_permission"}


def test_a_staff_admin_still_sees_users_and_groups_but_not_superusers(
    client: Client, staff_admin: User, root: Any
) -> None:
    client.force_login(staff_admin)

    users = client.get(reverse("admin:auth_user_changelist"))
    groups = client.get(reverse("admin:auth_group_changelist"))

    assert users.status_code == groups.status_code == 200
    assert "ada-admin" in users.content.decode()
    assert ">root<" not in users.content.decode()


def test_a_superuser_manages_groups(client: Client, root: Any) -> None:
    client.force_login(root)

    response = client.post(reverse("admin:auth_group_add"), {"name": "auditors"})

    assert response.status_code == 302
    assert Group.objects.filter(name="auditors").exists()


def test_a_staff_admin_sees_only_the_token_events_of_users_they_may_manage(
    client: Client, staff_admin: User, pipeline: Any, root: Any
) -> None:
    api_token_create(user=pipeline, scope="read", actor=staff_admin)
    roots, _ = api_token_create(user=root, scope="write", actor=root)
    client.force_login(staff_admin)

    listing = client.get(reverse("admin:validation_apitokenevent_changelist")).content.decode()

    assert "pipeline" in listing
    assert roots.prefix not in listing


def test_a_staff_admin_edits_a_pipelines_policy_but_not_a_token_of_the_superuser(
    client: Client, staff_admin: User, root: User
) -> None:
    from analyses.models import Pipeline
    from tests.validation.test_admin import _policy_form
    from validation.models import Policy

    thesis = Pipeline.objects.create(slug="thesis", name="Thesis")
    client.force_login(staff_admin)

    added = client.post(
        "/admin/validation/policy/add/", {**_policy_form(citations="none"), "pipeline": thesis.pk}
    )
    forged = client.post(TOKEN_ADD, {"user": root.pk, "pipeline": thesis.pk, "scope": "write"})

    assert added.status_code == 302
    assert Policy.objects.get(pipeline=thesis).citations == "none"
    assert forged.status_code == 200  # "select a valid choice": the superuser is not offered
    assert not ApiToken.objects.filter(user=root).exists()
