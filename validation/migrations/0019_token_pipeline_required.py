import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0018_default_pipeline"),
    ]

    operations = [
        migrations.AlterField(
            model_name="apitoken",
            name="pipeline",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="api_tokens",
                to="analyses.pipeline",
            ),
        ),
    ]
