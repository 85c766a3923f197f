"""`make wheel-check`: build the slugline-comments wheel, install it into a fresh
virtualenv (the checkout not on its path), make a project with `django-admin
startproject` and the five lines (host_project.py), and through Django's test client
post a comment, a reply and open the permalink, and follow a confirmation mail's link
(the subscription pages under the recipe's URL), against the database at MONGODB_URI.

    python -m tests.packaging.wheel_check        (make wheel-check; .ci/run after make test)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from tests.packaging.host_project import make_project

CHECKOUT = Path(__file__).resolve().parents[2]
# Run inside the project by the virtualenv's python: the page, a comment, a reply, the permalink.
VISIT = r'''
import re, sys
from html.parser import HTMLParser
import django
django.setup()
from django.core.management import call_command
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()  # the test client's "testserver" host, mail kept in memory
from recipes.models import Recipe

class Forms(HTMLParser):
    def __init__(self):
        super().__init__(); self.forms, self._text = [], None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("method", "").lower() == "post":
            self.forms.append({"action": a.get("action", ""), "id": a.get("id"), "fields": {}})
        elif self.forms and tag == "input" and a.get("name") and a.get("type") not in ("checkbox", "submit"):
            self.forms[-1]["fields"][a["name"]] = a.get("value") or ""
        elif self.forms and tag == "textarea" and a.get("name"):
            self.forms[-1]["fields"][a["name"]] = ""

def reply_form(html, path):
    parser = Forms(); parser.feed(html)
    found = [f for f in parser.forms if "text" in f["fields"]]
    assert found, "no comment form on " + path
    form = found[-1]
    return form["action"].split("#")[0] or path, form["fields"]

def post(client, path, text):
    page = client.get(path)
    assert page.status_code == 200, (path, page.status_code)
    action, fields = reply_form(page.content.decode(), path)
    fields.update({"text": text, "website": ""})
    for name in ("name", "author_name"):
        if name in fields: fields[name] = "Ada"
    answer = client.post(action, fields)
    assert answer.status_code in (302, 303), (action, answer.status_code, answer.content[:2000])
    return answer["Location"]

from infra import mongo
call_command("migrate", run_syncdb=True, verbosity=0)
try:
    call_command("ensure_indexes", verbosity=0)
    Recipe.objects.create(slug="pancakes", title="Pancakes")
    client = Client()
    where = post(client, "/recipes/pancakes/", "Flip them once.")
    page = client.get(where.split("#")[0]).content.decode()
    found = re.search(r'class="comment-permalink" href="([^"#]+)', page)
    assert found and "Flip them once." in page, "the comment is not on the recipe's page"
    permalink = found.group(1)
    assert permalink.startswith("/recipes/pancakes/comments/"), permalink
    page = client.get(permalink)
    assert page.status_code == 200 and "Flip them once." in page.content.decode(), (permalink, page.status_code)
    post(client, permalink, "Only when the bubbles show.")
    page = client.get(permalink)
    assert "Only when the bubbles show." in page.content.decode(), "the reply is not on the permalink page"
    # Another reader votes the comment up (its author may not), and the newest view lists both.
    voted = Client().post(permalink + "vote/", {"vote": "up"})
    assert voted.status_code in (302, 303), ("vote", voted.status_code, voted.content[:2000])
    assert 'data-votes-up="1"' in client.get(permalink).content.decode(), "the vote is not counted"
    newest = client.get("/recipes/pancakes/comments/?view=newest")
    assert newest.status_code == 200 and "Only when the bubbles show." in newest.content.decode(), newest.status_code
    print("wheel-check: posted a comment and a reply, voted, opened", permalink, "and the newest view")
    # Reply mail with the five lines alone: the confirmation mail's link opens under the recipe.
    from django.core import mail
    reader = Client()
    action, fields = reply_form(reader.get("/recipes/pancakes/").content.decode(), "/recipes/pancakes/")
    fields.update({"text": "Tell me of replies.", "website": "", "name": "Bea", "email": "bea@example.com",
                   "notify_replies": "on"})
    answer = reader.post(action, fields)
    assert answer.status_code in (302, 303), ("opt-in", answer.status_code, answer.content[:2000])
    call_command("send_notifications", verbosity=0)
    [confirmation] = [m for m in mail.outbox if m.to == ["bea@example.com"]]
    found = re.search(r"https?://[^/\s]+(/\S+/notifications/confirm/\S+/)", confirmation.body)
    assert found and found.group(1).startswith("/recipes/pancakes/comments/notifications/confirm/"), confirmation.body
    confirm = found.group(1)
    shown = reader.get(confirm)
    waiting = re.findall(r'name="subscription" value="([^"]+)"', shown.content.decode())
    assert shown.status_code == 200 and waiting, (confirm, shown.status_code)
    done = reader.post(confirm, {"subscription": waiting})
    assert done.status_code == 303 and "/recipes/pancakes/comments/notifications/manage/" in done["Location"], done
    assert reader.get(done["Location"]).status_code == 200, done["Location"]
    print("wheel-check: a confirmation mail's link confirmed the subscription at", confirm.split("confirm/")[0])
finally:
    mongo.get_client().drop_database(mongo.get_db().name)
'''


def run(*args: str | Path, **kwargs: object) -> None:
    print("wheel-check:", " ".join(map(str, args)), flush=True)
    subprocess.run([str(a) for a in args], check=True, **kwargs)  # type: ignore[call-overload]


def main() -> int:
    uri = os.environ.get("MONGODB_URI")
    if not uri:
        sys.exit("wheel-check: MONGODB_URI names the database to test against (make wheel-check starts the dev one)")
    with tempfile.TemporaryDirectory(prefix="wheel-check-") as scratch:
        root = Path(scratch)
        run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", root / "dist",
            CHECKOUT)
        wheel = next((root / "dist").glob("slugline_comments-*.whl"))
        run(sys.executable, "-m", "venv", root / "venv")
        python = root / "venv" / "bin" / "python"
        run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel)
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
        scratch_uri = urlsplit(uri)._replace(path="/wheel_check_" + os.urandom(4).hex()).geturl()
        project = make_project(root / "project", uri=scratch_uri, python=str(python))
        env["DJANGO_SETTINGS_MODULE"] = "kitchen.settings"
        # The checkout must not be importable from the project: only the wheel's packages.
        run(python, "-c", "import importlib.util as u, sys; "
            "sys.exit('checkout on the path' if u.find_spec('cms') or u.find_spec('devdb') else 0)", cwd=project, env=env)
        run(python, "manage.py", "check", cwd=project, env=env)
        (project / "visit.py").write_text(VISIT)
        run(python, "visit.py", cwd=project, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
