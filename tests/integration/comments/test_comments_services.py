"""The moderation rules of comments/posting/services.py against the real server: the status a
new or edited comment gets, duplicates, closed discussions, authors editing and
deleting their own comments, flags, placeholders and the post's summary."""

from __future__ import annotations

import functools
import re
import threading
from datetime import datetime, timedelta, timezone

import pytest

from cms import posts
from comments.moderation import blocklist, flags, queue as moderation
from comments.posting import services
from comments.records import APPROVED, DELETED, PENDING, SPAM, CommentAuthor, Viewer
from comments.stores import counters, get_store, summaries
from comments.posting.services import (
    BANNED,
    CANNOT_CHANGE,
    CANNOT_FLAG,
    CLOSED,
    EDIT_TIME_OVER,
    NOT_YOURS,
    PARENT_NOT_FOUND,
    CommentError,
)
from tests import threads
from tests.threads import split

pytestmark = pytest.mark.usefixtures("each_store")

ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.org")
IP = "203.0.113.7"


def post_as(post, author=ROSA, **overrides):
    return services.post_comment(post=post, author=author, **{"text": "Hello", "ip": IP, **overrides})


def stored(comment):
    """The comment as the store holds it now."""
    return get_store().find_by_id(comment.id)


# --- The status of a new comment -----------------------------------------------------


def test_post_moderation_approves_at_once_and_keeps_the_ip(make_post):
    """By default (COMMENTS_MODERATION=post) a comment is approved, with its IP stored."""
    posted = post_as(make_post())
    assert posted.comment.status == APPROVED and not posted.pending
    assert stored(posted.comment).status == APPROVED
    assert stored(posted.comment).ip == IP


def test_premoderation_of_all_holds_every_comment(make_post, settings):
    """COMMENTS_MODERATION=all: every comment is pending and the post's count stays 0."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    posted = post_as(post)
    assert posted.pending
    assert posts.get_by_id(post.id).comment_count == 0


def test_premoderation_of_first_comments_trusts_only_what_a_stranger_cannot_type(make_post, make_user, settings):
    """COMMENTS_MODERATION=first: an anonymous commenter is known by their browser (the
    signed cookie naming their comments: `vouching`) once one of those is approved,
    never by the name and e-mail address typed, which anyone can type; a member is
    known by their account once one of theirs is approved."""
    settings.COMMENTS_MODERATION = ["first"]
    post = make_post()
    first = post_as(post, text="My first")
    assert first.pending
    assert post_as(post, text="My second", vouching=[first.comment.id]).pending
    moderation.moderate(action="approve", comment_ids=[first.comment.id])
    assert not post_as(post, text="My third", vouching=[first.comment.id]).pending
    # Rosa's name and address typed from another browser (by her, or by an impostor):
    assert post_as(post, text="Typed the same address").pending
    member = make_user("mira", role="reader")
    mira = CommentAuthor(id=member.pk, name="Mira")
    held = post_as(post, author=mira, text="Member's first")
    assert held.pending
    moderation.moderate(action="approve", comment_ids=[held.comment.id])
    assert not post_as(post, author=mira, text="Member's second").pending


def test_premoderation_of_links_holds_only_comments_with_a_link(make_post, settings):
    """COMMENTS_MODERATION=links: a Markdown link, a bare address or www. holds the comment."""
    settings.COMMENTS_MODERATION = ["links"]
    post = make_post()
    assert not post_as(post, text="No links here.").pending
    for text in ["See [this](https://spam.example)", "Go to http://spam.example now", "www.spam.example"]:
        assert post_as(post, text=text).pending, text


def test_a_blocked_word_or_email_domain_holds_the_comment(make_post):
    """A blocklisted word (whole words, any case) or e-mail domain sends the comment to pending."""
    blocklist.add_entry(kind=blocklist.WORD, value="Casino")
    blocklist.add_entry(kind=blocklist.DOMAIN, value="spam.example")
    post = make_post()
    assert post_as(post, text="The best CASINO in town").pending
    assert not post_as(post, text="Casinos are not whole words").pending
    sub = CommentAuthor(id=None, name="Bot", email="bot@mail.spam.example")
    assert post_as(post, author=sub, text="Innocent words").pending


def test_an_editors_comment_skips_every_hold(make_post, settings):
    """trusted=True (an editor) is approved even under pre-moderation and with a blocked word."""
    settings.COMMENTS_MODERATION = ["all"]
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    assert not post_as(make_post(), text="casino", trusted=True).pending


def test_an_unknown_moderation_setting_is_an_error(make_post, settings, mongo_db):
    """A typo in COMMENTS_MODERATION is refused loudly rather than ignored."""
    from django.core.exceptions import ImproperlyConfigured

    settings.COMMENTS_MODERATION = ["pre-first"]
    with pytest.raises(ImproperlyConfigured):
        post_as(make_post())
    assert mongo_db.comments.count_documents({}) == 0


def test_a_banned_commenter_is_refused_and_nothing_is_written(make_post, mongo_db):
    """A banned e-mail address, IP address or user id cannot post."""
    post = make_post()
    blocklist.add_entry(kind=blocklist.BAN_IP, value=IP)
    with pytest.raises(CommentError, match=re.escape(BANNED)):
        post_as(post)
    member = CommentAuthor(id=7, name="Member")
    blocklist.add_entry(kind=blocklist.BAN_USER, value="7")
    with pytest.raises(CommentError, match=re.escape(BANNED)):
        post_as(post, author=member, ip=None)
    assert mongo_db.comments.count_documents({}) == 0


# --- Duplicates -------------------------------------------------------------------------


@pytest.mark.stores("documents")
def test_the_same_text_by_the_same_author_soon_after_is_the_earlier_comment(make_post, mongo_db):
    """A repeat within COMMENTS_DUPLICATE_WINDOW returns the first comment (duplicate=True)."""
    post = make_post()
    first = post_as(post, text="Twice")
    again = post_as(post, text="Twice")
    assert again.duplicate and again.comment.id == first.comment.id
    assert mongo_db.comments.count_documents({}) == 1


@pytest.mark.stores("documents")
def test_a_repeat_elsewhere_by_someone_else_or_later_is_a_new_comment(make_post, mongo_db, settings):
    """Another parent, another author, or a repeat after the window are new comments."""
    settings.COMMENTS_DUPLICATE_WINDOW = 60
    post = make_post()
    root = post_as(post, text="Thanks!").comment
    post_as(post, text="Thanks!", parent_slug=root.slug)
    post_as(post, text="Thanks!", author=CommentAuthor(id=None, name="Sam", email="sam@example.org"))
    later = datetime.now(timezone.utc) + timedelta(seconds=61)
    post_as(post, text="Thanks!", at=later)
    assert mongo_db.comments.count_documents({}) == 4


# --- Closed discussions -----------------------------------------------------------------


@pytest.mark.stores("documents")
def test_a_closed_post_refuses_comments(make_post, mongo_db):
    """A post closed by hand refuses new comments; opened again, it takes them."""
    post = make_post()
    posts.set_comments_closed(post_id=post.id, closed=True)
    with pytest.raises(CommentError, match=re.escape(CLOSED)):
        post_as(posts.get_by_id(post.id))
    posts.set_comments_closed(post_id=post.id, closed=False)
    post_as(posts.get_by_id(post.id))
    assert mongo_db.comments.count_documents({}) == 1


def test_discussions_close_after_the_configured_number_of_days(make_post, settings):
    """COMMENTS_CLOSE_AFTER_DAYS closes posts published longer ago than that; 0 never closes."""
    old = make_post(published=datetime.now(timezone.utc) - timedelta(days=31))
    new = make_post(published=datetime.now(timezone.utc) - timedelta(days=29))
    assert not services.comments_closed(post=old)
    settings.COMMENTS_CLOSE_AFTER_DAYS = 30
    assert services.comments_closed(post=old) and not services.comments_closed(post=new)
    with pytest.raises(CommentError, match=re.escape(CLOSED)):
        post_as(old)


def test_a_reply_to_a_hidden_comment_is_refused(make_post):
    """Replies attach only to what readers see: not to a pending, spam or deleted comment."""
    post = make_post()
    for status in (PENDING, SPAM, DELETED):
        parent = post_as(post, text=f"Parent {status}").comment
        get_store().set_status(ids=[parent.id], status=status)
        with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)):
            post_as(post, parent_slug=parent.slug, text="Reply")


# --- Authors editing and deleting their own comments ----------------------------------------


def owner_of(comment) -> Viewer:
    return Viewer(own=frozenset({comment.id}))


def test_an_author_edits_within_the_window_and_the_comment_shows_it_was_edited(make_post):
    """An edit stores the new text and html and the time of the edit."""
    post = make_post()
    comment = post_as(post, text="Teh typo").comment
    edited = services.edit_comment(
        post=post, comment=comment, viewer=owner_of(comment), text="The typo, fixed"
    )
    assert edited.text == "The typo, fixed" and "fixed" in edited.html
    assert edited.edited is not None and edited.status == APPROVED
    assert posts.get_by_id(post.id).latest_comments[0].excerpt == "The typo, fixed"


def test_the_edit_window_closes(make_post, settings):
    """Past COMMENTS_EDIT_WINDOW an edit or a delete is refused with the window in minutes."""
    settings.COMMENTS_EDIT_WINDOW = 15 * 60
    post = make_post()
    comment = post_as(post).comment
    viewer = owner_of(comment)
    assert services.can_change(comment, viewer, comment.posted + timedelta(minutes=15))
    late = comment.posted + timedelta(minutes=15, seconds=1)
    assert not services.can_change(comment, viewer, late)
    message = EDIT_TIME_OVER.format(minutes=15)
    with pytest.raises(CommentError, match=re.escape(message)):
        services.edit_comment(post=post, comment=comment, viewer=viewer, text="Too late", now=late)
    with pytest.raises(CommentError, match=re.escape(message)):
        services.delete_own_comment(comment=comment, viewer=viewer, now=late)
    assert get_store().find_by_id(comment.id).text == "Hello"


def test_only_the_author_may_edit(make_post):
    """Another browser, another member, or nobody: NOT_YOURS; a member edits by user id."""
    post = make_post()
    anonymous = post_as(post).comment
    with pytest.raises(CommentError, match=re.escape(NOT_YOURS)):
        services.edit_comment(post=post, comment=anonymous, viewer=Viewer(), text="Mine now")
    member = post_as(post, author=CommentAuthor(id=5, name="Five"), text="By five").comment
    with pytest.raises(CommentError, match=re.escape(NOT_YOURS)):
        services.edit_comment(post=post, comment=member, viewer=Viewer(user_id=6), text="Six")
    edited = services.edit_comment(post=post, comment=member, viewer=Viewer(user_id=5), text="Five!")
    assert edited.text == "Five!"


def test_an_edit_of_a_comment_gone_meanwhile_is_refused(make_post):
    """A comment whose discussion was dropped between the page's read and the edit
    (a migration clearing a copy) is not edited: CANNOT_CHANGE, not None."""
    post = make_post()
    comment = post_as(post).comment
    get_store().drop_discussion(discussion_id=post.id)
    with pytest.raises(CommentError, match=re.escape(CANNOT_CHANGE)):
        services.edit_comment(post=post, comment=comment, viewer=owner_of(comment), text="Still here?")
    assert get_store().find_by_id(comment.id) is None


def test_an_edit_read_before_its_comment_was_deleted_does_not_bring_it_back(make_post):
    """The author deletes the comment in another tab, then saves the edit they had
    open: CANNOT_CHANGE, and the comment stays deleted and uncounted."""
    post = make_post()
    comment = post_as(post).comment
    services.delete_own_comment(comment=comment, viewer=owner_of(comment))
    with pytest.raises(CommentError, match=re.escape(CANNOT_CHANGE)):
        services.edit_comment(post=post, comment=comment, viewer=owner_of(comment), text="Back again")
    stored = get_store().find_by_id(comment.id)
    assert stored.status == DELETED and stored.text == ""
    assert counters.state(post.id, store=get_store()).counts.approved == 0


def test_an_edit_passes_the_same_checks_as_a_new_comment(make_post, settings):
    """A link edited in later under COMMENTS_MODERATION=links sends the comment to pending."""
    settings.COMMENTS_MODERATION = ["links"]
    post = make_post()
    comment = post_as(post, text="Harmless").comment
    assert comment.status == APPROVED
    edited = services.edit_comment(post=post, comment=comment, viewer=owner_of(comment),
                                   text="Buy at https://spam.example")
    assert edited.status == PENDING
    assert posts.get_by_id(post.id).comment_count == 0


def test_an_edit_never_releases_a_held_comment(make_post, settings):
    """A pending comment edited into harmless text stays pending."""
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    post = make_post()
    held = post_as(post, text="casino").comment
    edited = services.edit_comment(post=post, comment=held, viewer=owner_of(held), text="Nothing to see")
    assert edited.status == PENDING


def test_an_edit_by_a_commenter_banned_since_is_refused(make_post):
    """A ban recorded after posting stops the author's edits too."""
    post = make_post()
    comment = post_as(post).comment
    blocklist.add_entry(kind=blocklist.BAN_IP, value=IP)
    with pytest.raises(CommentError, match=re.escape(BANNED)):
        services.edit_comment(post=post, comment=comment, viewer=owner_of(comment), text="Changed", ip=IP)


def test_deleting_ones_own_comment_empties_its_text(make_post):
    """An author's delete sets status deleted and blanks text and html in the database."""
    post = make_post()
    comment = post_as(post, text="Regrets").comment
    services.delete_own_comment(comment=comment, viewer=owner_of(comment))
    kept = stored(comment)
    assert kept.status == DELETED and kept.text == "" and kept.html == ""
    assert posts.get_by_id(post.id).comment_count == 0


def test_a_deleted_or_spam_comment_cannot_be_changed(make_post):
    """Once deleted or marked as spam, the author cannot edit it back."""
    post = make_post()
    comment = post_as(post).comment
    get_store().set_status(ids=[comment.id], status=SPAM)
    with pytest.raises(CommentError, match=re.escape(CANNOT_CHANGE)):
        services.edit_comment(
            post=post, comment=get_store().find_by_id(comment.id), viewer=owner_of(comment), text="x"
        )


# --- Placeholders -------------------------------------------------------------------------


def test_deleting_a_parent_leaves_a_placeholder_and_its_replies(make_post):
    """A deleted comment with an approved reply becomes a placeholder; the count drops by one."""
    post = make_post()
    parent = post_as(post, text="Parent").comment
    reply = post_as(post, text="Reply", parent_slug=parent.slug).comment
    moderation.moderate(action="delete", comment_ids=[parent.id])
    assert get_store().find_by_id(parent.id).placeholder
    assert get_store().find_by_id(reply.id).status == APPROVED
    assert posts.get_by_id(post.id).comment_count == 1


def test_a_placeholder_goes_when_its_last_approved_reply_goes(make_post):
    """When the only approved reply below a deleted comment is hidden, the placeholder is dropped."""
    post = make_post()
    parent = post_as(post, text="Parent").comment
    child = post_as(post, text="Child", parent_slug=parent.slug).comment
    grandchild = post_as(post, text="Grandchild", parent_slug=child.slug).comment
    moderation.moderate(action="delete", comment_ids=[parent.id, child.id])
    assert get_store().find_by_id(parent.id).placeholder and get_store().find_by_id(child.id).placeholder
    moderation.moderate(action="spam", comment_ids=[grandchild.id])
    assert not get_store().find_by_id(parent.id).placeholder and not get_store().find_by_id(child.id).placeholder
    moderation.moderate(action="approve", comment_ids=[grandchild.id])
    assert get_store().find_by_id(parent.id).placeholder and get_store().find_by_id(child.id).placeholder


def test_summary_counts_and_lists_only_approved_comments(make_post):
    """The post's count and latest comments leave out pending, spam and deleted comments."""
    post = make_post()
    made = [post_as(post, text=f"Number {i}", at=datetime(2026, 3, 1, 9, i, tzinfo=timezone.utc)).comment
            for i in range(5)]
    moderation.moderate(action="spam", comment_ids=[made[4].id])
    moderation.moderate(action="delete", comment_ids=[made[3].id])
    get_store().set_status(ids=[made[2].id], status=PENDING)
    assert summaries.refresh_summary(post_id=post.id) == 2
    assert [c.slug for c in posts.get_by_id(post.id).latest_comments] == [made[1].slug, made[0].slug]


def at_once(times: int, work) -> list:
    """`work(n)` in `times` threads released together; their results."""
    results, errors = split(threads.at_once([functools.partial(work, n) for n in range(times)]))
    assert errors == [], errors
    return results


def test_eight_comments_posted_at_once_leave_the_summary_right(make_post):
    """Eight readers post to one discussion at the same moment: the count is 8 and the
    latest comments are the three newest, whatever order the summaries were stored in."""
    post = make_post()
    at_once(8, lambda n: post_as(post, author=CommentAuthor(id=None, name=f"Reader {n}"), text=f"Text {n}"))
    stored_post = posts.get_by_id(post.id)
    newest = get_store().find_latest(discussion_id=post.id, limit=summaries.LATEST_COUNT)
    assert (stored_post.comment_count, counters.state(post.id, store=get_store()).counts.listed) == (8, 8)
    assert [c.slug for c in stored_post.latest_comments] == [c.slug for c in newest]


def test_a_summary_read_before_another_was_stored_never_replaces_it(make_post, monkeypatch):
    """A writer whose summary (count 1) reaches the post after a later writer's (count 2,
    a newer `seq`) leaves the later one in place."""
    post = make_post()
    store_summary = posts.store_comment_summary
    overtaken = []

    def overtaken_once(**summary):
        if not overtaken:
            overtaken.append(summary["count"])
            post_as(post, text="Posted in between")  # counted and stored first
        return store_summary(**summary)

    monkeypatch.setattr(posts, "store_comment_summary", overtaken_once)
    assert post_as(post, text="First").comment and overtaken == [1]
    summary = posts.get_by_id(post.id)
    assert summary.comment_count == 2
    assert summary.latest_comments[0].excerpt == "Posted in between"


# --- Flags ------------------------------------------------------------------------------------


def test_enough_flags_send_a_comment_to_pending(make_post, settings):
    """After COMMENTS_FLAGS_TO_HOLD different readers flag it, an approved comment is pending."""
    settings.COMMENTS_FLAGS_TO_HOLD = 2
    post = make_post()
    comment = post_as(post).comment
    assert services.flag_comment(comment=comment, flagger="ip:1.1.1.1", reason="spam")
    assert get_store().find_by_id(comment.id).status == APPROVED
    assert services.flag_comment(comment=comment, flagger="user:3", reason="abuse", note="Rude")
    held = get_store().find_by_id(comment.id)
    assert held.status == PENDING and held.flag_count == 2
    assert posts.get_by_id(post.id).comment_count == 0


def test_six_readers_flagging_at_once_count_six_and_hold_it_once(make_post, settings, monkeypatch):
    """Each flag gets its own number from the counter: the comment shows 6 flags and
    the one flag that made 3 held it, so it was settled once."""
    settings.COMMENTS_FLAGS_TO_HOLD = 3
    comment = post_as(make_post()).comment
    settle, settled, guard = services.settle, [], threading.Lock()

    def counted_settle(**kwargs):
        with guard:
            settled.append(kwargs["slugs"])
        settle(**kwargs)

    monkeypatch.setattr(services, "settle", counted_settle)
    results = at_once(
        6, lambda n: services.flag_comment(comment=comment, flagger=f"ip:10.0.0.{n}", reason="spam")
    )
    held = get_store().find_by_id(comment.id)
    assert results == [True] * 6 and settled == [[comment.slug]]
    assert (held.status, held.flag_count, flags.flag_count(comment_id=comment.id)) == (PENDING, 6, 6)


def test_a_flag_count_written_after_a_newer_one_is_put_right(make_post, monkeypatch):
    """A flagger whose count (1) is stored after a later flagger's (2) sees the counter
    has moved on and stores the newer count."""
    comment = post_as(make_post()).comment
    add_flag_count = flags.add_flag_count

    def overtaken_once(**kwargs):
        count = add_flag_count(**kwargs)
        if count == 1:
            services.flag_comment(comment=comment, flagger="user:2", reason="spam")  # stores 2 first
        return count

    monkeypatch.setattr(flags, "add_flag_count", overtaken_once)
    services.flag_comment(comment=comment, flagger="user:1", reason="spam")
    assert get_store().find_by_id(comment.id).flag_count == 2


def test_the_same_reader_flagging_twice_counts_once(make_post, settings):
    """A second flag by the same flagger is not counted and changes nothing."""
    settings.COMMENTS_FLAGS_TO_HOLD = 2
    comment = post_as(make_post()).comment
    assert services.flag_comment(comment=comment, flagger="ip:1.1.1.1", reason="spam")
    assert not services.flag_comment(comment=comment, flagger="ip:1.1.1.1", reason="abuse")
    assert get_store().find_by_id(comment.id).flag_count == 1
    assert get_store().find_by_id(comment.id).status == APPROVED


def test_a_hidden_comment_cannot_be_flagged(make_post):
    """Only approved comments take flags."""
    comment = post_as(make_post()).comment
    get_store().set_status(ids=[comment.id], status=PENDING)
    with pytest.raises(CommentError, match=re.escape(CANNOT_FLAG)):
        services.flag_comment(comment=get_store().find_by_id(comment.id), flagger="ip:1.1.1.1", reason="spam")
    assert flags.count_flags(comment_id=comment.id) == 0


def test_approving_a_flagged_comment_clears_its_flags(make_post, settings):
    """An editor's approval forgets the flags: readers' flags count again from none."""
    settings.COMMENTS_FLAGS_TO_HOLD = 1
    comment = post_as(make_post()).comment
    services.flag_comment(comment=comment, flagger="ip:1.1.1.1", reason="spam")
    moderation.moderate(action="approve", comment_ids=[comment.id])
    approved = get_store().find_by_id(comment.id)
    assert approved.status == APPROVED and approved.flag_count == 0
    assert flags.count_flags(comment_id=comment.id) == 0 == flags.flag_count(comment_id=comment.id)
    services.flag_comment(comment=approved, flagger="ip:2.2.2.2", reason="spam")
    assert get_store().find_by_id(comment.id).status == PENDING


def test_a_comment_its_author_deleted_is_never_approved_back(make_post):
    """An editor's approve skips a comment whose author took it back (its text is gone)."""
    post = make_post()
    comment = post_as(post).comment
    services.delete_own_comment(comment=comment, viewer=owner_of(comment))
    assert moderation.moderate(action="approve", comment_ids=[comment.id]).total == 0
    assert get_store().find_by_id(comment.id).status == DELETED


def test_an_editors_delete_can_be_undone_by_approving(make_post):
    """A comment an editor deleted keeps its text, so approving brings it back whole."""
    post = make_post()
    comment = post_as(post, text="Worth keeping").comment
    moderation.moderate(action="delete", comment_ids=[comment.id])
    assert moderation.moderate(action="approve", comment_ids=[comment.id]).total == 1
    restored = get_store().find_by_id(comment.id)
    assert restored.status == APPROVED and restored.text == "Worth keeping"
    assert posts.get_by_id(post.id).comment_count == 1


def _insert_then(store, monkeypatch, *, stores: bool):
    """The store's insert_comment, made to raise a timeout after (or instead of)
    storing: the server wrote the comment but its answer came too late."""
    from pymongo.errors import NetworkTimeout

    insert = store.insert_comment

    def late(**fields):
        if stores:
            insert(**fields)
        raise NetworkTimeout("timed out")

    monkeypatch.setattr(store, "insert_comment", late)


def test_a_comment_stored_after_the_request_timed_out_is_answered_as_stored(make_post, monkeypatch):
    """An insert whose answer times out is looked up by its slug: the reader is told it
    is stored, and it is not stored twice."""
    post = make_post()
    _insert_then(get_store(), monkeypatch, stores=True)
    posted = services.post_comment(post=post, text="Made it", author=ROSA, form_key="k1")
    assert posted.comment.text == "Made it" and not posted.duplicate
    stored = get_store().find_page(discussion_id=post.id, order="chronological", limit=None)
    assert [c.text for c in stored] == ["Made it"]


def test_a_comment_that_timed_out_unstored_is_still_refused(make_post, monkeypatch):
    """When nothing was stored the timeout stands, and the text may be sent again."""
    from pymongo.errors import NetworkTimeout

    post = make_post()
    _insert_then(get_store(), monkeypatch, stores=False)
    with pytest.raises(NetworkTimeout):
        services.post_comment(post=post, text="Lost", author=ROSA, form_key="k2")
    monkeypatch.undo()
    assert not services.post_comment(post=post, text="Lost", author=ROSA, form_key="k3").duplicate
