from django.apps import AppConfig
from django.core.management import call_command
from django.db.models.signals import post_migrate


def create_cache_tables(sender, using="default", **kwargs):
    """After every `migrate`, the tables of CACHES' database caches (the one django-allauth's
    limits are shared through: slugline/caches.py), so that no deployment step can
    forget them; createcachetable skips those that exist."""
    call_command("createcachetable", database=using, verbosity=0)


class AccountsConfig(AppConfig):
    """Readers' accounts: django-allauth's sign-up and sign-in in the site's layout, and
    each account's profile (its display name)."""

    name = "accounts"
    verbose_name = "Readers' accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        post_migrate.connect(create_cache_tables, sender=self, dispatch_uid="accounts.create_cache_tables")
        from accounts import commenting

        commenting.connect()
