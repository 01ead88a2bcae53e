"""Create the reviewer and admin groups and the single Policy row."""

from django.db import migrations


def create_groups_and_policy(apps, schema_editor):
    from validation.roles import ensure_roles_and_policy

    ensure_roles_and_policy(apps)


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
