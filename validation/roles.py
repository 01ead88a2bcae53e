"""The rows Redline needs to exist: the `reviewer` and `admin` groups and the Policy row.

Created by migration 0002 and re-ensured after every migrate or flush (post_migrate), the way
Django itself keeps permissions, so no code path ever finds them missing.
"""

from __future__ import annotations

from typing import Any

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
ADMIN_APPS = ["analyses", "validation", "auth", "axes"]


def ensure_roles_and_policy(apps: Any) -> None:
    """Idempotent; `apps` is a migration state registry or django.apps.apps."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        # A migration state registry has no models modules; permissions need one marked.
        had_module = getattr(app_config, "models_module", None)
        app_config.models_module = had_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = had_module

    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    reviewer, _ = group_model.objects.get_or_create(name="reviewer")
    reviewer.permissions.set(
        permission_model.objects.filter(content_type__app_label=app, codename=codename).get()
        for app, codename in REVIEWER_PERMISSIONS
    )
    admin, _ = group_model.objects.get_or_create(name="admin")
    admin.permissions.set(permission_model.objects.filter(content_type__app_label__in=ADMIN_APPS))
    apps.get_model("validation", "Policy").objects.get_or_create(pk=1)


def ensure_after_migrate(sender: Any, apps: Any = None, **kwargs: Any) -> None:
    # `flush` sends post_migrate without a state registry: use the real one.
    from django.apps import apps as installed_apps

    ensure_roles_and_policy(apps or installed_apps)
