"""Every API token of before pipelines goes into a pipeline: the one its user's analyses were
moved to (``user-<id>``, analyses 0004), else `default`."""

from django.db import migrations


def forwards(apps, schema_editor):
    Pipeline = apps.get_model("analyses", "Pipeline")
    ApiToken = apps.get_model("validation", "ApiToken")
    default, _ = Pipeline.objects.get_or_create(
        slug="default",
        defaults={"name": "Default", "description": "Reports sent before pipelines existed."},
    )
    own = {
        pipeline.slug: pipeline for pipeline in Pipeline.objects.filter(slug__startswith="user-")
    }
    for user_id in ApiToken.objects.values_list("user_id", flat=True).distinct():
        pipeline = own.get(f"user-{user_id}", default)
        ApiToken.objects.filter(user_id=user_id, pipeline__isnull=True).update(pipeline=pipeline)


class Migration(migrations.Migration):
    dependencies = [
        ("analyses", "0004_default_pipeline"),
        ("validation", "0017_pipelines"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
