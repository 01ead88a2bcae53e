import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analyses", "0004_default_pipeline"),
    ]

    operations = [
        migrations.AlterField(
            model_name="analysis",
            name="pipeline",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="analyses",
                to="analyses.pipeline",
            ),
        ),
        migrations.AddConstraint(
            model_name="analysis",
            constraint=models.UniqueConstraint(
                condition=models.Q(("external_id", ""), _negated=True),
                fields=("pipeline", "external_id"),
                name="analyses_analysis_external_id_unique_per_pipeline",
            ),
        ),
    ]
