"""The slugline-comments distribution (pyproject.toml, docs/distribution.md): the wheel
holds only the app and its platform, every setting has a default, a missing extra is
refused by name."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from comments.templatetags.comments import SCRIPTS, STYLESHEET
from tests.packaging.host_project import make_project

CHECKOUT = Path(__file__).resolve().parents[2]
ALLOWED_TOP = {"comments", "infra"}
# What the wheel may hold besides Python modules: the app's templates, static files, translations.
DATA_DIRS = ("comments/templates/", "comments/static/", "comments/locale/")


def _wheel_names(tmp_path: Path) -> list[str]:
    source = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("comments", "infra", "cms", "slugline", "dashboard", "media", "api", "devdb", "bench", "tools",
                 "tests"):
        if (CHECKOUT / name).is_dir():
            shutil.copytree(CHECKOUT / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "docs/distribution.md"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CHECKOUT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
                   check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("slugline_comments-*.whl")
    return zipfile.ZipFile(wheel).namelist()


def test_the_wheel_holds_only_comments_and_infra_with_their_data(tmp_path):
    names = _wheel_names(tmp_path)
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == ALLOWED_TOP
    strays = [name for name in names if ".dist-info/" not in name and not name.endswith(".py")
              and not name.startswith(DATA_DIRS)]
    assert strays == []
    assert "comments/templates/comments/includes/section.html" in names
    # Its stylesheet and scripts, as {% comments_assets %} links them.
    assert {f"comments/static/{name}" for name in (STYLESHEET, *SCRIPTS)} <= set(names)
    assert "infra/mongo.py" in names and "comments/stores/documents.py" in names
    # The app's own translations travel with it (compiled by make before a build).
    assert {f"comments/locale/{code}/LC_MESSAGES/django.po" for code in ("vi", "hi", "id")} <= set(names)


# Imports nothing the base dependencies lack: run where PyICU, markdownify and bs4 are hidden.
HIDE_EXTRAS = "import sys\nfor name in ('icu', 'markdownify', 'bs4', 'devdb', 'cms'):\n    sys.modules[name] = None\n"


def _five_line_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = make_project(tmp_path / "project", uri=os.environ.get("MONGODB_URI") or "mongodb://127.0.0.1:1/",
                           python=sys.executable)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(CHECKOUT)]),
           "DJANGO_SETTINGS_MODULE": "kitchen.settings"}
    return project, env


def test_every_module_imports_with_the_base_dependencies_and_the_five_lines_alone(tmp_path):
    project, env = _five_line_project(tmp_path)
    script = HIDE_EXTRAS + (
        "import django, pkgutil, importlib, comments, infra\ndjango.setup()\n"
        "from infra import conf\n"
        "extras_only = {'infra.html_markdown'}\n"
        "for package in (comments, infra):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if info.name not in extras_only:\n"
        "            importlib.import_module(info.name)\n"
        "from infra import mongo\nfrom django.template.loader import render_to_string\n"
        "print(mongo.get_db().name, conf.get('MONGODB_TIMEOUT_MS'), conf.get('BEHIND_PROXY'))\n"
        "print(render_to_string('comments/includes/count.html', {'count': 2}).strip())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    # The database the URI names (none: "comments"), without MONGODB_NAME; humanize's filters without the app.
    first, second = done.stdout.splitlines()
    assert first.split()[1:] == ["0", "False"] and first.split()[0]
    assert second == "2 comments"


def test_check_reports_nothing_about_settings_the_five_lines_leave_out(tmp_path):
    """No MONGODB_*, BEHIND_PROXY, SITE_URL, infra or humanize needed."""
    project, env = _five_line_project(tmp_path)
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=project, env=env, capture_output=True, text=True)
    out = done.stdout + done.stderr
    for word in ("MONGODB", "BEHIND_PROXY", "SITE_URL", "humanize", "infra", "AttributeError", "Traceback"):
        assert word not in out


def test_check_passes_with_the_five_lines(tmp_path):
    project, env = _five_line_project(tmp_path)
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_extra_is_refused_by_name(tmp_path):
    script = HIDE_EXTRAS + (
        "import django\nfrom django.conf import settings\nsettings.configure()\ndjango.setup()\n"
        "from comments.transfer import import_text\nfrom comments.internal import unicode_text\n"
        "from infra import extras\n"
        "try:\n    import_text.comment_text('<p>hi</p>')\nexcept extras.MissingExtra as exc:\n    print(exc)\n"
        "print(unicode_text.lookalike_key('Bru\\u200bno'), unicode_text.domain_to_ascii('B\\u00fccher.example'))\n"
        "from comments import checks\nprint([m.id for m in checks.lookalike_check_installed(None)])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=CHECKOUT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == 'Importing HTML comments needs the "imports" extra: pip install "slugline-comments[imports]"'
    assert lines[1] == "bruno xn--bcher-kva.example"
    assert lines[2] == "['comments.W040']"


def test_a_uri_that_is_not_mongodb_stops_the_site_at_check(settings):
    """The same sentences mongo.get_client refuses to start with, before anything is written."""
    from comments import checks
    from infra import conf

    settings.COMMENTS_MONGODB_URI = "localhost:27017"
    settings.MONGODB_TIMEOUT_MS = -1
    found = checks.mongodb_settings(None)
    assert [m.id for m in found] == ["comments.E041", "comments.E041"]
    assert found[0].msg == conf.BAD_URI.format(uri="localhost:27017")


def test_a_discussion_state_for_an_integer_id_is_refused_before_anything_is_written():
    """Issue 41: a host whose discussion id was a model's pk wrote `{_id: 1}`. The unit
    tier's guard fails any test that reaches MongoDB, so refusing here sent nothing."""
    from comments.stores import discussion_state
    from comments.stores.counting import Counts

    with pytest.raises(TypeError, match=r"an ObjectId, not 1 \(int\)"):
        discussion_state.create(1, counts=Counts(), num_pages=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"an ObjectId, not 'pie' \(str\)"):
        discussion_state.name("pie", model="recipes.recipe", pk="1")  # type: ignore[arg-type]
