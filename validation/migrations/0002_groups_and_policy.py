"""Once created the reviewer and admin groups and the Policy row here. The post_migrate receiver
(validation.roles) ensures them after every migrate and flush, so this migration does nothing
now; it stays so that databases that applied it keep a consistent history."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations: list[migrations.operations.base.Operation] = []
