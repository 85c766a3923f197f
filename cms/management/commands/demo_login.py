import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from cms import demo

NO_USER = (
    "There is no user {username!r} to log in as. The demo content (and its editor) is "
    "added by `make run` to an empty database, or by `manage.py seed_demo`."
)
LOGGED_IN = "Username: {username}\nPassword: {password}\nLog in at:  {url}"


class Command(BaseCommand):
    help = (
        f"Give the demo editor ({demo.EDITOR}) a new random password and print it with the "
        "login address. Needs only Django's database, so it works beside `make run`."
    )
    # Settings checks only; nothing here reaches MongoDB, so nothing may start it.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--username", default=demo.EDITOR, help=f"whom to log in as (default {demo.EDITOR})")
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")),
                            help="the port `make run` serves on (default: PORT, or 8000)")

    def handle(self, *args, username: str, port: int, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(NO_USER.format(username=username))
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save(update_fields=["password"])
        url = f"http://127.0.0.1:{port}{reverse('login')}"
        self.stdout.write(LOGGED_IN.format(username=username, password=password, url=url))
