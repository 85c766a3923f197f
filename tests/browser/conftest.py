"""Browser tests: Playwright drives Debian's Chromium against one gunicorn site.

One site and one browser serve the whole session. The site is bench.harness's scratch
site on a free loopback port, with its own SQLite database and, for MongoDB, this
session's test database: the builders of tests/database.py (make_post, make_comment)
write what the site shows, and the collections are emptied after each test as
everywhere else.

Chromium is $SLUGLINE_CHROMIUM, or else Debian's chromium-headless-shell (installed by
tools/browser-setup.sh), or else Debian's full chromium: the same browser engine, but
the full one runs its window's own interface in a renderer of its own, about three
times the CPU a test (docs/testing.md). Playwright never downloads a browser of its
own. Without Chromium every browser test is skipped, and the session says so loudly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.harness import PYTHON, REPO
from cms.posts import AuthorSummary
from tests.written import SERVES


@pytest.fixture(autouse=True)
def _on_the_database(on_the_database):
    yield


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE_JS = REPO / "tools" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = REPO / "var" / "screenshots"
ARTEFACTS = REPO / "var" / "browser-tests"
# Small pages, so a few comments make several pages and a deep thread continues.
SITE_ENV = {"COMMENTS_PER_PAGE": "6", "COMMENTS_INDENT_LIMIT": "5", "COMMENTS_MAX_DEPTH": "8"}
EDITOR = {"username": "edith", "name": "Edith Editor", "password": "browser-tests-only-7Qx!"}
NO_CHROMIUM = (
    "BROWSER TESTS SKIPPED: no chromium-headless-shell or chromium on the PATH (nor $SLUGLINE_CHROMIUM). "
    "Run `make test` as root (tools/browser-setup.sh installs Debian's chromium-headless-shell) or "
    "`apt-get install chromium-headless-shell`."
)
_skipped_for_chromium: list[str] = []


def chromium_path() -> str | None:
    found = (os.environ.get("SLUGLINE_CHROMIUM") or shutil.which("chromium-headless-shell")
             or shutil.which("chromium") or "/usr/bin/chromium")
    return found if os.access(found, os.X_OK) else None


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


def pytest_terminal_summary(terminalreporter):
    if _skipped_for_chromium:
        bar = "!" * 78
        terminalreporter.write_line(bar, red=True, bold=True)
        terminalreporter.write_line(NO_CHROMIUM, red=True, bold=True)
        terminalreporter.write_line(bar, red=True, bold=True)


@dataclass(frozen=True)
class Editor:
    id: int
    username: str
    name: str
    password: str

    @property
    def summary(self) -> AuthorSummary:
        return AuthorSummary(id=self.id, username=self.username, name=self.name)


@pytest.fixture(scope="session")
def chromium():
    path = chromium_path()
    if path is None:
        _skipped_for_chromium.append("x")
        pytest.skip(NO_CHROMIUM)
    return path


@pytest.fixture(scope="session")
def site(chromium, site_template):
    """gunicorn serving Slugline on a free loopback port, reading this session's
    MongoDB database; its Django database holds one editor."""
    scratch = site_template.site(workers=2)
    # Only browser tests ask it for pages: the others empty what they wrote alone (tests/written.py).
    scratch.start(**SITE_ENV, **{SERVES: str(Path(__file__).parent)})
    try:
        yield scratch
    finally:
        scratch.stop()
        # The site's log stays as a test artefact (a 500's traceback is in it).
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        (ARTEFACTS / "gunicorn.log").write_text(scratch.log())
        shutil.rmtree(scratch.workdir, ignore_errors=True)


def _in_site(site, code: str) -> dict:
    """Run `code` in a Django shell of the site (its databases); what its last line printed, as JSON."""
    done = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", code], cwd=REPO, env=site.env(),
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _new_reader(site, *, email: str, password: str, name: str) -> int:
    """A reader's account as signing up and verifying leave it (a verified address and
    a display name), in `site`'s Django database: its id."""
    code = (
        "import json\n"
        "from allauth.account.models import EmailAddress\n"
        "from django.contrib.auth import get_user_model\n"
        "from accounts.models import Profile\n"
        f"u = get_user_model().objects.create_user(username={email.split('@')[0]!r}, email={email!r},"
        f" password={password!r})\n"
        f"EmailAddress.objects.create(user=u, email={email!r}, verified=True, primary=True)\n"
        f"Profile.objects.create(user=u, display_name={name!r})\n"
        "print(json.dumps({'id': u.pk}))\n"
    )
    return _in_site(site, code)["id"]


@pytest.fixture(scope="session")
def new_reader():
    """`new_reader(site, email=, password=, name=)`: a reader's account, verified and
    named, in that site's Django database (the session's `site` or a module's own); its id."""
    return _new_reader


@pytest.fixture(scope="session")
def editor(site) -> Editor:
    """An editor in the site's Django database, who can log in."""
    code = (
        "import json\n"
        "from django.contrib.auth.models import Group\n"
        "from cms.authors import create_author\n"
        "from dashboard.permissions import EDITORS_GROUP\n"
        f"u = create_author(username={EDITOR['username']!r}, display_name={EDITOR['name']!r},"
        f" password={EDITOR['password']!r}, bio='Edits Slugline.')\n"
        "u.groups.add(Group.objects.get_or_create(name=EDITORS_GROUP)[0])\n"
        "print(json.dumps({'id': u.pk}))\n"
    )
    user_id = _in_site(site, code)["id"]
    return Editor(id=user_id, username=EDITOR["username"], name=EDITOR["name"], password=EDITOR["password"])


class _Chromium:
    """Playwright and its one Chromium, started for the browser tier and stopped as soon
    as that tier ends: sync Playwright keeps an event loop running in the main thread,
    and while one runs Django refuses its ORM there (SynchronousOnlyOperation), which
    every integration test after this tier opens."""

    def __init__(self) -> None:
        self._playwright = None
        self.launched = None

    def start(self, chromium: str):
        if self.launched is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            # launch() gives Chromium a fresh, empty profile directory of its own, removed
            # when the browser closes: nothing carries over between runs.
            self.launched = self._playwright.chromium.launch(executable_path=chromium, headless=True,
                                                             args=CHROMIUM_ARGS)
        return self.launched

    def stop(self) -> None:
        playwright, launched, self._playwright, self.launched = self._playwright, self.launched, None, None
        try:
            if launched is not None:
                launched.close()
        finally:
            if playwright is not None:
                playwright.stop()


_CHROMIUM = _Chromium()


@pytest.fixture(scope="session")
def _chromium_stopped_at_the_end():
    yield
    _CHROMIUM.stop()


@pytest.fixture
def browser(chromium, _chromium_stopped_at_the_end):
    """The one Chromium, started at a process's first browser test. The tier's modules
    run one after the other (in one process under pytest-xdist: tests/scheduling.py),
    so it starts once a run, unless the command line puts other modules between them."""
    return _CHROMIUM.start(chromium)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a run of browser tests (their fixtures torn down), stop Playwright."""
    if nextitem is None or Path(__file__).parent not in Path(nextitem.fspath).parents:
        _CHROMIUM.stop()


@pytest.fixture
def open_page(browser, site):
    """Opens a page in a fresh browser context: `open_page(js=False, width=390)`;
    `state=editor_state` opens it logged in as the editor.

    Each context starts without cookies; django-csp's header is bypassed so that axe
    can be injected, unless `csp=True` (the site's own scripts under its policy)."""
    contexts = []

    def new_page(
        *, js: bool = True, width: int = 1280, height: int = 900, state: dict | None = None, csp: bool = False
    ):
        context = browser.new_context(
            base_url=site.url,
            storage_state=state,
            java_script_enabled=js,
            bypass_csp=not csp,
            viewport={"width": width, "height": height},
            device_scale_factor=1,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield new_page
    for context in contexts:
        context.close()


def _log_in(page, editor: Editor) -> None:
    """Log in through the login form; the dashboard opens."""
    page.goto("/accounts/login/")
    page.get_by_label("E-mail address or username").fill(editor.username)
    page.get_by_label("Password").fill(editor.password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url("**/dashboard/")


@pytest.fixture(scope="session")
def editor_state(chromium, _chromium_stopped_at_the_end, site, editor) -> dict:
    """Cookies of a logged-in editor session (log in once, reuse in many contexts)."""
    context = _CHROMIUM.start(chromium).new_context(base_url=site.url)
    try:
        page = context.new_page()
        _log_in(page, editor)
        return context.storage_state()
    finally:
        context.close()


@pytest.fixture
def log_in(editor):
    """`log_in(page)`: the editor logs in through the login form."""
    return lambda page: _log_in(page, editor)


@pytest.fixture
def axe():
    """`axe(page)`: axe-core's serious and critical violations on the page, and a
    description of them for the assertion message."""

    def check(page) -> tuple[list[dict], str]:
        violations = _axe_violations(page)
        return violations, _describe(violations)

    return check


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


def _axe_violations(page, impacts=("serious", "critical")) -> list[dict]:
    """axe-core's violations of the given impacts on the page as it is now."""
    assert AXE_JS.exists(), f"{AXE_JS} is missing: tools/browser-setup.sh installs it (npm ci in tools/axe)"
    page.add_script_tag(path=str(AXE_JS))
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [v for v in found if v["impact"] in impacts]


def _describe(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']}: {v['help']} ({v['helpUrl']})")
        lines += [f"    {node['target']} {node['html'][:160]}" for node in v["nodes"][:5]]
    return "\n".join(lines)


@pytest.fixture
def post_by(editor, make_post):
    """Builder: a published post by the session's editor."""

    def build(**overrides):
        return make_post(author=editor.summary, **overrides)

    return build


@dataclass(frozen=True)
class Discussion:
    """A post with eight top-level comments, three hours apart, and under the first a
    chain of seven later replies (depths 1 to 7), which crosses the indent limit (5).
    With six comments a page: threaded page 1 is the first comment and depths 1-5,
    oldest-first page 1 the first six top-level comments, newest-first page 1 the
    last six top-level comments, newest first."""

    post: object
    top: list  # top-level comments, oldest first
    chain: list  # chain[i] is at depth i + 1

    @property
    def deepest(self):
        return self.chain[-1]


LONG_URL = "https://example.com/" + "a-very-long-path-segment-without-any-break" * 4
CODE = "    for comment in discussion: print(comment.full_slug, comment.posted, comment.author.name, 'and more')"


@pytest.fixture
def discussion(post_by, make_comment) -> Discussion:
    from datetime import datetime, timedelta, timezone

    from comments.records import CommentAuthor

    start = datetime.now(timezone.utc) - timedelta(days=3)
    post = post_by(
        title="Threads all the way down",
        slug="threads-all-the-way-down",
        content="A post whose comments nest deeply.\n\n" + CODE + "\n\nSee " + LONG_URL,
        tags=["mongodb", "threads"],
        published=start - timedelta(hours=1),
    )
    names = ["Ada", "Bruno", "Chen", "Dana", "Eli", "Farah", "Gus", "Hana"]
    top = []
    for n, name in enumerate(names):
        text = f"Top-level comment {n + 1} by {name}."
        if n == 1:
            text += " A long address: " + LONG_URL + " and Supercalifragilisticexpialidocious" * 3
        if n == 2:
            text += "\n\n" + CODE
        top.append(make_comment(
            post, text=text, author=CommentAuthor(id=None, name=name, email=""),
            at=start + timedelta(hours=n * 3),
        ))
    chain, parent = [], top[0]
    for depth in range(1, 8):
        parent = make_comment(
            post, text=f"Reply at depth {depth}.", parent_slug=parent.slug,
            author=CommentAuthor(id=None, name=names[depth % len(names)], email=""),
            at=start + timedelta(hours=20, minutes=depth),
        )
        chain.append(parent)
    return Discussion(post=post, top=top, chain=chain)


@pytest.fixture
def pending(post_by, make_comment):
    """Three comments awaiting moderation on a new post, oldest first, each from an
    address of its own (a commenter the queue can ban); held through the store, so the
    discussion's counters (what the queue's tabs count) hold them too."""
    from comments.records import CommentAuthor
    from comments.stores import get_store

    post = post_by(title="Held back", slug="held-back")
    made = [
        make_comment(post, text=f"Pending comment {n}.", author=CommentAuthor(id=None, name=f"Visitor {n}", email=""),
                     ip=f"198.51.100.{n}")
        for n in (1, 2, 3)
    ]
    get_store().set_status(ids=[c.id for c in made], status="pending")
    return post, made
