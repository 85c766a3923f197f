"""The dashboard's moderation pages (comments/moderation/views.py, mounted by the dashboard) through the test
client: the queue's tabs, counts and filters, bulk approve / spam / delete, removing
a thread, banning a commenter, the blocklist, closing a post's comments, and forged
requests that change nothing."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client

from cms import posts
from cms.posts import AuthorSummary
from comments.moderation import bans, blocklist
from comments.posting import services
from comments.records import APPROVED, DELETED, PENDING, SPAM, CommentAuthor
from comments.stores import get_store, summaries
from comments.moderation import views
from comments.moderation.forms import BAD_IP, NO_SUCH_POST_SLUG, NOTHING_CHOSEN
from slugline.errors import CSRF_FAILED
from tests.page_reading import Page, page
from tests.snapshots import once

pytestmark = pytest.mark.usefixtures("each_store")

QUEUE = "/dashboard/moderation/"
ACTIONS = "/dashboard/moderation/actions/"
BLOCKLIST = "/dashboard/moderation/blocklist/"
BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
ROSA = CommentAuthor(id=None, name="Rosa Diaz", email="rosa@example.org")
SAM = CommentAuthor(id=None, name="Sam Lee", email="sam@example.net")


@pytest.fixture
def editor_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


@pytest.fixture(scope="module")
def _discussions_built() -> dict:
    """Per store: `discussion` as the first test built it, and what that wrote."""
    return {}


@pytest.fixture
def discussion(make_post, make_comment, mongo_db, each_store, _discussions_built):
    """Two posts; Rosa's and Sam's comments, some pending, one spam, one flagged. Built
    through the services by the module's first test of each store; every later test of
    that store gets the same documents again (tests/snapshots.py)."""
    return once(_discussions_built, each_store, mongo_db, lambda: build_discussion(make_post, make_comment))


def build_discussion(make_post, make_comment):
    post, other = make_post(title="First post"), make_post(title="Second post")
    c = {}
    c["rosa1"] = make_comment(post, author=ROSA, text="Rosa one", ip="192.0.2.1", at=BASE)
    c["rosa2"] = make_comment(other, author=ROSA, text="Rosa two", ip="192.0.2.1",
                              at=BASE + timedelta(minutes=1))
    c["sam1"] = make_comment(post, author=SAM, text="Sam one", ip="192.0.2.9", at=BASE + timedelta(minutes=2))
    c["sam2"] = make_comment(post, author=SAM, text="Sam two", ip="192.0.2.9", at=BASE + timedelta(minutes=3))
    c["spam"] = make_comment(post, author=SAM, text="Buy now", ip="192.0.2.9", at=BASE + timedelta(minutes=4))
    get_store().set_status(ids=[c["rosa1"].id, c["sam1"].id], status=PENDING)
    get_store().set_status(ids=[c["spam"].id], status=SPAM)
    services.flag_comment(comment=c["sam2"], flagger="ip:198.51.100.1", reason="abuse", note="Rude")
    summaries.refresh_summary(post_id=post.id)
    return post, other, c


def rows(response) -> list[str]:
    """The comment texts of the queue page, in order."""
    return Page(response.content).text_of("queue-text")


def counts(response) -> dict[str, int]:
    body = response.content.decode()
    found = re.findall(r'data-tab="(\w+)"[^>]*>[^<]*\(<span class="tab-count">(\d+)<', body)
    return {tab: int(n) for tab, n in found}


def said(shown: Page) -> list[str]:
    """The messages a page shows, without the Undo button an action's message carries
    (tests/integration/dashboard/test_moderation_undo.py tests it)."""
    buttons = shown.text_of("undo-form")
    return [" ".join(m.removesuffix(buttons[0]).split()) if buttons and m.endswith(buttons[0]) else m
            for m in shown.text_of("message")]


def act(client, **data):
    """An action as the confirmation page sends it (approving needs no confirmation)."""
    return client.post(ACTIONS, {"next": QUEUE, "confirmed": "yes", **data})


def ask(client, **data):
    """An action as the queue's buttons send it, before any confirmation."""
    return client.post(ACTIONS, {"next": QUEUE, **data})


def status_of(comment) -> str:
    return get_store().find_by_id(comment.id).status


# --- The queue ---------------------------------------------------------------------------


def test_the_queue_shows_each_tab_newest_first_with_counts(editor_client, discussion):
    """Pending, flagged, spam, recent and most down-voted tabs list their comments, with a count on each tab."""
    response = editor_client.get(QUEUE)
    assert response.status_code == 200
    assert rows(response) == ["Sam one", "Rosa one"]
    assert counts(response) == {"pending": 2, "flagged": 1, "spam": 1, "recent": 5, "downvoted": 0}
    assert rows(editor_client.get(QUEUE, {"tab": "flagged"})) == ["Sam two"]
    assert rows(editor_client.get(QUEUE, {"tab": "spam"})) == ["Buy now"]
    recent = ["Buy now", "Sam two", "Sam one", "Rosa two", "Rosa one"]
    assert rows(editor_client.get(QUEUE, {"tab": "recent"})) == recent


def test_the_queue_shows_flag_reasons_email_and_ip(editor_client, discussion):
    """Editors see the flags' reasons and notes, the e-mail address and the IP address."""
    shown = page(editor_client.get(QUEUE, {"tab": "flagged"}))
    assert shown.text_of("queue-flags") == ["Abusive, hateful or harassing: “Rude”"]
    assert shown.text_of("queue-email") == [SAM.email] and shown.text_of("queue-ip") == ["192.0.2.9"]


@pytest.mark.parametrize("filters,expected", [
    ({"post": "post-first"}, ["Buy now", "Sam two", "Sam one", "Rosa one"]),
    ({"name": "ROSA"}, ["Rosa two", "Rosa one"]),
    ({"email": "SAM@example.net"}, ["Buy now", "Sam two", "Sam one"]),
    ({"ip": "192.0.2.1"}, ["Rosa two", "Rosa one"]),
    ({"name": "rosa", "post": "post-second"}, ["Rosa two"]),
    ({"name": ".*"}, []),
])
def test_the_queue_filters_by_post_name_email_and_ip(editor_client, discussion, filters, expected):
    """Filters narrow every tab (and its count); what is typed is matched literally."""
    post, other, _ = discussion
    slugs = {"post-first": post.slug, "post-second": other.slug}
    filters = {k: slugs.get(v, v) for k, v in filters.items()}
    response = editor_client.get(QUEUE, {"tab": "recent", **filters})
    assert response.status_code == 200
    assert rows(response) == expected
    assert counts(response)["recent"] == len(expected)


@pytest.mark.parametrize("typed", ["nguyen thu ha", "NGUYỄN THU", "Thu Hà", "thu  ha"])
def test_the_name_filter_ignores_case_and_diacritics(editor_client, make_post, make_comment, typed):
    """An editor typing a Vietnamese name without its marks (or with them, in any case)
    finds it; another name is not found."""
    post = make_post()
    make_comment(post, author=CommentAuthor(id=None, name="Nguyễn Thu Hà"), text="Chào")
    make_comment(post, author=CommentAuthor(id=None, name="Nguyen Van Thu"), text="Khác")
    assert rows(editor_client.get(QUEUE, {"tab": "recent", "name": typed})) == ["Chào"]


@pytest.mark.parametrize("filters,message", [
    ({"post": "no-such-post"}, NO_SUCH_POST_SLUG),
    ({"ip": "not-an-ip"}, BAD_IP),
])
def test_bad_filters_say_why_and_list_nothing(editor_client, discussion, filters, message):
    """An unknown post slug or a malformed IP address is a 400 with the reason."""
    response = editor_client.get(QUEUE, filters)
    assert response.status_code == 400
    assert message in page(response).text_of("field-error")
    assert rows(response) == []


def test_the_queue_pages(editor_client, make_post, make_comment, settings):
    """COMMENTS_QUEUE_PER_PAGE comments a page, with links to the next."""
    settings.COMMENTS_QUEUE_PER_PAGE = 2
    post = make_post()
    for i in range(5):
        make_comment(post, text=f"N{i}", at=BASE + timedelta(minutes=i), summarise=False)
    first = page(editor_client.get(QUEUE, {"tab": "recent"}))
    assert first.text_of("queue-text") == ["N4", "N3"]
    second = page(editor_client.get(QUEUE + first.rel("next")))
    assert second.text_of("queue-text") == ["N2", "N1"]


# --- Bulk actions --------------------------------------------------------------------------


@pytest.mark.parametrize("action,status", [("approve", APPROVED), ("spam", SPAM), ("delete", DELETED)])
def test_bulk_actions_change_every_chosen_comment_and_nothing_else(editor_client, discussion, action, status):
    """Approve, spam and delete apply to the chosen comments only and come back to the queue."""
    post, _, c = discussion
    response = act(editor_client, action=action, ids=[str(c["rosa1"].id), str(c["sam1"].id)])
    assert response.status_code == 303 and response["Location"] == QUEUE
    assert status_of(c["rosa1"]) == status_of(c["sam1"]) == status
    assert status_of(c["rosa2"]) == APPROVED and status_of(c["spam"]) == SPAM
    shown = page(editor_client.get(response["Location"]))
    assert said(shown) == [views.MODERATED[action].format(count=2)]


def test_approving_updates_the_posts_count_and_latest_comments(editor_client, discussion):
    """Approved pending comments join the post's summary; spammed ones leave it."""
    post, _, c = discussion
    assert posts.get_by_id(post.id).comment_count == 1
    act(editor_client, action="approve", ids=[str(c["rosa1"].id), str(c["sam1"].id)])
    assert posts.get_by_id(post.id).comment_count == 3
    act(editor_client, action="spam", ids=[str(c["sam2"].id)])
    summary = posts.get_by_id(post.id)
    assert summary.comment_count == 2
    assert [latest.slug for latest in summary.latest_comments] == [c["sam1"].slug, c["rosa1"].slug]


def test_an_action_without_a_choice_changes_nothing_and_says_why(editor_client, discussion, mongo_db):
    """No comment ticked, or no action: a message, and every status as it was."""
    before = list(mongo_db.comments.find({}, {"status": 1}).sort("_id"))
    for data in ({"action": "approve"}, {"ids": [str(discussion[2]["rosa1"].id)]}):
        response = act(editor_client, **data)
        assert page(editor_client.get(response["Location"])).text_of("message") == [NOTHING_CHOSEN]
    assert list(mongo_db.comments.find({}, {"status": 1}).sort("_id")) == before


def test_removing_a_thread_deletes_the_comment_and_all_replies(editor_client, make_post, make_comment):
    """The row's Remove thread deletes the sub-thread in one action; replies elsewhere stay."""
    post = make_post()
    root = make_comment(post, text="Root")
    child = make_comment(post, text="Child", parent_slug=root.slug)
    grandchild = make_comment(post, text="Grandchild", parent_slug=child.slug)
    other = make_comment(post, text="Other")
    response = act(editor_client, one=f"thread:{child.id}")
    assert response.status_code == 303
    assert [status_of(c) for c in (root, child, grandchild, other)] == [APPROVED, DELETED, DELETED, APPROVED]
    assert posts.get_by_id(post.id).comment_count == 2


def test_ban_marks_all_the_commenters_comments_as_spam_and_refuses_new_ones(editor_client, discussion):
    """Banning anonymous Sam (by IP address: a typed e-mail address proves nothing) marks
    every comment from that address as spam, on every post, and refuses the next one."""
    post, _, c = discussion
    response = act(editor_client, one=f"ban:{c['sam2'].id}")
    assert response.status_code == 303
    assert [status_of(c[k]) for k in ("sam1", "sam2", "spam")] == [SPAM, SPAM, SPAM]
    assert [status_of(c[k]) for k in ("rosa1", "rosa2")] == [PENDING, APPROVED]
    kept = {(e.kind, e.value) for e in blocklist.find_entries()}
    assert kept == {("ip", "192.0.2.9")}
    message = views.BANNED.format(who="IP 192.0.2.9", count=2)
    assert page(editor_client.get(response["Location"])).text_of("message") == [message]
    with pytest.raises(services.CommentError, match=re.escape(services.BANNED)):
        services.post_comment(post=post, text="Again", author=SAM, ip="192.0.2.9")


def test_banning_a_member_bans_their_user_id(editor_client, make_post, make_comment, mongo_db):
    """A member's ban is by user id, whatever name or address they post under."""
    post = make_post()
    member = make_comment(post, author=CommentAuthor(id=42, name="Member"), ip="192.0.2.5")
    bystander = make_comment(post, author=ROSA, ip="192.0.2.5")
    act(editor_client, one=f"ban:{member.id}", reason="Spam links", length="permanent")
    assert blocklist.find_entries() == []
    assert [(ban.user_id, ban.reason, ban.ends) for ban in bans.history(user_id=42)] == [(42, "Spam links", None)]
    assert status_of(member) == SPAM and status_of(bystander) == APPROVED


# --- Forged requests ---------------------------------------------------------------------------


def test_moderation_by_get_changes_nothing(editor_client, discussion, mongo_db):
    """GET on the actions address is 405 and writes nothing."""
    before = list(mongo_db.comments.find({}).sort("_id"))
    response = editor_client.get(ACTIONS, {"action": "spam", "ids": str(discussion[2]["rosa1"].id)})
    assert response.status_code == 405
    assert list(mongo_db.comments.find({}).sort("_id")) == before


def test_moderation_without_csrf_token_is_refused(make_user, discussion, mongo_db):
    """With CSRF checks on, an editor's POST without the token is the site's 403 and writes nothing."""
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(make_user("bruno", role="editor"))
    before = list(mongo_db.comments.find({}).sort("_id"))
    response = strict.post(ACTIONS, {"action": "spam", "ids": [str(discussion[2]["rosa1"].id)]})
    assert response.status_code == 403
    assert page(response).text_of("error-text") == [CSRF_FAILED]
    response = strict.post(ACTIONS, {"one": f"ban:{discussion[2]['rosa1'].id}"})
    assert response.status_code == 403
    assert list(mongo_db.comments.find({}).sort("_id")) == before and blocklist.find_entries() == []


@pytest.mark.parametrize("role,status", [(None, 302), ("reader", 403), ("author", 403)])
def test_moderation_by_anyone_but_an_editor_changes_nothing(
    client, make_user, discussion, mongo_db, role, status,
):
    """Anonymous visitors go to the login page; readers and authors who are not editors get 403."""
    if role:
        client.force_login(make_user("someone", role=role))
    before = list(mongo_db.comments.find({}).sort("_id"))
    c = discussion[2]
    for data in ({"action": "spam", "ids": [str(c["rosa1"].id)]}, {"one": f"ban:{c['rosa1'].id}"},
                 {"one": f"thread:{c['rosa1'].id}"}):
        assert act(client, **data).status_code == status
    assert client.get(QUEUE).status_code == status
    assert client.post(BLOCKLIST, {"kind": "word", "value": "x"}).status_code == status
    assert list(mongo_db.comments.find({}).sort("_id")) == before and blocklist.find_entries() == []


def test_next_never_leaves_the_site(editor_client, discussion):
    """An action's `next` may only lead back to a page of this site (the queue, or the
    comment's page its branch actions came from); anything else goes to the queue."""
    c = discussion[2]
    for target in ["https://evil.example/", "//evil.example/", "/\\evil.example/", "http://testserver/dashboard/",
                   "dashboard/", "javascript:alert(1)"]:
        data = {"action": "approve", "ids": [str(c["rosa1"].id)], "next": target}
        response = editor_client.post(ACTIONS, data)
        assert response["Location"] == QUEUE, target
    for kept in [QUEUE + "?tab=spam", "/posts/a-post/comments/abc/"]:
        assert editor_client.post(ACTIONS, {"action": "approve", "ids": [str(c["rosa1"].id)],
                                            "next": kept})["Location"] == kept


# --- The blocklist ------------------------------------------------------------------------------


def test_editors_add_and_remove_blocked_words_and_domains(editor_client, make_post, mongo_db):
    """Added terms hold new comments for moderation; removed, they no longer do."""
    response = editor_client.post(BLOCKLIST, {"kind": "word", "value": "  Cheap   Pills "})
    assert response.status_code == 303
    editor_client.post(BLOCKLIST, {"kind": "domain", "value": "@Spam.Example"})
    shown = page(editor_client.get(BLOCKLIST))
    assert shown.text_of("blocklist-value") == ["spam.example", "cheap pills"]
    post = make_post()
    held = services.post_comment(post=post, text="cheap pills here", author=ROSA)
    assert held.pending
    entry = next(e for e in blocklist.find_entries() if e.kind == "word")
    assert editor_client.post(f"{BLOCKLIST}{entry.id}/remove/").status_code == 303
    assert not services.post_comment(post=post, text="cheap pills again", author=ROSA).pending


def test_a_malformed_domain_is_refused(editor_client):
    """A domain must look like one; the form says so and stores nothing."""
    response = editor_client.post(BLOCKLIST, {"kind": "domain", "value": "not a domain"})
    assert response.status_code == 400
    assert blocklist.find_entries() == []


def test_lifting_a_ban_asks_first_then_lets_the_commenter_post_again(editor_client, discussion):
    """Lifting a ban from the blocklist page shows what its ban changed and changes
    nothing until confirmed; confirmed without restoring, the comments stay spam."""
    post, _, c = discussion
    act(editor_client, one=f"ban:{c['rosa2'].id}")
    entry = blocklist.find_entries(kinds=blocklist.BANS)[0]
    asked = editor_client.get(f"{BLOCKLIST}{entry.id}/remove/")
    assert asked.status_code == 200 and "still spam" in asked.content.decode()
    assert "Rosa two" in asked.content.decode()  # the comments its ban marked are listed
    assert editor_client.post(f"{BLOCKLIST}{entry.id}/remove/").status_code == 200  # not confirmed
    assert blocklist.find_entries(kinds=blocklist.BANS) == [entry]
    assert editor_client.post(f"{BLOCKLIST}{entry.id}/remove/", {"confirmed": "yes"}).status_code == 303
    assert blocklist.find_entries(kinds=blocklist.BANS) == []
    assert status_of(c["rosa2"]) == SPAM
    assert not services.post_comment(post=post, text="Back", author=ROSA, ip="192.0.2.1").pending


def test_lifting_a_ban_can_restore_the_comments_it_marked(editor_client, discussion):
    """With "restore" ticked, every comment the ban marked as spam goes back to the
    status it had (approved or pending), and the posts' counts follow."""
    post, _, c = discussion
    before = {key: status_of(comment) for key, comment in c.items()}
    act(editor_client, one=f"ban:{c['rosa2'].id}")
    changed = {key for key, comment in c.items() if status_of(comment) != before[key]}
    assert changed and all(status_of(c[key]) == SPAM for key in changed)
    entry = blocklist.find_entries(kinds=blocklist.BANS)[0]
    page_text = editor_client.get(f"{BLOCKLIST}{entry.id}/remove/").content.decode()
    assert f"{len(changed)} comment" in page_text
    response = editor_client.post(f"{BLOCKLIST}{entry.id}/remove/", {"confirmed": "yes", "restore": "yes"},
                                  follow=True)
    assert f"{len(changed)} comments it had marked as spam are back" in response.content.decode()
    assert {key: status_of(comment) for key, comment in c.items()} == before
    assert posts.get_by_id(post.id).comment_count == get_store().tally_listing(discussion_id=post.id).comments


def test_removing_a_word_needs_no_confirmation_and_a_get_changes_nothing(editor_client):
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    entry = blocklist.find_entries()[0]
    assert editor_client.get(f"{BLOCKLIST}{entry.id}/remove/").status_code == 303
    assert blocklist.find_entries() == [entry]
    assert editor_client.post(f"{BLOCKLIST}{entry.id}/remove/").status_code == 303
    assert blocklist.find_entries() == []


# --- Opening and closing a post's comments --------------------------------------------------------


def test_an_editor_closes_and_reopens_a_posts_comments(editor_client, make_post, client):
    """The post editor's button closes comments (the reader's form becomes a notice), then opens them."""
    post = make_post()
    url = f"/dashboard/posts/{post.id}/comments/"
    response = editor_client.post(url, {"closed": "on"})
    assert response.status_code == 303
    assert posts.get_by_id(post.id).comments_closed
    reader_page = page(client.get(f"/posts/{post.slug}/"))
    assert reader_page.form_action is None and reader_page.text_of("comments-closed")
    editor_client.post(url, {"closed": ""})
    assert not posts.get_by_id(post.id).comments_closed
    assert page(client.get(f"/posts/{post.slug}/")).form_action


def test_only_the_posts_author_or_an_editor_closes_its_comments(make_user, make_post):
    """Another author gets 403 and the post stays open; a GET changes nothing."""
    post = make_post(author=AuthorSummary(id=10_000, username="someone", name="Someone"))
    other = Client()
    other.force_login(make_user("chen", role="author"))
    assert other.post(f"/dashboard/posts/{post.id}/comments/", {"closed": "on"}).status_code == 403
    assert other.get(f"/dashboard/posts/{post.id}/comments/").status_code == 405
    assert not posts.get_by_id(post.id).comments_closed


# --- Confirming destructive actions ----------------------------------------------------------


def confirmation_form(response) -> dict[str, list[str]]:
    """The hidden fields of a confirmation page's form, as its button sends them (not
    those of the page's other forms, such as the language switcher's)."""
    html = response.content.decode()
    form = re.search(r'<form class="confirm-form".*?</form>', html, re.S).group(0)
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form):
        fields.setdefault(name, []).append(value)
    return fields


def summary_of(response) -> str:
    return " ".join(page(response).text_of("confirm-summary"))


@pytest.mark.parametrize("action,status,summary", [
    ("spam", SPAM, "This will mark 2 comments by 2 names as spam."),
    ("delete", DELETED, "This will delete 2 comments by 2 names; replies to them stay, under “[deleted]”."),
])
def test_bulk_spam_and_delete_ask_first_and_change_nothing_until_confirmed(
    editor_client, discussion, action, status, summary,
):
    """The queue's button shows a page naming what will change; only its confirm button changes it."""
    _, _, c = discussion
    chosen = [str(c["rosa1"].id), str(c["sam1"].id)]
    asked = ask(editor_client, action=action, ids=chosen, next=QUEUE + "?tab=pending")
    assert asked.status_code == 200
    assert summary_of(asked) == summary
    assert status_of(c["rosa1"]) == status_of(c["sam1"]) == PENDING
    assert 'href="/dashboard/moderation/?tab=pending">Cancel</a>' in asked.content.decode()
    assert "Rosa one" in asked.content.decode() and "Sam one" in asked.content.decode()

    confirmed = editor_client.post(ACTIONS, confirmation_form(asked))
    assert confirmed.status_code == 303 and confirmed["Location"] == QUEUE + "?tab=pending"
    assert status_of(c["rosa1"]) == status_of(c["sam1"]) == status
    assert said(page(editor_client.get(confirmed["Location"]))) == [
        views.MODERATED[action].format(count=2)
    ]


def test_removing_a_thread_asks_first_naming_how_many_comments_go(editor_client, make_post, make_comment):
    """Remove thread counts the comment and its replies; nothing is deleted before the confirmation."""
    post = make_post()
    root = make_comment(post, text="Root", author=ROSA)
    child = make_comment(post, text="Child", parent_slug=root.slug, author=SAM)
    grandchild = make_comment(post, text="Grandchild", parent_slug=child.slug, author=SAM)
    asked = ask(editor_client, one=f"thread:{child.id}")
    assert asked.status_code == 200
    assert summary_of(asked) == "This will delete 2 comments by “Sam Lee”: the comment and every reply below it."
    assert [status_of(x) for x in (root, child, grandchild)] == [APPROVED] * 3
    editor_client.post(ACTIONS, confirmation_form(asked))
    assert [status_of(x) for x in (root, child, grandchild)] == [APPROVED, DELETED, DELETED]


def test_banning_asks_first_naming_whom_and_how_many_comments(editor_client, discussion):
    """The ban's confirmation names the address it bans by and the comments it marks; nothing is banned yet."""
    _, _, c = discussion
    asked = ask(editor_client, one=f"ban:{c['sam2'].id}")
    assert asked.status_code == 200
    summary = summary_of(asked)
    assert summary.startswith("This will ban ") and "192.0.2.9" in summary
    assert "mark 2 comments by “Sam Lee” as spam" in summary
    assert blocklist.find_entries() == [] and status_of(c["sam2"]) == APPROVED
    editor_client.post(ACTIONS, confirmation_form(asked))
    assert status_of(c["sam2"]) == status_of(c["sam1"]) == SPAM
    assert ("ip", "192.0.2.9") in {(e.kind, e.value) for e in blocklist.find_entries()}


def test_approving_needs_no_confirmation(editor_client, discussion):
    """Approve applies at once (any other action undoes it)."""
    _, _, c = discussion
    response = ask(editor_client, action="approve", ids=[str(c["rosa1"].id)])
    assert response.status_code == 303 and status_of(c["rosa1"]) == APPROVED


def test_a_confirmation_for_a_comment_that_is_gone_says_so(editor_client, discussion):
    """A thread or ban of a comment that no longer exists: back to the queue with the reason."""
    from bson import ObjectId

    for one in (f"thread:{ObjectId()}", f"ban:{ObjectId()}"):
        response = ask(editor_client, one=one)
        assert response.status_code == 303
        assert page(editor_client.get(response["Location"])).text_of("message") == [views.GONE]


def test_nothing_to_change_is_said_instead_of_asked(editor_client, discussion):
    """Marking a comment that is spam already as spam asks nothing and changes nothing."""
    _, _, c = discussion
    response = ask(editor_client, action="spam", ids=[str(c["spam"].id)])
    assert response.status_code == 303
    assert page(editor_client.get(response["Location"])).text_of("message") == [views.NOTHING_TO_CHANGE]


# --- Issue 25: whom a ban may reach, and saying whom --------------------------------------------


def test_an_editor_can_ban_neither_themselves_nor_another_editor(editor_client, make_user, make_post,
                                                                 make_comment):
    """Asked or confirmed, the ban is refused with the reason; nothing is banned or marked."""
    from django.contrib.auth import get_user_model

    from comments.moderation import queue as moderation

    bruno = get_user_model().objects.get(username="bruno")
    ada = make_user("ada", role="editor", display_name="Ada Lindqvist")
    post = make_post()
    own = make_comment(post, author=CommentAuthor(id=bruno.pk, name="Bruno", staff=True), ip="192.0.2.7")
    theirs = make_comment(post, author=CommentAuthor(id=ada.pk, name="Ada Lindqvist", staff=True), ip="192.0.2.8")
    for comment, message in ((own, moderation.BAN_SELF),
                             (theirs, moderation.BAN_EDITOR % {"name": "Ada Lindqvist"})):
        for send in (ask, act):
            response = send(editor_client, one=f"ban:{comment.id}")
            assert response.status_code == 303
            assert page(editor_client.get(response["Location"])).text_of("message") == [message]
    assert blocklist.find_entries() == [] and status_of(own) == status_of(theirs) == APPROVED
    with pytest.raises(moderation.BanRefused):
        moderation.ban_commenter(comment_id=theirs.id, editor="bruno", editor_id=bruno.pk)


def test_a_ban_leaves_deleted_comments_deleted(editor_client, discussion):
    """Sam's deleted comment is neither counted nor marked as spam by the ban."""
    _, _, c = discussion
    get_store().set_status(ids=[c["sam1"].id], status=DELETED)
    asked = ask(editor_client, one=f"ban:{c['sam2'].id}")
    assert "mark 1 comment by “Sam Lee” as spam" in summary_of(asked)
    act(editor_client, one=f"ban:{c['sam2'].id}")
    assert status_of(c["sam1"]) == DELETED and status_of(c["sam2"]) == SPAM


def test_bans_name_members_by_name_and_addresses_by_kind(editor_client, make_user, make_post, make_comment):
    """"Banned the member “Rosa Reader”", never "user 7"; the blocklist and the lift
    page name them too; an address ban says "IP"."""
    from comments.host import get_host

    reader = make_user("rosareader", role="reader")
    name = get_host().commenter_name(reader)
    post = make_post()
    comment = make_comment(post, author=CommentAuthor(id=reader.pk, name=name), ip="192.0.2.5")
    response = act(editor_client, one=f"ban:{comment.id}", reason="Rude", length="7")
    assert page(editor_client.get(response["Location"])).text_of("message") == [
        views.BANNED.format(who=f"the member “{name}”", count=1)]
    listed = editor_client.get(BLOCKLIST).content.decode()
    assert f"“{name}”" in listed and f">{reader.pk}<" not in listed
    history = page(editor_client.get(f"{QUEUE}members/{reader.pk}/")).text_of("page-title")
    assert history == [f"The member {name}"]


def test_a_comment_with_no_account_or_address_offers_no_ban(editor_client, make_post, make_comment):
    """Nothing to ban by: the queue has no ban button for it, and a ban sent anyway
    is confirmed as what it is, marking it as spam."""
    post = make_post()
    bare = make_comment(post, author=ROSA, text="Bare")
    get_store().set_status(ids=[bare.id], status=PENDING)
    queue = editor_client.get(QUEUE).content.decode()
    assert "Bare" in queue and f"ban:{bare.id}" not in queue
    asked = ask(editor_client, one=f"ban:{bare.id}")
    form = re.search(r'<form class="confirm-form".*?</form>', asked.content.decode(), re.S).group(0)
    assert "Mark as spam" in form and "Ban" not in form
