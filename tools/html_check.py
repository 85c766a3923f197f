"""Check the site's pages with the Nu HTML Checker (vnu.jar): every page type a reader
or an editor sees, from a scratch site with demo content, and report each error.

    .venv/bin/python tools/html_check.py            # exit 0: no error; 1: errors; 2: cannot run

It needs Java (17 or later) and vnu.jar: `npm ci` in tools/html-check/ brings it (the
`vnu-jar` package, pinned there), or set VNU_JAR to a jar of your own. Without either
it says so and exits 2; it is not part of the test suite. MONGODB_URI names the
MongoDB server (`make devdb`); the scratch site (bench/harness.py: gunicorn on a
loopback port, its own MongoDB and SQLite databases) is dropped afterwards.
`--keep DIR` keeps the pages it checked there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import REPO, Reader, Site  # noqa: E402

VNU_JAR = REPO / "tools" / "html-check" / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
# A library picture, and a post that shows it as a figure and inline (media/markup.py).
PICTURE_SETUP = """
import io
from PIL import Image
from cms import posts
from media import services
out = io.BytesIO()
Image.new("RGB", (900, 600), (30, 90, 160)).save(out, "JPEG")
image = services.upload_image(data=out.getvalue(), name="harbour.jpg", alt="Boats in the harbour",
                              decorative=False, caption="The harbour at dawn", uploaded_by="bruno")
key = image.key
posts.create_post(title="Pictures", slug="pictures", status=posts.PUBLISHED, cover=key, tags=("pictures",),
                  author=posts.AuthorSummary(id=1, username="bruno", name="Bruno"),
                  content=f'Intro.\\n\\n![Boats](/media/{key}/ "At dawn")\\n\\nInline ![boats](/media/{key}/) too.')
"""
SERVER_ERROR = (
    "from django.template import loader; print(loader.get_template('500.html').render({}), end='')"
)
# Pages that are errors on purpose: (name, path, status expected).
ERROR_PAGES = [
    ("error-404", "/no-such-page/", 404), ("error-400-view", "/posts/pictures/comments/?view=nope", 400),
]


def vnu_command() -> list[str] | None:
    """How to run the checker here, or None (and why, on stderr)."""
    java = shutil.which("java")
    jar = Path(os.environ.get("VNU_JAR") or VNU_JAR)
    if java is None:
        print("html-check: no `java` here (Java 17 or later runs vnu.jar).", file=sys.stderr)
        return None
    if not jar.is_file():
        print(f"html-check: no vnu.jar at {jar}: run `npm ci` in tools/html-check/ (or set VNU_JAR).",
              file=sys.stderr)
        return None
    return [java, "-Xss4m", "-jar", str(jar)]


def _first(pattern: str, html: str) -> str:
    found = re.search(pattern, html)
    if found is None:
        raise RuntimeError(f"no link matches {pattern!r} on the page")
    return found.group(1)


def reader_pages(reader: Reader) -> dict[str, str]:
    """Name -> path of every page type a visitor sees."""
    home = reader.get("/").body
    post = "/posts/pictures/"
    page = reader.get(post).body
    discussion = "/posts/" + _first(r'href="/posts/((?!pictures/)[^"/]+)/"', home) + "/comments/"
    permalink = _first(r'class="comment-permalink" href="([^"#]+)', reader.get(discussion).body)
    pages = {
        "home": "/", "home-page-2": "/?page=2", "post-with-pictures": post,
        "post": discussion.removesuffix("comments/"), "search": "/search/",
        "search-results": "/search/?q=the", "search-nothing": "/search/?q=zzzqqq",
        "tag": _first(r'href="(/tags/[^"]+/)"', page), "author": _first(r'href="(/authors/[^"]+/)"', page),
        "comment-permalink": permalink, "comment-flag": permalink + "flag/", "login": "/accounts/login/",
        "signup": "/accounts/signup/", "login-code": "/accounts/login/code/",
        "password-reset": "/accounts/password/reset/", "api-reference": "/api/v1/reference/",
    }
    for view in ("threaded", "newest", "chronological", "best", "top"):
        pages[f"comments-{view}"] = f"{discussion}?view={view}"
    return pages


def dashboard_pages(reader: Reader) -> dict[str, str]:
    """Name -> path of every dashboard page type (the reader is logged in as an editor)."""
    posts = reader.get("/dashboard/").body
    edit = _first(r'href="(/dashboard/posts/[0-9a-f]{24}/)"', posts)
    media = reader.get("/dashboard/media/").body
    pages = {
        "dashboard-posts": "/dashboard/", "dashboard-new-post": "/dashboard/posts/new/",
        "dashboard-edit-post": edit,
        "dashboard-media": "/dashboard/media/",
        "dashboard-media-picture": _first(r'href="(/dashboard/media/[0-9a-f]{32}/)"', media),
        "dashboard-moderation": "/dashboard/moderation/",
        "dashboard-blocklist": "/dashboard/moderation/blocklist/",
        "dashboard-authors": "/dashboard/authors/", "dashboard-profile": "/dashboard/profile/",
        "dashboard-api-tokens": "/dashboard/api-tokens/",
    }
    for tab in ("flagged", "spam", "recent", "downvoted"):
        pages[f"dashboard-moderation-{tab}"] = f"/dashboard/moderation/?tab={tab}"
    pages["dashboard-versions"] = edit + "versions/"
    versions = reader.get(pages["dashboard-versions"]).body
    version = re.search(r'href="(/dashboard/posts/[0-9a-f]{24}/versions/[0-9a-f]{24}/)"', versions)
    if version:
        pages["dashboard-version"] = version.group(1)
    return pages


def log_in(reader: Reader, *, username: str, password: str) -> None:
    form = reader.get("/accounts/login/").body
    token = _first(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    answer = reader.post("/accounts/login/", {"csrfmiddlewaretoken": token, "login": username,
                                              "password": password})
    if answer.status != 302:
        raise RuntimeError(f"logging in as {username} answered {answer.status}")


def fetch_all(site: Site, folder: Path) -> dict[Path, str]:
    """Each page saved as a file in `folder`; file -> "name (path)"."""
    visitor, editor = Reader(site.url), Reader(site.url)
    login = site.manage("demo_login")
    log_in(editor, username=_first(r"Username: (\S+)", login), password=_first(r"Password: (\S+)", login))
    wanted = [(visitor, name, path, 200) for name, path in reader_pages(visitor).items()]
    wanted += [(editor, name, path, 200) for name, path in dashboard_pages(editor).items()]
    wanted += [(visitor, name, path, status) for name, path, status in ERROR_PAGES]
    saved = {}
    for reader, name, path, status in wanted:
        answer = reader.get(urllib.parse.quote(path, safe="/?=&%"))
        if answer.status != status:
            raise RuntimeError(f"{name} ({path}) answered {answer.status}, not {status}")
        file = folder / f"{name}.html"
        file.write_text(answer.body)
        saved[file] = f"{name} ({path})"
    # The 500 page, as Django's server_error renders it (no request, no context).
    file = folder / "error-500.html"
    file.write_text(site.manage("shell", "--no-imports", "-c", SERVER_ERROR))
    saved[file] = "error-500 (templates/500.html)"
    return saved


def check(vnu: list[str], saved: dict[Path, str]) -> list[str]:
    """The checker's errors, one line each: page, line:column, message, extract."""
    command = [*vnu, "--errors-only", "--format", "json", "--exit-zero-always", *map(str, saved)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    try:
        messages = json.loads(done.stderr)["messages"]
    except (ValueError, KeyError):
        raise RuntimeError(f"vnu.jar answered no JSON (exit {done.returncode}): {done.stderr[-2000:]}") from None
    by_name = {file.name: page for file, page in saved.items()}
    lines = []
    for message in messages:
        url = message.get("url", "?")
        page = by_name.get(url.rpartition("/")[2], url)
        extract = " ".join((message.get("extract") or "").split())[:120]
        lines.append(f"{page}:{message.get('lastLine', '?')}:{message.get('firstColumn', '?')}: "
                     f"{message.get('message')}  [{extract}]")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the checked pages in this folder")
    args = parser.parse_args(argv)
    vnu = vnu_command()
    uri = os.environ.get("MONGODB_URI")
    if vnu is None:
        return 2
    if not uri:
        print("html-check: set MONGODB_URI (`make devdb` prints it).", file=sys.stderr)
        return 2
    folder = args.keep or Path(tempfile.mkdtemp(prefix="slugline-html-check-"))
    folder.mkdir(parents=True, exist_ok=True)
    site = Site(mongodb_uri=uri)
    try:
        site.prepare(posts=4, comments=12)
        site.manage("shell", "-c", PICTURE_SETUP)
        site.start(POSTS_PER_PAGE="2", COMMENTS_PER_PAGE="5")  # so that lists have a page 2
        saved = fetch_all(site, folder)
        errors = check(vnu, saved)
    finally:
        site.stop()
        site.drop()
        shutil.rmtree(site.workdir, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    for line in errors:
        print(line)
    print(f"html-check: {len(saved)} pages, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
