"""The rows Redline needs to exist: the `reviewer` and `admin` groups, the default Policy
and the default pipeline.

Ensured after every migrate or flush (post_migrate), the way Django itself keeps permissions,
so no code path ever finds them missing.
"""

from __future__ import annotations

from django.apps import AppConfig
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from analyses.models import Pipeline
from validation.models import Policy

REVIEWER_PERMISSIONS = [
    ("analyses", "view_analysis"),
    ("analyses", "view_evidence"),
    ("analyses", "view_revision"),
    ("validation", "view_attempt"),
    ("validation", "view_finding"),
    ("validation", "view_fix"),
    ("validation", "change_fix"),
    ("validation", "view_toolcall"),
    ("validation", "view_llmcall"),
    ("validation", "view_auditevent"),
    ("validation", "view_policy"),
]
# "axes": admins see failed logins and unlock a locked-out user (delete its access attempt).
ADMIN_APPS = ["analyses", "validation", "axes"]
# Users, groups and permissions: admins see them; only superusers manage them (issue 19), so
# no one below a superuser can grant a permission, to anyone or to themselves.
ADMIN_AUTH_PERMISSIONS = ["view_user", "view_group", "view_permission"]


def ensure_roles_and_policy() -> None:
    """Idempotent. Runs after Django's own post_migrate receivers have created every app's
    permissions (``django.contrib.auth`` comes before our apps in INSTALLED_APPS)."""
    reviewer, _ = Group.objects.get_or_create(name="reviewer")
    reviewer.permissions.set(
        Permission.objects.get(content_type__app_label=app, codename=codename)
        for app, codename in REVIEWER_PERMISSIONS
    )
    admin, _ = Group.objects.get_or_create(name="admin")
    admin.permissions.set(
        Permission.objects.filter(
            Q(content_type__app_label__in=ADMIN_APPS)
            | Q(content_type__app_label="auth", codename__in=ADMIN_AUTH_PERMISSIONS)
        )
    )
    Policy.objects.get_or_create(pk=1)
    Pipeline.default()


def ensure_after_migrate(sender: AppConfig, **kwargs: object) -> None:
    ensure_roles_and_policy()
