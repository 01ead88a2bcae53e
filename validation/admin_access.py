"""Admin for who may do what: users, groups and API tokens, under least privilege.

Only superusers add, change or delete users and groups, and so only they grant permissions:
a staff member of the admin group sees users and groups, no more (and never a superuser).
A staff member with the token permissions mints and revokes tokens only for users whose
permissions are a subset of their own, never for a superuser
(``services.api_token_may_manage``: the rule the command line and the admin share). Every
token creation and revocation is an ``ApiTokenEvent`` naming who did it for whom, listed
here view-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied
from django.db.models import ForeignKey, QuerySet
from django.forms import ModelChoiceField, ModelForm
from django.http import HttpRequest

from analyses.admin import ViewOnlyAdminMixin
from redline_errors import NotAllowed
from validation.models import ApiToken, ApiTokenEvent
from validation.services import api_token_create, api_token_revoke, api_token_subjects


def _is_superuser(request: HttpRequest) -> bool:
    return bool(request.user.is_active and request.user.is_superuser)


class SuperuserManagesMixin:
    """Adding, changing and deleting are for superusers; others may at most view."""

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return _is_superuser(request) and super().has_add_permission(request, *args)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_superuser(request) and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_superuser(request) and super().has_delete_permission(request, obj)  # type: ignore[misc]


class RedlineUserAdmin(SuperuserManagesMixin, UserAdmin):  # type: ignore[type-arg]
    """Users: managed by superusers; a staff member sees the others, not superusers."""

    def get_queryset(self, request: HttpRequest) -> Any:
        queryset = super().get_queryset(request)
        if not _is_superuser(request):
            queryset = queryset.filter(is_superuser=False)
        return queryset


class RedlineGroupAdmin(SuperuserManagesMixin, GroupAdmin):
    """Groups and their permissions: managed by superusers only (a group with every
    permission, joined by its maker, would be a superuser by another name)."""


User_ = get_user_model()
for model, model_admin in ((User_, RedlineUserAdmin), (Group, RedlineGroupAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """Add creates a token and shows its secret once; tokens are revoked, never edited or
    deleted. A staff member sees, mints and revokes only tokens of users they may manage."""

    list_display = (
        "prefix",
        "user",
        "pipeline",
        "name",
        "scope",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("scope", "pipeline")
    search_fields = ("prefix", "user__username", "name")
    fields = (
        "user",
        "pipeline",
        "name",
        "scope",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ApiToken]:
        queryset = super().get_queryset(request).select_related("user", "pipeline")
        if not _is_superuser(request):
            queryset = queryset.filter(user_id__in=api_token_subjects(actor=_actor(request)))
        return queryset

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        if db_field.name == "user":
            # A user outside the list is refused by the form ("select a valid choice"), so a
            # forged POST cannot name a superuser either.
            kwargs["queryset"] = User.objects.filter(
                pk__in=api_token_subjects(actor=_actor(request))
            ).order_by("username")
        if db_field.name == "pipeline":
            kwargs["required"] = False
            kwargs["help_text"] = "The pipeline it sends for and sees. Blank: the default one."
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False  # revoke instead: a deleted token would leave no trace of its use

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("validation.delete_apitoken")

    def save_model(
        self, request: HttpRequest, obj: ApiToken, form: ModelForm[ApiToken], change: bool
    ) -> None:
        try:
            token, raw = api_token_create(
                user=obj.user,
                scope=obj.scope,
                name=obj.name,
                pipeline=obj.pipeline if obj.pipeline_id else None,
                actor=_actor(request),
                via="admin",
            )
        except NotAllowed as exc:
            raise PermissionDenied(str(exc)) from None
        obj.pk, obj.pipeline = token.pk, token.pipeline
        obj.prefix, obj.token_sha256, obj.created_at = (
            token.prefix,
            token.token_sha256,
            token.created_at,
        )
        messages.warning(request, f"The new token (shown once, stored hashed): {raw}")

    @admin.action(description="Revoke the selected tokens", permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        done = 0
        for token in queryset:
            try:
                api_token_revoke(token=token, actor=_actor(request), via="admin")
            except NotAllowed as exc:
                messages.error(request, str(exc))
            else:
                done += 1
        messages.success(request, f"Revoked {done} token(s).")


@admin.register(ApiTokenEvent)
class ApiTokenEventAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[ApiTokenEvent]):
    list_display = ("created_at", "action", "prefix", "scope", "actor_name", "subject_name", "via")
    list_filter = ("action", "via", "scope")
    search_fields = ("prefix", "actor_name", "subject_name")
    date_hierarchy = "created_at"
    readonly_fields = tuple(f.name for f in ApiTokenEvent._meta.concrete_fields if f.name != "id")

    def get_queryset(self, request: HttpRequest) -> QuerySet[ApiTokenEvent]:
        queryset = super().get_queryset(request)
        if not _is_superuser(request):  # the events of the tokens this person may manage
            queryset = queryset.filter(subject_id__in=api_token_subjects(actor=_actor(request)))
        return queryset


def _actor(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # the admin requires a logged-in staff member
    return user
