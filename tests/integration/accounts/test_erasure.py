"""Closing an account (/accounts/delete/): asked first (password, or a mailed code for
an account without one), then the account is closed at once and its data erased from
every store and copy; a wrong password or code changes nothing; an erasure cut short
is finished once by the next run."""

from __future__ import annotations

import pickle

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.cache import caches
from django.test import Client

from accounts import deletion
from accounts.forms import WRONG_CODE, WRONG_PASSWORD
from api import tokens
from comments.erasure import jobs, work
from comments.notifications import outbox, subscriptions
from comments.records import DELETED, PENDING, CommentAuthor
from comments.stores import get_store, summaries
from comments.votes import collection as votes
from infra.mongo import get_db

pytestmark = pytest.mark.django_db
PASSWORD = "a long enough passphrase 7"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def cached_texts() -> str:
    """Everything this process's cache holds, as text."""
    local = caches["local"]
    return " ".join(str(pickle.loads(value)) for value in list(local._cache.values()))


@pytest.fixture
def rosa_and_ivo(make_verified_reader, make_post, make_comment):
    """Rosa: a comment Ivo replied to, one without replies, one held, a vote, a
    subscription, mail on its way, an API token; Ivo: the reply and a comment."""
    rosa = make_verified_reader("rosa@example.org", name="Rosa Park")
    ivo = make_verified_reader("ivo@example.org", name="Ivo Bell")
    post = make_post(title="Harbour")
    mine = CommentAuthor(id=rosa.pk, name="Rosa Park", email="rosa@example.org")
    root = make_comment(post, text="rosa root words", author=mine)
    reply = make_comment(post, text="ivo replies", parent_slug=root.slug,
                         author=CommentAuthor(id=ivo.pk, name="Ivo Bell", email="ivo@example.org"))
    alone = make_comment(post, text="rosa alone words", author=mine)
    held = make_comment(post, text="rosa held words", author=mine)
    get_store().set_status(ids=[held.id], status=PENDING)
    summaries.settle(discussion_id=post.id, slugs=[held.slug])
    votes.cast(comment=reply, voter=f"u:{rosa.pk}", vote="up")
    subscriptions.subscribe(kind=subscriptions.REPLIES, target=root.id, discussion_id=post.id,
                            email="rosa@example.org", user_id=rosa.pk)
    outbox.enqueue(key="x:1", batch="x", kind="reply", to="rosa@example.org", data={"comment": reply.id})
    outbox.enqueue(key="x:2", batch="y", kind="queue", to="ed@example.org", data={"comment": held.id})
    tokens.create_token(user_id=rosa.pk, name="script", scope=tokens.READ, created_by="rosa")
    return {"rosa": rosa, "post": post, "root": root, "reply": reply, "alone": alone, "held": held}


@pytest.mark.usefixtures("each_store")
def test_the_password_closes_the_account_and_erases_its_data_everywhere(rosa_and_ivo):
    """Comments become blank placeholders keeping their replies, in every store; the
    vote leaves the tally; summaries, cached pages and the outbox keep nothing of her."""
    rosa, post, root, reply = (rosa_and_ivo[k] for k in ("rosa", "post", "root", "reply"))
    assert Client().get(f"/posts/{post.slug}/").status_code == 200
    assert "rosa alone words" in cached_texts()
    response = signed_in(rosa).post("/accounts/delete/", {"action": "erase", "password": PASSWORD})
    assert response.status_code == 302
    page = Client().get(response["Location"])
    assert "The account is closed and its data is erased." in page.content.decode()
    store = get_store()
    documents = str(list(store.iter_documents(discussion_id=post.id)))
    for trace in ("rosa root words", "rosa alone words", "rosa held words", "Rosa Park", "rosa@example.org"):
        assert trace not in documents
        assert trace not in str(get_db().posts.find_one({"_id": post.id}))
        assert trace not in cached_texts()
    erased = {c.id: c for c in store.find_by_ids(ids=[rosa_and_ivo[k].id for k in ("root", "alone", "held")])}
    assert {(c.status, c.author.id, c.text) for c in erased.values()} == {(DELETED, None, "")}
    assert erased[root.id].placeholder and not erased[rosa_and_ivo["alone"].id].placeholder
    kept = store.find_by_id(reply.id)
    assert (kept.status, kept.parent_id, kept.text, kept.votes_up) == ("approved", root.id, "ivo replies", 0)
    assert get_db().comment_votes.count_documents({"voter": f"u:{rosa.pk}"}) == 0
    assert get_db().comment_subscriptions.count_documents({}) == 0
    assert [d["_id"] for d in get_db().notification_outbox.find()] == []
    assert get_db().api_tokens.count_documents({}) == 0
    rosa.refresh_from_db()
    assert not rosa.is_active and rosa.username.startswith("erased-") and not rosa.has_usable_password()
    assert not EmailAddress.objects.filter(user=rosa).exists()
    assert Client().post("/accounts/login/", {"login": "rosa@example.org", "password": PASSWORD}).status_code == 200
    record = get_db().comment_erasures.find_one()
    assert set(record) == {"_id", "started", "step", "counts", "lease", "finished"}
    assert record["counts"] == {"comments": 3, "votes": 1, "subscriptions": 1, "mail": 1, "addresses": 0}


def test_a_wrong_password_erases_nothing(rosa_and_ivo):
    rosa = rosa_and_ivo["rosa"]
    response = signed_in(rosa).post("/accounts/delete/", {"action": "erase", "password": "not it"})
    assert response.status_code == 400
    assert str(WRONG_PASSWORD) in response.content.decode()
    rosa.refresh_from_db()
    assert rosa.is_active and get_db().comment_erasures.count_documents({}) == 0
    assert get_store().find_by_id(rosa_and_ivo["alone"].id).text == "rosa alone words"


def test_an_account_without_a_password_confirms_with_a_mailed_code(make_verified_reader, make_post, make_comment):
    """A wrong code changes nothing; the mailed one closes the account."""
    nora = make_verified_reader("nora@example.org", password=None, name="Nora")
    comment = make_comment(make_post(), text="nora words",
                           author=CommentAuthor(id=nora.pk, name="Nora", email="nora@example.org"))
    client = signed_in(nora)
    assert "Mail me a code" in client.get("/accounts/delete/").content.decode()
    assert client.post("/accounts/delete/", {"action": "send_code"}).status_code == 302
    code = next(line.strip() for line in mail.outbox[-1].body.splitlines() if line.strip().isdigit())
    assert mail.outbox[-1].to == ["nora@example.org"]
    wrong = client.post("/accounts/delete/", {"action": "erase", "code": "000000" if code != "000000" else "111111"})
    assert wrong.status_code == 400 and str(WRONG_CODE) in wrong.content.decode()
    assert get_store().find_by_id(comment.id).text == "nora words"
    assert client.post("/accounts/delete/", {"action": "erase", "code": code}).status_code == 302
    assert get_store().find_by_id(comment.id).text == ""
    nora.refresh_from_db()
    assert not nora.is_active


class Killed(Exception):
    """Stands for the process dying mid-batch."""


def test_an_erasure_cut_short_is_finished_once_by_the_worker(monkeypatch, make_verified_reader, make_post,
                                                             make_comment):
    """The request does a bounded share (here none) and says so; a run killed after
    changing a batch leaves it recorded; the next run finishes and counts it once."""
    rosa = make_verified_reader("rosa@example.org", name="Rosa Park")
    post = make_post()
    for n in range(5):
        make_comment(post, text=f"rosa {n}", author=CommentAuthor(id=rosa.pk, name="Rosa Park"))
    monkeypatch.setattr(deletion, "IN_REQUEST_SECONDS", 0)
    monkeypatch.setattr(work, "BATCH", 2)
    response = signed_in(rosa).post("/accounts/delete/", {"action": "erase", "password": PASSWORD})
    assert "under way" in Client().get(response["Location"]).content.decode()
    refresh = summaries.refresh_summary

    def killed(**kwargs):
        refresh(**kwargs)
        raise Killed

    monkeypatch.setattr(summaries, "refresh_summary", killed)
    erasure_id = get_db().comment_erasures.find_one()["_id"]
    with pytest.raises(Killed):
        work.run(erasure_id, seconds=60)
    assert len(get_db().comment_erasures.find_one()["batch"]) == 2
    monkeypatch.setattr(summaries, "refresh_summary", refresh)
    get_db().comment_erasures.update_one({"_id": erasure_id}, {"$set": {"lease": None}})  # the lease ran out
    assert work.continue_all(seconds=60) == 1
    done = jobs.find(erasure_id)
    assert done.done and done.counts["comments"] == 5
    assert [c.text for c in get_store().find_latest(discussion_id=post.id, limit=10)] == []
    assert work.continue_all(seconds=60) == 0
