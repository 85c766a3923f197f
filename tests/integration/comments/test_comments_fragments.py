"""The rendered-comments cache (comments/reading/fragments.py): what a key depends on, who
shares cached pages, what a cache hit costs, and that every write to a discussion
shows on a warm cached page at once. The write-path tests run on both of Django's
cache backends Slugline is configured with: local memory and Redis (a redis-server
this module starts on a free loopback port)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId, json_util
from django.core.cache import cache
from django.test import Client

from cms import authors, posts
from cms.models import AuthorProfile
from comments.moderation import queue as moderation
from comments.reading import fragments, listers
from comments.records import CommentAuthor
from comments.transfer import backup
from tests.page_reading import page, permalink_url, post_url, submit

REDIS_MISSING = (
    "REDIS-SERVER IS NOT INSTALLED: THE REDIS CACHE TESTS ARE SKIPPED "
    "(make test installs it with tools/redis-setup.sh when run as root)"
)


# --- Backends -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A redis-server of this module's own on a free loopback port, without persistence."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip(REDIS_MISSING)
    port = _free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(params=["locmem", "redis"])
def backend(request, settings):
    """Django's default cache as Slugline configures it: local memory, or Redis."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
        cache.clear()
    settings.COMMENTS_CACHE_SECONDS = 300
    yield request.param
    cache.clear()


# --- Keys and viewers ----------------------------------------------------------------------


def _post(**changes) -> posts.Post:
    base = posts.Post(
        id=ObjectId("65f000000000000000000001"), title="T", slug="t", content="", content_html="",
        created=datetime(2026, 1, 1, tzinfo=timezone.utc), published=datetime(2026, 1, 1, tzinfo=timezone.utc),
        status=posts.PUBLISHED, author=posts.AuthorSummary(id=1, username="a", name="A"),
    )
    return replace(base, **changes)


@pytest.mark.parametrize("change", [
    {"query": {"version": "v2"}}, {"post": {"id": ObjectId("65f000000000000000000002")}},
    {"post": {"slug": "renamed"}}, {"post": {"comments_closed": True}},
    {"query": {"view": "newest"}}, {"query": {"page": "2"}}, {"query": {"after": "c1"}},
    {"query": {"before": "c1"}},
    {"setting": ("COMMENTS_STORE", "embedded")}, {"setting": ("COMMENTS_PER_PAGE", 7)},
    {"setting": ("COMMENTS_MAX_DEPTH", 3)}, {"setting": ("COMMENTS_INDENT_LIMIT", 2)},
    {"setting": ("TIME_ZONE", "Europe/Paris")},
])
def test_the_key_changes_with_everything_the_fragment_depends_on(change, settings):
    """Version, discussion, slug, closed, view, page or cursor, and the settings that shape a page."""
    query = {"view": "threaded", "version": "v1"}
    before = fragments.fragment_key(post=_post(), **query)
    if "setting" in change:
        setattr(settings, *change["setting"])
    after = fragments.fragment_key(post=_post(**change.get("post", {})), **{**query, **change.get("query", {})})
    assert before != after and after.startswith(fragments.KEY_PREFIX)


def test_the_key_is_the_same_for_the_same_page():
    assert fragments.fragment_key(post=_post(), view="threaded", version="v1") == fragments.fragment_key(
        post=_post(), view="threaded", version="v1")


def test_a_page_with_a_recent_comment_is_kept_briefly(make_post, make_comment, settings):
    """Relative times ("2 minutes ago") stay about right: a tenth of the youngest comment's age."""
    settings.COMMENTS_CACHE_SECONDS = 300
    post = make_post()
    now = datetime.now(timezone.utc)
    make_comment(post, at=now - timedelta(minutes=2))
    listing = listers.list_comments(discussion_id=post.id, view="threaded")
    assert fragments.keep_seconds(listing, now=now) == 12
    assert fragments.keep_seconds(listing, now=now + timedelta(days=2)) == 300
    assert fragments.keep_seconds(listing, now=now - timedelta(minutes=2)) == fragments.MIN_SECONDS


# --- What a hit costs, and what it holds -------------------------------------------------


def test_a_warm_post_page_costs_one_command_and_no_comment_query(client, make_post, make_comment, commands, backend):
    """A miss: the post, its discussion's state (the counts and the version) and the
    page. A hit: the post and the state, both by key."""
    post = make_post()
    for _ in range(4):
        make_comment(post)
    commands.reset()
    cold = client.get(post_url(post))
    assert sorted(commands.names) == ["find", "find", "find"]
    commands.reset()
    warm = client.get(post_url(post))
    assert commands.names == ["find", "find"]
    assert page(warm).comments == page(cold).comments and len(page(warm).comments) == 4


def test_a_cached_page_is_the_page_rendered_without_the_cache(make_post, make_comment, settings, backend):
    """Byte for byte, but for the CSRF token of the reader's own form."""
    post = make_post()
    for i in range(3):
        make_comment(post, text=f"Comment {i}", at=datetime(2026, 1, 2, 9, i, tzinfo=timezone.utc))
    settings.COMMENTS_CACHE_SECONDS = 0
    plain = Client().get(post_url(post)).content.decode()
    settings.COMMENTS_CACHE_SECONDS = 300
    Client().get(post_url(post))
    cached = Client().get(post_url(post)).content.decode()

    def comments_part(html: str) -> str:
        return html[html.index('<section id="comments"'):html.index('<form id="reply"')]

    assert comments_part(cached) == comments_part(plain) and "Comment 2" in comments_part(cached)


def test_the_cached_fragment_holds_nothing_of_one_reader(client, make_post, make_comment, backend):
    """No CSRF token, no form, no user: two readers share the comments and get their own tokens."""
    post = make_post()
    make_comment(post, text="Shared")
    first, second = Client(), Client()
    first.get(post_url(post))
    kept = [cache.get(key) for key in [fragments.fragment_key(post=posts.get_by_id(post.id), view="threaded")]][0]
    assert kept is not None and "Shared" in kept["html"]
    assert "csrfmiddlewaretoken" not in kept["html"] and "<form" not in kept["html"]
    one, two = page(first.get(post_url(post))), page(second.get(post_url(post)))
    assert one.comments == two.comments
    assert one.inputs["csrfmiddlewaretoken"] and two.inputs["csrfmiddlewaretoken"]


def test_a_commenter_gets_their_own_page_with_edit_links(client, make_post, make_comment, backend):
    """The browser that posted a comment sees its Edit link; a stranger's cached page has none."""
    post = make_post()
    make_comment(post, text="Older")
    stranger = Client()
    stranger.get(post_url(post))
    assert submit(client, post_url(post), text="Mine").status_code == 303
    mine = page(client.get(post_url(post)))
    assert "Edit" in [link["text"] for link in mine.links]
    theirs = page(stranger.get(post_url(post)))
    assert [c["text"] for c in theirs.comments] == ["Older", "Mine"]
    assert "Edit" not in [link["text"] for link in theirs.links]


def test_editors_see_held_comments_that_the_shared_page_hides(make_post, make_user, settings, backend):
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    stranger = Client()
    stranger.get(post_url(post))
    assert submit(Client(), post_url(post), text="Held").status_code == 303
    editor = Client()
    editor.force_login(make_user("bruno", role="editor"))
    assert [c["text"] for c in page(editor.get(post_url(post))).comments] == ["Held"]
    assert page(stranger.get(post_url(post))).comments == []


# --- Every write shows at once on a warm page -----------------------------------------------


@pytest.fixture
def warm(make_post, make_comment, backend):
    """A post with three comments, whose page a stranger has cached; `shown()` reads it again."""
    post = make_post()
    made = [make_comment(post, text=f"Comment {i}", at=datetime(2026, 1, 2, 9, i, tzinfo=timezone.utc))
            for i in range(3)]
    stranger = Client()

    def shown() -> list[str]:
        return [c["text"] for c in page(stranger.get(post_url(post))).comments]

    assert shown() == ["Comment 0", "Comment 1", "Comment 2"]
    assert cache.get(fragments.fragment_key(post=posts.get_by_id(post.id), view="threaded")) is not None
    return post, made, shown


def test_a_new_comment_shows_on_a_warm_page(client, warm):
    post, _, shown = warm
    assert submit(client, post_url(post), text="Brand new").status_code == 303
    assert shown()[-1] == "Brand new"


def test_an_authors_edit_and_delete_show_on_a_warm_page(client, warm):
    post, _, shown = warm
    location = submit(client, post_url(post), text="First draft")["Location"]
    assert shown()[-1] == "First draft"
    slug = next(c["slug"] for c in page(client.get(location)).comments if c["text"] == "First draft")
    assert client.post(f"{permalink_url(post, slug)}edit/", {"text": "Second draft"}).status_code == 303
    assert shown()[-1] == "Second draft"
    assert client.post(f"{permalink_url(post, slug)}delete/", {"confirm": "yes"}).status_code == 303
    assert shown() == ["Comment 0", "Comment 1", "Comment 2"]


def test_flags_that_hold_a_comment_show_on_a_warm_page(warm, settings):
    settings.COMMENTS_FLAGS_TO_HOLD = 2
    post, made, shown = warm
    flag_url = f"{permalink_url(post, made[1].slug)}flag/"
    assert Client(REMOTE_ADDR="192.0.2.1").post(flag_url, {"reason": "spam"}).status_code == 303
    assert shown() == ["Comment 0", "Comment 1", "Comment 2"]
    assert Client(REMOTE_ADDR="192.0.2.2").post(flag_url, {"reason": "spam"}).status_code == 303
    assert shown() == ["Comment 0", "Comment 2"]


@pytest.mark.parametrize("action", ["spam", "delete"])
def test_bulk_moderation_shows_on_a_warm_page(warm, action):
    post, made, shown = warm
    moderation.moderate(action=action, comment_ids=[made[0].id, made[2].id])
    assert shown() == ["Comment 1"]
    moderation.moderate(action="approve", comment_ids=[made[0].id, made[2].id])
    assert shown() == ["Comment 0", "Comment 1", "Comment 2"]


def test_removing_a_thread_shows_on_a_warm_page(warm, make_comment):
    post, made, shown = warm
    make_comment(post, parent_slug=made[0].slug, text="A reply")
    assert shown() == ["Comment 0", "A reply", "Comment 1", "Comment 2"]
    moderation.remove_subthread(comment_id=made[0].id)
    assert shown() == ["Comment 1", "Comment 2"]


def test_a_ban_shows_on_a_warm_page(warm, make_comment):
    post, _, shown = warm
    troll = make_comment(post, text="Troll", author=CommentAuthor(id=None, name="T", email="t@example.com"),
                         ip="203.0.113.9")
    assert shown()[-1] == "Troll"
    moderation.ban_commenter(comment_id=troll.id, editor="bruno")
    assert shown() == ["Comment 0", "Comment 1", "Comment 2"]


@pytest.mark.django_db
def test_a_rename_shows_on_a_warm_page_beyond_the_latest_comments(make_user, make_post, make_comment, backend):
    """Also when the renamed commenter's comment is not among the post's latest three
    (whose summary a rename recomputes anyway)."""
    ada = make_user("ada", display_name="Ada Lindqvist")
    post = make_post()
    make_comment(post, text="By Ada", author=CommentAuthor(id=ada.pk, name="Ada Lindqvist"),
                 at=datetime(2026, 1, 2, 9, 0, tzinfo=timezone.utc))
    for i in range(3):
        make_comment(post, at=datetime(2026, 1, 2, 10, i, tzinfo=timezone.utc))
    stranger = Client()

    def first_author() -> str:
        return page(stranger.get(post_url(post))).comments[0]["author"]

    assert first_author() == "Ada Lindqvist"
    authors.update_author(user=ada, display_name="Ada L.", bio="", avatar_url="")
    assert first_author() == "Ada L."
    AuthorProfile.objects.filter(user=ada).update(display_name="Ada Q.")
    authors.sync_all_authors()
    assert first_author() == "Ada Q."


def test_an_import_shows_on_a_warm_page(warm, mongo_db):
    post, made, shown = warm
    document = mongo_db.comments.find_one({"_id": made[2].id})
    document.update(_id=ObjectId(), slug="imported", full_slug="2026.01.02.09.59.00.000000:imported",
                    thread="2026.01.02.09.59.00.000000:imported", text="Imported", html="<p>Imported</p>",
                    posted=datetime(2026, 1, 2, 9, 59, tzinfo=timezone.utc))
    backup.import_comments(lines=[json_util.dumps(document, json_options=backup.JSON_OPTIONS)])
    assert shown()[-1] == "Imported"


def test_no_cache_at_zero_seconds(client, make_post, make_comment, commands, settings):
    settings.COMMENTS_CACHE_SECONDS = 0
    post = make_post()
    make_comment(post)
    client.get(post_url(post))
    commands.reset()
    client.get(post_url(post))
    assert sorted(commands.names) == ["find", "find", "find"]
