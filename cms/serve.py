"""`make run`: prepare the site, then hand over to gunicorn.

Migrates Django's database, collects static files, creates MongoDB indexes, adds demo content to an empty
database, checks that the port is free, and replaces itself with gunicorn (so
Ctrl-C reaches gunicorn directly). Expects MONGODB_URI set (cms.devdb does that).
"""

import os
import socket
import sys

BIND_HOST = "127.0.0.1"


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def main() -> int:
    port = int(os.environ.get("PORT", "8000"))
    if not port_is_free(BIND_HOST, port):
        print(
            f"serve: port {port} is already in use. Stop whatever uses it, or run "
            f"`make run PORT={port + 1}`.",
            file=sys.stderr,
        )
        return 1
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("ensure_indexes")
    call_command("seed_demo", if_empty=True)
    print(f"Slugline is at http://{BIND_HOST}:{port}/ (Ctrl-C stops it).", flush=True)
    os.environ["GUNICORN_BIND"] = f"{BIND_HOST}:{port}"
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    os.execv(gunicorn, [gunicorn, "--config", "gunicorn.conf.py", "cms.wsgi"])


if __name__ == "__main__":
    sys.exit(main())
