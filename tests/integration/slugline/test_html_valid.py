"""The Nu HTML Checker finds no error on the main page types, rendered by the test
client (tools/html_check.py checks every page type on a served site). Skipped where
Java or vnu.jar is missing: `npm ci` in tools/html-check/ brings the jar."""

import importlib.util
import shutil

import pytest
from django.test import Client

from media import services
from tests.pictures import picture

from bench.harness import REPO

_spec = importlib.util.spec_from_file_location("html_check", REPO / "tools" / "html_check.py")
html_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(html_check)

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None or not html_check.VNU_JAR.is_file(),
    reason="no Java or no vnu.jar (npm ci in tools/html-check/)",
)


def test_the_reader_pages_have_no_html_error(make_post, make_comment, tmp_path):
    image = services.upload_image(data=picture(900, 600), name="boats.jpg", alt="Boats", decorative=False,
                                  uploaded_by="ada")
    post = make_post(slug="harbour", tags=("sea",), cover=image.key,
                     content=f'Intro.\n\n![Boats](/media/{image.key}/ "At dawn")\n\nInline ![b](/media/{image.key}/).')
    comment = make_comment(post, text="A **first** comment.")
    make_comment(post, text="A reply.", parent_slug=comment.slug)
    pages = {"home": "/", "post": "/posts/harbour/", "comments": "/posts/harbour/comments/?view=newest",
             "permalink": f"/posts/harbour/comments/{comment.slug}/", "search": "/search/?q=intro",
             "tag": "/tags/sea/", "missing": "/no-such-page/"}
    saved = {}
    for name, path in pages.items():
        file = tmp_path / f"{name}.html"
        file.write_bytes(Client().get(path).content)
        saved[file] = f"{name} ({path})"
    assert html_check.check(html_check.vnu_command(), saved) == []
