"""The "Editors" group: its members edit every post, moderate and rename authors
(dashboard/permissions.py). Membership is managed in Django's admin."""

from django.db import migrations

EDITORS_GROUP = "Editors"  # cms.roles.EDITORS_GROUP, frozen here


def create_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name=EDITORS_GROUP)


class Migration(migrations.Migration):
    dependencies = [
        ("cms", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]
