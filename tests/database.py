"""The fixtures of the tests that use the database: the MongoDB session fixture and
the builders (a plugin of tests/conftest.py). Nothing here is autouse: the
integration and browser tiers' conftest.py put every test of theirs on the database
(`on_the_database`); a unit test never asks, so it starts nothing.

Every test session runs in its own MongoDB database on the dev server (FerretDB v2
started here unless MONGODB_URI names a server) and drops it afterwards. There is
no stand-in for the server: the tests talk to the real one.
"""

from __future__ import annotations

import itertools
import os
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from pymongo import MongoClient

from cms import posts
from cms.posts import AuthorSummary
from comments.posting import services
from comments.records import CommentAuthor
from infra import mongo
from tests.command_log import registered
from tests.written import WRITTEN


COUNTER = registered()


def shard_where_the_server_shards(db) -> None:
    """On a server that shards (`make test-cluster`: the development cluster), every
    store's collections are sharded on their keys, so the suite runs on sharded
    collections; on the single-node dev database this sends one `hello`."""
    from comments.stores import STORES, get_store
    from infra import sharding

    keys = [key for name in STORES for key in get_store(name).shard_keys]
    sharding.shard_where_possible(client=mongo.get_client(), db_name=db.name, keys=keys)


@pytest.fixture(scope="session")
def mongo_database():
    """A fresh MongoDB database for this session, with every index, dropped at the end."""
    from django.conf import settings

    started = None
    if not os.environ.get("MONGODB_URI"):
        from devdb.server import DevDB

        devdb = DevDB()
        server, we_started = devdb.start()
        settings.MONGODB_URI = server.uri
        started = devdb if we_started else None
    settings.MONGODB_NAME = f"slugline_test_{uuid.uuid4().hex[:12]}"
    mongo.reset_client()
    db = mongo.get_db()
    mongo.ensure_all_indexes(db)
    shard_where_the_server_shards(db)
    yield db
    mongo.get_client().drop_database(settings.MONGODB_NAME)
    mongo.reset_client()
    if started:
        started.stop()


@pytest.fixture(scope="session")
def _collected_static_files(tmp_path_factory):
    """Static files collected as the release step does (compressed, hashed names)
    into this session's own folder, so pages link and WhiteNoise serves exactly what
    production would; without it the manifest storage cannot name a file. WhiteNoise
    scans them once, not once per test client (tests/static_scan.py)."""
    from django.core.management import call_command
    from django.test import override_settings

    from tests.static_scan import scans_shared

    with override_settings(STATIC_ROOT=tmp_path_factory.mktemp("static")):
        call_command("collectstatic", interactive=False, verbosity=0)
        with scans_shared():
            yield


@pytest.fixture
def _empty_collections(request, mongo_database):
    """Each test starts with empty collections (indexes stay): those the test may
    have written are emptied after it (tests/written.py)."""
    yield
    WRITTEN.empty(mongo_database, test=str(request.node.path))
    if os.environ.get("SLUGLINE_TEST_CHECK_EMPTY"):  # proves the tracking misses nothing
        left = [name for name in mongo_database.list_collection_names()
                if mongo_database[name].count_documents({}, limit=1)]
        assert not left, f"documents left after the test in {left}"


@pytest.fixture
def _empty_cache():
    """Each test starts with an empty Django cache: no last good copies (infra/stale.py),
    rendered comments or author names carried over from another test. (Rate limits
    live in MongoDB, emptied by `_empty_collections`.)"""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


# The comment stores the shared behaviour suite runs against (COMMENTS_STORE values);
# SLUGLINE_TEST_STORES=documents narrows a local run to one.
TEST_STORES = [name for name in os.environ.get("SLUGLINE_TEST_STORES", "documents,embedded,buckets").split(",") if name]


@pytest.fixture(params=TEST_STORES)
def each_store(request, settings, mongo_database):
    """Runs the test once per comment store: a module opts in with
    `pytestmark = pytest.mark.usefixtures("each_store")`. Gives the store's name."""
    from comments.stores import get_store

    settings.COMMENTS_STORE = request.param
    get_store(request.param).ensure_indexes(mongo_database)
    return request.param


@pytest.fixture
def _store_switch_read_once(settings, mongo_database):
    """Which comment store is in use is read once, at the start of each test (the
    site rereads it every few seconds; a test's command counts must not see that)."""
    from comments.stores import store_switch

    settings.COMMENTS_STORE_RECHECK_SECONDS = 24 * 3600
    store_switch.forget()
    store_switch.recorded()
    yield
    store_switch.forget()


@pytest.fixture
def mongo_db(mongo_database):
    """The session's MongoDB database (pytest-django's `db` is Django's)."""
    return mongo_database


@pytest.fixture
def commands():
    """Counts MongoDB commands sent from the moment the test asks for it."""
    COUNTER.reset()
    return COUNTER


@pytest.fixture
def mongodb_outage(monkeypatch, settings):
    """Call it to make MongoDB unreachable for the rest of the test: the process's
    client then points at a closed loopback port, as in an outage."""
    dead = MongoClient(
        "mongodb://127.0.0.1:9/", serverSelectionTimeoutMS=300, connectTimeoutMS=300,
        heartbeatFrequencyMS=500, tz_aware=True, connect=False,
    )

    def begin():
        settings.MONGODB_REQUEST_BUDGET_MS = 400  # keeps the first failing request short
        monkeypatch.setattr(mongo, "_client", dead)
        monkeypatch.setattr(mongo, "_client_pid", os.getpid())

    yield begin
    dead.close()


@pytest.fixture
def mongodb_down(mongodb_outage):
    """MongoDB is unreachable for the whole test."""
    mongodb_outage()


_numbers = itertools.count(1)


@pytest.fixture
def make_post():
    """Builder: a published post (overrides for any field of posts.create_post)."""

    def build(**overrides) -> posts.Post:
        n = next(_numbers)
        fields = {
            "title": f"Post {n}",
            "slug": f"post-{n}",
            "content": f"Body of post {n}.",
            "author": AuthorSummary(id=1, username="ada", name="Ada Lindqvist"),
            "status": posts.PUBLISHED,
            "published": datetime.now(timezone.utc) - timedelta(hours=1),
        }
        fields.update(overrides)
        return posts.create_post(**fields)

    return build


@pytest.fixture
def make_comment():
    """Builder: a comment on `post` through the real service (overrides: text,
    author, parent_slug, at, new_part, summarise)."""

    def build(post: posts.Post, **overrides):
        fields = {
            "text": f"Comment {next(_numbers)}",
            "author": CommentAuthor(id=None, name="Reader", email="reader@example.com"),
        }
        fields.update(overrides)
        return services.post_comment(post=post, **fields).comment

    return build


@pytest.fixture
def post_at_once():
    """Builder: `times` threads post the same comment form (same form key) to `post`
    at the same moment, through the service; their results (overrides: text, author)."""
    from tests.threads import at_once

    def build(post: posts.Post, *, times: int, form_key: str, **overrides):
        fields = {"text": "Raced", "author": CommentAuthor(id=None, name="Rosa"), **overrides}
        outcomes = at_once([lambda: services.post_comment(post=post, form_key=form_key, **fields)] * times)
        failed = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failed:
            raise failed[0]
        return outcomes

    return build


@pytest.fixture
def make_user(db):
    """Builder: a Django user in one of the dashboard's roles: "reader" (logged in,
    not staff), "author" (staff with a public profile) or "editor" (an author in the
    Editors group)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from cms.authors import create_author
    from dashboard.permissions import EDITORS_GROUP

    def build(username: str, *, role: str = "author", display_name: str | None = None):
        if role == "reader":
            return get_user_model().objects.create_user(username=username)
        user = create_author(username=username, display_name=display_name or username.capitalize())
        if role == "editor":
            user.groups.add(Group.objects.get_or_create(name=EDITORS_GROUP)[0])
        return user

    return build


@pytest.fixture
def make_verified_reader(db):
    """Builder: a reader's account as signing up and verifying leave it: the user (the
    address's local part its username), the address's record, verified unless
    `verified=False`, and a Profile with the display name. `password=None`: no usable
    password (nothing to hash)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    def build(address: str, *, password: str | None = "a long enough passphrase 7", name: str = "Ada",
              verified: bool = True):
        user = get_user_model().objects.create_user(username=address.split("@")[0], email=address,
                                                     password=password)
        EmailAddress.objects.create(user=user, email=address, verified=verified, primary=True)
        Profile.objects.create(user=user, display_name=name)
        return user

    return build


@pytest.fixture
def on_the_database(_collected_static_files, _empty_collections, _empty_cache, _store_switch_read_once):
    """What every integration and browser test runs in: the session's database with
    empty collections, an empty cache, the store in use read once, static files
    collected."""
    yield
