"""`make run`: prepare the site, then hand over to gunicorn.

Checks that the port is free, migrates Django's database, collects static files,
creates MongoDB indexes, adds demo content to an empty database, and replaces
itself with gunicorn (so Ctrl-C reaches gunicorn directly). Expects MONGODB_URI set
(devdb does that).

Under `make run` the terminal stays quiet: requests go to var/log/access.log (or
GUNICORN_ACCESS_LOG), gunicorn and the site show warnings and errors only (unless
GUNICORN_LOG_LEVEL / LOG_LEVEL say otherwise), and once it listens
it prints a short banner. Scheduled posts go live while it runs: gunicorn starts
`publish_scheduled --loop` beside its workers and stops it when it stops
(SLUGLINE_PUBLISH_EVERY, gunicorn.conf.py), and so does notification mail
(`send_notifications --loop`, SLUGLINE_NOTIFY_EVERY); the banner says where mail goes.
"""

from __future__ import annotations

import io
import os
import shlex
import socket
import sys
from pathlib import Path

BIND_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
REPO = Path(__file__).resolve().parent.parent
ACCESS_LOG = REPO / "var" / "log" / "access.log"
PUBLISH_EVERY_SECONDS = "15"
NOTIFY_EVERY_SECONDS = "5"
PORT_TAKEN = (
    "serve: port {port} is already in use. Stop whatever uses it, or run "
    "`make run PORT={next}`."
)
SEEDED = "The database was empty: demo posts, authors and comments were added."
NOT_SEEDED = "The database has posts already: no demo content was added."
# Settings a second terminal does not have unless the user exports them too.
LOGIN_ENV = ("DATABASE_URL",)


def port_is_free(host: str, port: int) -> bool:
    """Whether nothing listens on `port`. SO_REUSEADDR, as gunicorn binds: a port
    whose last connections are in TIME_WAIT (just after Ctrl-C) is free to it."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def login_command(*, port: int, environ: dict) -> str:
    """The one line that logs a second terminal in as the demo editor: the venv's
    Python, and whatever setting this run has that a fresh shell would lack."""
    python = Path(sys.executable)
    try:
        python = python.relative_to(REPO)
    except ValueError:
        pass
    words = [f"{name}={shlex.quote(environ[name])}" for name in LOGIN_ENV if environ.get(name)]
    words += [shlex.quote(str(python)), "manage.py", "demo_login"]
    if port != DEFAULT_PORT:
        words += ["--port", str(port)]
    return " ".join(words)


def mail_line() -> str:
    """Where notification mail goes: the SMTP server of EMAIL_URL, or files under var/mail/."""
    from django.conf import settings

    if settings.EMAIL_BACKEND.endswith("filebased.EmailBackend"):
        return f"  Mail (no EMAIL_URL) is written as files to {settings.EMAIL_FILE_PATH}/."
    return f"  Mail goes to the SMTP server at {settings.EMAIL_HOST}:{settings.EMAIL_PORT}."


def banner(*, port: int, login: str, access_log: str, seeded: bool) -> str:
    from cms.demo import EDITOR

    content = SEEDED if seeded else NOT_SEEDED
    where = "stdout" if access_log == "-" else access_log
    return "\n".join([
        "",
        f"  Slugline is at http://{BIND_HOST}:{port}/",
        f"  {content}",
        f"  Log in as the demo editor ({EDITOR}): in another terminal, in this folder, run",
        f"      {login}",
        "    (it sets a new password and prints it with the login address)",
        f"  Requests are logged to {where}; errors show here.",
        "  Scheduled posts go live on their own while this runs.",
        mail_line(),
        "  Ctrl-C stops it.",
        "",
    ])


def prepare() -> bool:
    """Migrate, collect static files, ensure indexes, seed an empty database;
    whether it was empty (and now holds the demo content)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "slugline.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("ensure_indexes", stdout=io.StringIO())
    from cms import posts

    empty = posts.is_empty()
    # The banner says how to log in; seed_demo's own hint would scroll by above it.
    call_command("seed_demo", if_empty=True, stdout=io.StringIO())
    return empty


def main() -> int:
    os.chdir(REPO)  # relative paths (the access log, gunicorn.conf.py) start here
    port = int(os.environ.get("PORT", str(DEFAULT_PORT)))
    if not port_is_free(BIND_HOST, port):
        print(PORT_TAKEN.format(port=port, next=port + 1), file=sys.stderr)
        return 1
    login = login_command(port=port, environ=dict(os.environ))
    # Links in notification mail lead to this site (the sender gunicorn runs inherits it).
    os.environ.setdefault("SITE_URL", f"http://{BIND_HOST}:{port}")
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # the site's own log: warnings and errors
    seeded = prepare()
    access_log = os.environ.setdefault("GUNICORN_ACCESS_LOG", str(ACCESS_LOG.relative_to(REPO)))
    if access_log != "-":
        Path(access_log).parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("GUNICORN_LOG_LEVEL", "warning")
    os.environ.setdefault("SLUGLINE_PUBLISH_EVERY", PUBLISH_EVERY_SECONDS)
    os.environ.setdefault("SLUGLINE_NOTIFY_EVERY", NOTIFY_EVERY_SECONDS)
    os.environ["SLUGLINE_BANNER"] = banner(port=port, login=login, access_log=access_log, seeded=seeded)
    os.environ["GUNICORN_BIND"] = f"{BIND_HOST}:{port}"
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    os.execv(gunicorn, [gunicorn, "--config", "gunicorn.conf.py", "slugline.wsgi"])


if __name__ == "__main__":
    sys.exit(main())
