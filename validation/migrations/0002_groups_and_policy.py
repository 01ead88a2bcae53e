"""Create the reviewer and admin groups and the single Policy row."""

from django.db import migrations

REVIEWER_PERMISSIONS = [
    ("analyses", "view_analysis"), ("analyses", "view_evidence"), ("analyses", "view_revision"),
    ("validation", "view_attempt"), ("validation", "view_finding"), ("validation", "view_fix"),
    ("validation", "change_fix"), ("validation", "view_toolcall"), ("validation", "view_llmcall"),
    ("validation", "view_auditevent"), ("validation", "view_policy"),
]


def create_groups_and_policy(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    reviewer, _ = Group.objects.get_or_create(name="reviewer")
    reviewer.permissions.set(
        Permission.objects.get(content_type__app_label=app, codename=codename)
        for app, codename in REVIEWER_PERMISSIONS
    )
    admin, _ = Group.objects.get_or_create(name="admin")
    admin.permissions.set(
        Permission.objects.filter(content_type__app_label__in=["analyses", "validation", "auth"])
    )
    Policy = apps.get_model("validation", "Policy")
    Policy.objects.get_or_create(pk=1)


def remove_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.filter(name__in=["reviewer", "admin"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups_and_policy, remove_groups)]
