"""`manage.py compile_catalogs` (the Procfile's step before every process) compiles the
comments app's own catalogs too, so a deployment translates the comment section, and
never reaches into installed packages."""

from pathlib import Path

from django.conf import settings

from slugline.management.commands.compile_catalogs import catalogs

BASE = Path(settings.BASE_DIR)
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]


def test_the_site_and_the_comments_app_catalogs_are_compiled():
    found = set(catalogs())
    for code in LANGUAGES:
        assert BASE / "locale" / code / "LC_MESSAGES" / "django.po" in found
        assert BASE / "comments" / "locale" / code / "LC_MESSAGES" / "django.po" in found
    assert not [po for po in found if "site-packages" in po.parts]
