"""`manage.py compile_catalogs`: the site's translation catalogs compiled for Django.

Django reads compiled catalogs (`.mo`), which are not committed: they are built
from the `.po` files under LOCALE_PATHS (`locale/<language>/LC_MESSAGES/`) and those
of the installed apps that live in this checkout (the comments app's
`comments/locale/`) by GNU gettext's `msgfmt --check`, as `make compilemessages` does. The Procfile runs this
in the release step and before gunicorn starts, so every machine that serves has
them (docs/deploy.md). A catalog whose `.mo` is newer than its `.po` is left alone,
and each `.mo` is written beside and renamed into place, so workers starting at the
same time never read half a file. Unlike Django's `compilemessages`, it compiles the
site's catalogs only, not every `locale` folder under the current one (a virtualenv
there holds many).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

NO_MSGFMT = (
    "msgfmt is not installed, and the site's translations cannot be compiled without it: "
    "install GNU gettext (Debian and Ubuntu: apt-get install gettext) on the machine that "
    "runs this (docs/deploy.md)."
)


def catalogs() -> list[Path]:
    """Every `.po` file of the site's own catalogs (LOCALE_PATHS) and of its apps in this
    checkout; not of installed packages (a virtualenv inside the checkout included),
    which carry their compiled catalogs."""
    base = Path(settings.BASE_DIR).resolve()
    folders = [Path(folder) for folder in settings.LOCALE_PATHS]
    folders += [Path(app.path) / "locale" for app in apps.get_app_configs()
                if Path(app.path).resolve().is_relative_to(base) and "site-packages" not in Path(app.path).parts]
    return sorted({po for folder in folders for po in folder.glob("*/LC_MESSAGES/*.po")})


def stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_catalog(po: Path, msgfmt: str) -> None:
    """`po` compiled (and checked) into the `.mo` beside it, replaced in one rename."""
    handle, scratch = tempfile.mkstemp(dir=po.parent, prefix=".compiling-", suffix=".mo")
    os.close(handle)
    try:
        done = subprocess.run([msgfmt, "--check", "-o", scratch, str(po)], capture_output=True, text=True)
        if done.returncode != 0:
            raise CommandError(f"msgfmt refused {po}: {done.stderr.strip()}")
        os.chmod(scratch, 0o644)
        os.replace(scratch, po.with_suffix(".mo"))
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


class Command(BaseCommand):
    help = "Compile the site's translation catalogs (.po to .mo) that are missing or out of date."
    requires_system_checks: list = []  # runs before gunicorn: nothing here needs the checks

    def handle(self, *args, **options):
        found = catalogs()
        if not found:
            raise CommandError(f"No catalogs under {', '.join(map(str, settings.LOCALE_PATHS))}.")
        due = [po for po in found if stale(po)]
        if not due:
            self.stdout.write(f"The {len(found)} translation catalogs are up to date.")
            return
        msgfmt = shutil.which("msgfmt")
        if msgfmt is None:
            raise CommandError(NO_MSGFMT)
        for po in due:
            compile_catalog(po, msgfmt)
        self.stdout.write(f"Compiled {len(due)} of {len(found)} translation catalogs.")
