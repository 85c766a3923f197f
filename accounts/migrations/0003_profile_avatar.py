from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_profile_public_profile"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="avatar_key",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
        migrations.AddField(
            model_name="profile",
            name="avatar_format",
            field=models.CharField(blank=True, default="", max_length=4),
        ),
    ]
