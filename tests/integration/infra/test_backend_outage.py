"""PostgreSQL gone while FerretDB stays up: FerretDB then answers every command with
an InternalError naming the lost backend, and the site must treat that as the
outage it is (stale pages where kept, 503 in the site's layout with the reader's
text kept, translated), while a bad query stays a bug. These kill (SIGKILL) the
PostgreSQL of a development database of their own, never the shared one."""

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest
from django.core.cache import cache
from pymongo import MongoClient
from pymongo.errors import OperationFailure

from comments import conf
from comments.stores import get_store
from infra import mongo
from devdb.server import DevDB
from tests.page_reading import page, post_url

pytestmark = pytest.mark.lifecycle

NOT_ANSWERING = "Cơ sở dữ liệu của trang hiện không phản hồi"  # the 503 page's text, in Vietnamese
CANNOT_SAVE = "Hiện chưa thể lưu bình luận"  # the comment form's 503 message, in Vietnamese


@pytest.fixture(scope="module")
def private_devdb():
    """A development database of this module's own in a temporary folder (the
    postgres user must enter it), sharing the built binaries; durable, as production's
    PostgreSQL is: what it acknowledged outlives its kill."""
    folder = Path(tempfile.mkdtemp(prefix="slugline-backend-outage-"))
    folder.chmod(0o755)
    devdb = DevDB(root=folder / "devdb", durable=True)
    devdb.start()
    yield devdb
    devdb.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def site_on_private(private_devdb, settings, monkeypatch):
    """The site's client points at the private database (started again if an earlier
    test killed its PostgreSQL), with every index, for this test only."""
    server, _ = private_devdb.start()
    client = MongoClient(server.uri, tz_aware=True, serverSelectionTimeoutMS=3000, appname="slugline")
    monkeypatch.setattr(mongo, "_client", client)
    monkeypatch.setattr(mongo, "_client_pid", os.getpid())
    db = client[settings.MONGODB_NAME]
    for name in db.list_collection_names():
        db[name].delete_many({})
    mongo.ensure_all_indexes(db)
    get_store(conf.get().store).ensure_indexes(db)
    yield private_devdb
    client.close()


def kill_postgres(devdb: DevDB) -> None:
    """SIGKILL the private PostgreSQL (FerretDB stays up), then wait until FerretDB
    says so: right after the kill a backend that has not noticed yet may still answer."""
    pid = devdb.postmaster_pid()
    assert pid, "the private PostgreSQL is not running"
    os.kill(pid, signal.SIGKILL)
    probe = MongoClient(devdb.recorded().uri, serverSelectionTimeoutMS=3000)
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            try:
                probe.probe.things.find_one({})
            except OperationFailure as exc:
                if exc.code == mongo.INTERNAL_ERROR:
                    return
                raise
            time.sleep(0.1)
        raise AssertionError("FerretDB still answered 20 s after its PostgreSQL was killed")
    finally:
        probe.close()


@pytest.mark.usefixtures("each_store")
def test_a_page_view_answers_its_last_copy_or_503_in_the_site_layout(
    client, make_post, make_comment, site_on_private
):
    """Read before: its last copy (200, the article shown). Never read: the site's
    503 page with Retry-After, in the reader's language. No 500."""
    read = make_post(title="Read before the outage")
    never = make_post(title="Never read")
    make_comment(read, text="Kept with the page")
    assert client.get(post_url(read)).status_code == 200
    assert client.get("/").status_code == 200
    kill_postgres(site_on_private)
    assert site_on_private.running() is None  # FerretDB's ping fails too: it is an outage

    again = client.get(post_url(read))
    assert again.status_code == 200
    assert b"Read before the outage" in again.content
    assert client.get("/").status_code == 200

    missing = client.get(post_url(never), HTTP_ACCEPT_LANGUAGE="vi")
    assert missing.status_code == 503
    assert missing["Retry-After"]
    assert b'class="site-header"' in missing.content
    assert NOT_ANSWERING in missing.content.decode()


@pytest.mark.usefixtures("each_store")
def test_a_comment_post_answers_503_with_the_text_kept(client, make_post, site_on_private):
    """The comment form sent while PostgreSQL is gone comes back 503, with the
    reader's text and a message saying why, in the reader's language."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    kill_postgres(site_on_private)
    response = client.post(
        shown.form_action, {**shown.inputs, "text": "Do not lose me", "name": "Rosa"}, HTTP_ACCEPT_LANGUAGE="vi"
    )
    assert response.status_code == 503
    assert page(response).textareas["text"].strip() == "Do not lose me"
    assert CANNOT_SAVE in response.content.decode()


def test_start_after_the_kill_restarts_postgresql_and_reuses_its_own_ferretdb(site_on_private):
    """`python -m devdb start` after PostgreSQL was killed recognises its own
    FerretDB on its port (not "another program"), restarts PostgreSQL, and serves
    the data written before."""
    devdb = site_on_private
    assert devdb.sql("SHOW synchronous_commit").strip() == "on"  # durable: the write below outlives the kill
    before = devdb.recorded()
    MongoClient(before.uri).lifecycle.things.insert_one({"kept": True})
    kill_postgres(devdb)
    server, _ = devdb.start()
    assert server.port == before.port
    assert devdb._postgres_running()
    client = MongoClient(server.uri, serverSelectionTimeoutMS=3000)
    assert client.lifecycle.things.find_one({}, {"_id": 0}) == {"kept": True}
    client.close()


def test_a_bad_query_is_still_a_bug_not_an_outage(mongo_db):
    """With the database up, a malformed query fails with FerretDB's own error, which
    the site does not mistake for an outage (it surfaces as a 500 and a log line)."""
    with pytest.raises(OperationFailure) as failure:
        mongo_db.things.find_one({"$where_not": 1})
    assert not mongo.is_outage(failure.value)


@pytest.mark.parametrize("in_place", [False, True])
def test_a_fresh_worker_keeps_the_comment_text_in_an_outage(client, make_post, site_on_private, in_place):
    """A worker started after the page was read (its cache empty: no last good copy of
    the post) answers a comment sent during the outage with 503 in the site's layout:
    a form posting back to the same address with the reader's text, name and token,
    and a message to send it again, in the reader's language (8 of 8 readers lost
    their text to the generic 503 page). Sent again once PostgreSQL is back, the same
    form stores the comment."""
    post = make_post(title="Read by another worker")
    shown = page(client.get(post_url(post)))
    sent = {**shown.inputs, "text": "Keep every word of this", "name": "Rosa", "email": "rosa@example.com"}
    kill_postgres(site_on_private)
    cache.clear()  # A fresh worker: nothing of this post is kept in its process.
    headers = {"HTTP_SLUGLINE_IN_PLACE": "1"} if in_place else {}
    response = client.post(shown.form_action, sent, HTTP_ACCEPT_LANGUAGE="vi", **headers)
    assert response.status_code == 503
    assert response["Retry-After"]
    answer = page(response)
    assert b'class="site-header"' in response.content
    assert answer.form_action.split("#")[0] == shown.form_action.split("#")[0]
    assert answer.textareas["text"] == "Keep every word of this"
    assert (answer.inputs["name"], answer.inputs["email"]) == ("Rosa", "rosa@example.com")
    assert answer.inputs["token"] == sent["token"]
    assert CANNOT_SAVE in response.content.decode()

    site_on_private.start()
    again = client.post(answer.form_action, {**answer.inputs, **answer.textareas})
    assert again.status_code == 303, again.content.decode()[-800:]
    assert [c["text"] for c in get_store().iter_documents(discussion_id=post.id)] == ["Keep every word of this"]
