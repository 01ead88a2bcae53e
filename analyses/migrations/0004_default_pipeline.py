"""Every analysis of before pipelines goes into the `default` pipeline.

External ids were unique per submitter; now they are unique per pipeline. Where two
submitters used the same external id, the later submitters' analyses go into a pipeline of
their own (``user-<id>``), so nothing is renamed and no analysis changes hands; their API
tokens follow them there (validation 0018)."""

from django.conf import settings
from django.db import migrations


def _pipeline_of_submitter(Pipeline, User, submitter_id):
    if submitter_id is None:
        slug, name = "no-user", "Analyses sent without a user"
    else:
        user = User.objects.filter(pk=submitter_id).first()
        slug = f"user-{submitter_id}"
        name = f"Analyses of {user.username if user else slug}"[:100]
    pipeline, _ = Pipeline.objects.get_or_create(slug=slug, defaults={"name": name})
    return pipeline


def forwards(apps, schema_editor):
    Pipeline = apps.get_model("analyses", "Pipeline")
    Analysis = apps.get_model("analyses", "Analysis")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    default, _ = Pipeline.objects.get_or_create(
        slug="default",
        defaults={"name": "Default", "description": "Reports sent before pipelines existed."},
    )
    first_sender = {}
    movers = set()
    rows = (
        Analysis.objects.exclude(external_id="")
        .order_by("id")
        .values_list("external_id", "submitter_id")
    )
    for external_id, submitter_id in rows.iterator():
        if first_sender.setdefault(external_id, submitter_id) != submitter_id:
            movers.add(submitter_id)
    for submitter_id in sorted(movers, key=lambda pk: (pk is None, pk or 0)):
        pipeline = _pipeline_of_submitter(Pipeline, User, submitter_id)
        Analysis.objects.filter(submitter_id=submitter_id, pipeline__isnull=True).update(
            pipeline=pipeline
        )
    Analysis.objects.filter(pipeline__isnull=True).update(pipeline=default)


class Migration(migrations.Migration):
    dependencies = [
        ("analyses", "0003_pipelines"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
