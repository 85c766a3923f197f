"""Integration tests of the comment pages and the comment form, over HTTP through
Django's test client, against the real MongoDB-compatible server."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import pytest
from django.test import Client
from pymongo import monitoring

from cms.published import NO_SUCH_POST
from comments.posting import services
from comments.posting.forms import BAD_PARENT, EMPTY_TEXT, NAME_REQUIRED, TOO_LONG
from comments.posting.services import PARENT_NOT_FOUND
from comments.reading import listers
from comments.reading.cursors import BAD_CURSOR
from comments.reading.listings import BAD_VIEW, NO_MORE
from comments.records import CommentAuthor
from comments.stores import get_store, summaries
from comments.views.common import NO_SUCH_COMMENT
from comments.views.posting import POSTED, REATTACHED
from infra.pagination import BAD_PAGE, NO_SUCH_PAGE
from tests.page_reading import Page, discussion_url, page, permalink_url, post_url, query, submit
from tests.snapshots import once

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)

# The discussion the paging tests walk: PARENTS[i] is the comment that comment i
# answers (None: top level), in posting order; 23 comments, 4 threads, depth 0-5.
PARENTS = [
    None, 0, 1, None, 3, 0, 2, 4, None, 8,
    1, 3, 9, 6, 12, 5, None, 16, 0, 13,
    11, 8, 17,
]
PER_PAGE = 5
NUM_PAGES = 5  # 23 comments, 5 a page: the last page has 3.

# The pattern's query for each view.
PATTERN_SORTS = {
    "threaded": [("full_slug", 1)],
    "chronological": [("posted", 1)],
    "newest": [("thread", -1), ("full_slug", 1)],
}
VIEWS = list(PATTERN_SORTS)
ALL_VIEWS = list(listers.VIEWS)
VIEW_LABELS = {"threaded": "Threaded", "newest": "Newest threads first", "chronological": "Oldest first"}


class CommentsCommands(monitoring.CommandListener):
    """Names the commands this process sends to the `comments` collection."""

    def __init__(self):
        self.names: list[str] = []

    def started(self, event):
        if event.command.get(event.command_name) == "comments":
            self.names.append(event.command_name)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


# Registered at import, before the session's client exists (conftest creates it lazily).
COMMENTS_COMMANDS = CommentsCommands()
monitoring.register(COMMENTS_COMMANDS)


# --- Builders --------------------------------------------------------------------------


def build_tree(post, make_comment) -> list:
    """Posts the PARENTS discussion on `post`, a minute apart; the comments in posting order."""
    made = []
    for i, parent in enumerate(PARENTS):
        made.append(make_comment(
            post, text=f"Comment number {i}", author=CommentAuthor(id=None, name=f"Reader {i}"),
            parent_slug=made[parent].slug if parent is not None else None,
            at=BASE + timedelta(minutes=i), summarise=False,
        ))
    summaries.refresh_summary(post_id=post.id)  # once, as seeding does
    return made


def pattern_order(mongo_db, post, view: str) -> list[str]:
    """The discussion's slugs in the order of the pattern's query for `view`, run by
    MongoDB on the stored comments as flat documents (what every store exports; for
    the documents store, its own collection's documents)."""
    scratch = mongo_db.pattern_order
    scratch.delete_many({})
    documents = list(get_store().iter_documents(discussion_id=post.id))
    if documents:
        scratch.insert_many(documents)
    return [d["slug"] for d in scratch.find({"discussion_id": post.id}).sort(PATTERN_SORTS[view])]


def stored_count(mongo_db) -> int:
    """How many comments the store in use holds."""
    return sum(1 for _ in get_store().iter_documents())


@pytest.fixture(scope="module")
def _discussions_built() -> dict:
    """Per store: the PARENTS discussion as the first test posted it, and what that wrote."""
    return {}


@pytest.fixture
def discussion(make_post, make_comment, settings, mongo_db, each_store, _discussions_built):
    """A post with the PARENTS discussion, shown PER_PAGE comments a page. It is posted
    through the service by the module's first test of each store; every later test of
    that store gets the same documents again (tests/snapshots.py), 23 posts cheaper."""
    settings.COMMENTS_PER_PAGE = PER_PAGE
    return once(_discussions_built, each_store, mongo_db, lambda: (
        post := make_post(title="Threads and slugs"), build_tree(post, make_comment)))


def walk(client, url: str, rel: str) -> tuple[list[list[str]], list[int]]:
    """Follow `rel` links from `url` to the end: the slugs seen and the page numbers shown."""
    seen, numbers, visits = [], [], 0
    while url:
        visits += 1
        assert visits <= 20, "the links go round in circles"
        response = client.get(url)
        assert response.status_code == 200, url
        shown = page(response)
        seen.append(shown.slugs)
        numbers.append(current_page(shown))
        url = shown.rel(rel)
    return seen, numbers


def current_page(shown: Page) -> int:
    """The number the page links mark as the current page (aria-current="page")."""
    assert len(shown.current) == 1, shown.current
    return int(shown.current[0])


# --- The post page --------------------------------------------------------------------


def test_post_page_shows_the_count_the_first_threaded_page_and_the_form(client, discussion, mongo_db):
    """The post page shows the count, the first threaded page, a next link and an empty comment form."""
    post, made = discussion
    response = client.get(post_url(post))
    assert response.status_code == 200
    shown = page(response)
    assert shown.by_id["post-title"] == "Threads and slugs"
    assert shown.by_id["comments-title"] == f"{len(PARENTS)} comments"
    threaded = pattern_order(mongo_db, post, "threaded")
    assert shown.slugs == threaded[:PER_PAGE]
    assert current_page(shown) == 1
    assert shown.textareas == {"text": ""}
    assert shown.inputs["parent"] == ""
    assert shown.inputs["name"] == "" and shown.inputs["email"] == ""
    assert shown.inputs["csrfmiddlewaretoken"]
    assert shown.by_id["reply"].startswith("Add a comment")
    following = page(client.get(shown.rel("next")))
    assert urlsplit(shown.rel("next")).path == discussion_url(post)
    assert following.slugs == threaded[PER_PAGE:2 * PER_PAGE]


def test_post_page_without_comments_invites_the_first(client, make_post):
    """A post with no comments says so, shows no page links, and shows the form."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    assert shown.comments == []
    assert shown.text_of("no-comments") == ["No comments yet. Be the first."]
    assert shown.by_id["comments-title"] == "0 comments"
    assert shown.rel("next") is None and "pagination" not in shown.by_class
    assert "text" in shown.textareas


def test_every_rendered_comment_carries_anchor_slug_depth_time_author_text_and_links(
    client, discussion, settings,
):
    """Each comment renders as the documented <article> with time, author, text, links and
    indent, and names the comment it answers; the replies below the indent limit are drawn
    on the permalink page of the comment at the limit, not in the discussion."""
    settings.COMMENTS_INDENT_LIMIT = 3
    post, made = discussion
    by_slug = {c.slug: c for c in made}
    seen = []
    for number in range(1, NUM_PAGES + 1):
        shown = page(client.get(discussion_url(post), {"page": number}))
        on_page = set(shown.slugs)
        for rendered in shown.comments:
            comment = by_slug[rendered["slug"]]
            seen.append(comment.slug)
            assert rendered["html_attrs"]["class"] == "comment"
            assert rendered["id"] == "c-" + comment.slug.replace("/", "-")
            depth = comment.slug.count("/")
            assert rendered["depth"] == str(depth) and depth <= 3
            assert f"indent-{depth}" in rendered["item_classes"]
            assert datetime.fromisoformat(rendered["datetime"]) == comment.posted
            assert rendered["author"] == comment.author.name
            assert rendered["text"] == comment.text
            hrefs = {link["text"]: link["href"] for link in rendered["links"]}
            permalink = permalink_url(post, comment.slug)
            permalinks = [link["href"] for link in rendered["links"]
                          if "comment-permalink" in link.get("class", "")]
            # The permalink page opens scrolled to the comment.
            assert permalinks == [permalink + "#" + comment.anchor]
            assert hrefs["Reply"] == permalink + "#reply"
            assert "an earlier comment" not in hrefs
            if comment.parent_slug:
                parent = by_slug[comment.parent_slug]
                expected = ("#" + parent.anchor if parent.slug in on_page
                            else permalink_url(post, parent.slug))
                assert hrefs[parent.author.name] == expected
    assert sorted(seen) == sorted(c.slug for c in made if c.depth <= 3)
    beyond = page(client.get(permalink_url(post, made[6].slug)))
    assert beyond.slugs[made[6].depth] == made[6].slug  # after its ancestors
    assert {made[13].slug, made[19].slug} <= set(beyond.slugs)


# --- Pages by number ------------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
def test_numbered_pages_show_consecutive_slices_of_the_views_order(client, discussion, mongo_db, view):
    """?view=V&page=N shows the N-th slice of the pattern's order, with links to every other page."""
    post, made = discussion
    expected = pattern_order(mongo_db, post, view)
    shown_all = []
    for number in range(1, NUM_PAGES + 1):
        response = client.get(discussion_url(post), {"view": view, "page": number})
        assert response.status_code == 200
        shown = page(response)
        assert shown.slugs == expected[(number - 1) * PER_PAGE:number * PER_PAGE]
        shown_all += shown.slugs
        assert current_page(shown) == number
        numbered = {int(link["text"]): link["href"] for link in shown.links if link["text"].isdigit()}
        assert set(numbered) == set(range(1, NUM_PAGES + 1)) - {number}
        for other, href in numbered.items():
            assert urlsplit(href).path == discussion_url(post)
            assert query(href) == {"view": [view], "page": [str(other)]}
    assert shown_all == expected


def test_view_switch_links_to_the_other_views_and_marks_the_current_one(client, discussion):
    """The view switch names the current view and links to every other one (the ranked
    views, best and top, included: comments.reading.listers.VIEWS)."""
    post, _ = discussion
    for view in VIEWS:
        shown = page(client.get(discussion_url(post), {"view": view}))
        switch = {link["href"] for link in shown.links if set(query(link["href"])) == {"view"}}
        assert switch == {f"{discussion_url(post)}?view={other}#comments" for other in ALL_VIEWS if other != view}
        assert shown.current_view == [VIEW_LABELS[view]]


def test_chronological_view_draws_every_comment_flat(client, discussion):
    """The chronological view does not indent: every comment is at indent 0, none capped."""
    post, made = discussion
    shown = page(client.get(discussion_url(post), {"view": "chronological", "page": 2}))
    assert {c["depth"] for c in shown.comments} != {"0"}
    assert all(c["item_classes"] == ["comment-item", "indent-0"] for c in shown.comments)


# --- Pages by cursor ------------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
def test_following_next_links_visits_every_comment_once_in_the_views_order(
    client, discussion, mongo_db, view,
):
    """rel="next" links from page 1 visit every comment once, in the pattern's order, pages numbered 1..N."""
    post, _ = discussion
    pages_seen, numbers = walk(client, f"{discussion_url(post)}?view={view}", "next")
    flat = [slug for slugs in pages_seen for slug in slugs]
    assert flat == pattern_order(mongo_db, post, view)
    assert len(flat) == len(set(flat))
    assert numbers == list(range(1, NUM_PAGES + 1))
    assert all(len(slugs) == PER_PAGE for slugs in pages_seen[:-1])


@pytest.mark.parametrize("view", VIEWS)
def test_following_prev_links_from_the_last_page_walks_back_through_every_comment(
    client, discussion, mongo_db, view,
):
    """rel="prev" links from the last page walk back through the same pages to page 1."""
    post, _ = discussion
    pages_seen, numbers = walk(client, f"{discussion_url(post)}?view={view}&page={NUM_PAGES}", "prev")
    flat = [slug for slugs in reversed(pages_seen) for slug in slugs]
    assert flat == pattern_order(mongo_db, post, view)
    assert numbers == list(range(NUM_PAGES, 0, -1))


def test_cursor_links_carry_the_view_and_a_single_cursor(client, discussion):
    """Next and prev links keep the view and carry exactly one of after= / before=."""
    post, _ = discussion
    shown = page(client.get(discussion_url(post), {"view": "newest", "page": 2}))
    nxt, prev = query(shown.rel("next")), query(shown.rel("prev"))
    assert nxt["view"] == ["newest"] and set(nxt) == {"view", "after"}
    assert prev["view"] == ["newest"] and set(prev) == {"view", "before"}


@pytest.mark.stores("documents")
def test_next_link_past_the_remaining_comments_is_not_found(client, discussion, mongo_db):
    """A next link whose later comments were deleted meanwhile answers 404 with NO_MORE."""
    post, _ = discussion
    shown = page(client.get(discussion_url(post), {"page": NUM_PAGES - 1}))
    later = pattern_order(mongo_db, post, "threaded")[(NUM_PAGES - 1) * PER_PAGE:]
    mongo_db.comments.delete_many({"discussion_id": post.id, "slug": {"$in": later}})
    response = client.get(shown.rel("next"))
    assert response.status_code == 404
    assert page(response).text_of("error-text") == [NO_MORE]


# --- Bad addresses --------------------------------------------------------------------


def test_page_past_the_end_is_not_found(client, discussion):
    """A page number beyond the last page answers 404 and names the last page."""
    post, _ = discussion
    response = client.get(discussion_url(post), {"page": NUM_PAGES + 1})
    assert response.status_code == 404
    assert page(response).text_of("error-text") == [NO_SUCH_PAGE.format(number=NUM_PAGES + 1, last=NUM_PAGES)]


def test_second_page_of_an_empty_discussion_is_not_found(client, make_post):
    """Page 2 of a post without comments is 404, page 1 is 200."""
    post = make_post()
    assert client.get(discussion_url(post), {"page": 1}).status_code == 200
    assert client.get(discussion_url(post), {"page": 2}).status_code == 404


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", '{"$ne": null}', "+1", "1e2", "٣"])
def test_malformed_page_number_is_a_bad_request(client, discussion, value):
    """Anything but a whole number from 1 up in ?page= answers 400 with the reason."""
    post, _ = discussion
    response = client.get(discussion_url(post), {"page": value})
    assert response.status_code == 400
    assert page(response).text_of("error-text") == [BAD_PAGE]


def test_operator_shaped_page_key_is_ignored(client, discussion, mongo_db):
    """`page[$gt]=1` is just an unknown parameter: the first page, 200."""
    post, _ = discussion
    response = client.get(discussion_url(post), {"page[$gt]": "1"})
    assert response.status_code == 200
    assert page(response).slugs == pattern_order(mongo_db, post, "threaded")[:PER_PAGE]


def test_unknown_view_is_a_bad_request(client, discussion):
    """?view= naming no view answers 400 with the list of views."""
    post, _ = discussion
    response = client.get(discussion_url(post), {"view": "popular"})
    assert response.status_code == 400
    assert page(response).text_of("error-text") == [BAD_VIEW]


def tamper(token: str) -> str:
    """`token` with one character of its payload changed."""
    i = len(token) // 3
    return token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1:]


@pytest.mark.parametrize("direction", ["after", "before"])
def test_tampered_cursor_is_a_bad_request(client, discussion, direction):
    """A cursor with one character changed answers 400 with BAD_CURSOR."""
    post, _ = discussion
    shown = page(client.get(discussion_url(post), {"page": 2}))
    link = shown.rel("next" if direction == "after" else "prev")
    token = query(link)[direction][0]
    assert client.get(discussion_url(post), {direction: token}).status_code == 200
    response = client.get(discussion_url(post), {direction: tamper(token)})
    assert response.status_code == 400
    assert page(response).text_of("error-text") == [BAD_CURSOR]


def test_cursor_from_another_post_is_a_bad_request(client, discussion, make_post, make_comment):
    """A valid cursor of one post's comments is refused on another post."""
    post, _ = discussion
    other = make_post()
    for i in range(PER_PAGE + 2):
        make_comment(other, at=BASE + timedelta(minutes=i), summarise=False)
    summaries.refresh_summary(post_id=other.id)
    token = query(page(client.get(discussion_url(other))).rel("next"))["after"][0]
    assert client.get(discussion_url(other), {"after": token}).status_code == 200
    response = client.get(discussion_url(post), {"after": token})
    assert response.status_code == 400
    assert page(response).text_of("error-text") == [BAD_CURSOR]


@pytest.mark.parametrize("view,other_view", [("threaded", "chronological"), ("chronological", "newest"),
                                             ("newest", "threaded")])
def test_cursor_for_another_view_is_a_bad_request(client, discussion, view, other_view):
    """A cursor made for one view is refused in another view of the same post."""
    post, _ = discussion
    token = query(page(client.get(discussion_url(post), {"view": view})).rel("next"))["after"][0]
    response = client.get(discussion_url(post), {"view": other_view, "after": token})
    assert response.status_code == 400
    assert page(response).text_of("error-text") == [BAD_CURSOR]


def test_discussion_cursor_is_refused_on_a_permalink_page(client, discussion):
    """A cursor of the whole discussion is not a cursor of one comment's replies."""
    post, made = discussion
    token = query(page(client.get(discussion_url(post))).rel("next"))["after"][0]
    response = client.get(permalink_url(post, made[0].slug), {"after": token})
    assert response.status_code == 400


@pytest.mark.parametrize("path", ["/posts/no-such-post/", "/posts/no-such-post/comments/",
                                  "/posts/no-such-post/comments/aaaaaaaa/"])
def test_unknown_post_is_not_found_in_the_sites_layout(client, path):
    """An unknown post slug answers 404 with the site header and the reason."""
    response = client.get(path)
    assert response.status_code == 404
    shown = page(response)
    assert shown.text_of("brand") == ["Slugline"]
    assert shown.text_of("error-text") == [NO_SUCH_POST]


def test_draft_post_is_not_found(client, make_post):
    """A draft is invisible: its page is 404."""
    post = make_post(status="draft", published=None)
    assert client.get(post_url(post)).status_code == 404
    assert client.get(discussion_url(post)).status_code == 404


# --- Permalinks -----------------------------------------------------------------------


@pytest.fixture
def focus(discussion, make_comment, settings):
    """Comment 12 of the discussion (depth 2, under 9 under 8) with seven replies (one old, six new)
    below it, shown 3 to a page."""
    settings.COMMENTS_PER_PAGE = 3
    post, made = discussion
    comment = made[12]
    at = BASE + timedelta(hours=1)
    first = make_comment(post, parent_slug=comment.slug, at=at, summarise=False)
    make_comment(post, parent_slug=first.slug, at=at + timedelta(minutes=1), summarise=False)
    for i in range(2, 6):
        make_comment(post, parent_slug=comment.slug, at=at + timedelta(minutes=i), summarise=False)
    summaries.refresh_summary(post_id=post.id)
    return post, made, comment


def test_permalink_page_shows_the_comment_its_ancestors_and_a_prefilled_reply_form(client, focus):
    """A permalink page has an h1, then the ancestors root first (folded), then the
    comment, its reply count and a prefilled reply form."""
    post, made, comment = focus
    response = client.get(permalink_url(post, comment.slug))
    assert response.status_code == 200
    shown = page(response)
    assert shown.slugs[:3] == [made[8].slug, made[9].slug, comment.slug]
    assert shown.text_of("focus") and shown.comments[2]["id"] == comment.anchor
    assert shown.by_id["focus-title"] == f"Comment by {comment.author.name}"
    body = response.content.decode()
    assert body.index("<h1") < body.index('class="ancestors"') < body.index('class="focus"')
    assert shown.inputs["parent"] == comment.slug
    assert shown.textareas == {"text": ""}
    assert shown.by_id["reply"].startswith(f"Reply to {comment.author.name}")
    assert shown.by_id["replies-title"] == "7 replies"


def test_permalink_replies_are_indented_from_the_comment_not_from_the_root(client, focus, settings):
    """On a permalink page replies are indented from the comment (direct replies at 0), not from the root."""
    settings.COMMENTS_PER_PAGE = 50
    post, made, comment = focus
    shown = page(client.get(permalink_url(post, comment.slug)))
    replies = shown.comments[3:]
    assert len(replies) == 7
    for reply in replies:
        relative = int(reply["depth"]) - comment.depth - 1
        assert f"indent-{relative}" in reply["item_classes"], reply
    assert {int(r["depth"]) - comment.depth - 1 for r in replies} == {0, 1}


@pytest.mark.stores("documents")
def test_permalink_replies_are_paginated_and_next_links_cover_the_subthread(client, focus, mongo_db):
    """A permalink's replies page by cursor through its whole sub-thread and nothing else."""
    post, made, comment = focus
    expected = [d["slug"] for d in mongo_db.comments.find({"discussion_id": post.id}).sort("full_slug")
                if d["slug"].startswith(comment.slug + "/")]
    assert len(expected) == 7  # the old reply 14 and the six new ones
    url, seen, visits = permalink_url(post, comment.slug), [], 0
    while url:
        visits += 1
        assert visits <= 10, "the links go round in circles"
        shown = page(client.get(url))
        seen += shown.slugs[3:]  # after the two ancestors and the comment itself
        url = shown.rel("next")
    assert seen == expected
    assert visits == 3


def test_permalink_links_back_to_the_right_page_of_the_full_discussion(client, focus, mongo_db):
    """'Show in the full discussion' links to the threaded page that holds the comment."""
    post, made, comment = focus
    threaded = pattern_order(mongo_db, post, "threaded")
    expected_page = threaded.index(comment.slug) // 3 + 1
    assert expected_page > 1
    shown = page(client.get(permalink_url(post, comment.slug)))
    back = [link["href"] for link in shown.links if link["text"] == "Show in the full discussion"]
    assert back == [f"{post_url(post)}?page={expected_page}#{comment.anchor}"]
    there = page(client.get(back[0]))
    assert comment.slug in there.slugs


@pytest.mark.parametrize(
    "path", [".*", "a|b", "AAAAAAAA", "aaaaaaaa/.*", "[a-z]{8}", "aaaaaaaa/", "zzzzzzz1"],
)
def test_malformed_permalink_path_is_not_found_without_querying_comments(client, discussion, path):
    """A permalink path that is not a slug path is 404, refused before any query on comments."""
    post, _ = discussion
    COMMENTS_COMMANDS.names.clear()
    response = client.get(f"/posts/{post.slug}/comments/{path}/")
    assert response.status_code == 404
    assert COMMENTS_COMMANDS.names == []
    assert page(response).text_of("error-text") == [NO_SUCH_COMMENT]


@pytest.mark.stores("documents")
def test_uppercased_existing_slug_and_unknown_slug_are_not_found(client, discussion):
    """Slugs are case-sensitive, and a well-formed slug with no comment is 404."""
    post, made = discussion
    COMMENTS_COMMANDS.names.clear()
    assert client.get(permalink_url(post, made[1].slug)).status_code == 200
    assert "find" in COMMENTS_COMMANDS.names  # the listener does see the permalink's queries
    assert client.get(permalink_url(post, made[1].slug.upper())).status_code == 404
    assert client.get(permalink_url(post, "zzzzzzzz")).status_code == 404


def test_permalink_of_another_posts_comment_is_not_found(client, discussion, make_post, make_comment):
    """A comment is reachable only under its own post."""
    post, _ = discussion
    other = make_post()
    foreign = make_comment(other)
    assert client.get(permalink_url(other, foreign.slug)).status_code == 200
    assert client.get(permalink_url(post, foreign.slug)).status_code == 404


# --- Continue this thread -------------------------------------------------------------


def test_continue_link_appears_at_the_indent_limit_only_before_a_reply(
    client, make_post, make_comment, settings,
):
    """'Continue this thread' appears only at the indent limit on a comment followed by its
    reply, and the replies below it are drawn on its permalink page, not after the link."""
    settings.COMMENTS_INDENT_LIMIT = 2
    post = make_post()
    root = make_comment(post, at=BASE)
    d1 = make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    d2 = make_comment(post, parent_slug=d1.slug, at=BASE + timedelta(minutes=2))
    d3 = make_comment(post, parent_slug=d2.slug, at=BASE + timedelta(minutes=3))
    lone = make_comment(post, parent_slug=d1.slug, at=BASE + timedelta(minutes=4))
    shown = page(client.get(post_url(post)))
    assert shown.slugs == [root.slug, d1.slug, d2.slug, lone.slug]
    assert shown.by_id["comments-title"] == "5 comments"
    continues = [(link["in_comment"], link["href"]) for link in shown.links
                 if "continue-thread" in link.get("class", "")]
    assert continues == [(None, permalink_url(post, d2.slug))]
    # The link sits right after d2's article, inside d2's list item.
    body = client.get(post_url(post)).content.decode()
    pattern = r'<li class="comment-item[^"]*"[^>]*>\s*<article[^>]*data-slug="%s".*?</li>' % re.escape(d2.slug)
    item = re.search(pattern, body, re.S)
    assert item and "Continue this thread" in item.group(0)
    continued = page(client.get(permalink_url(post, d2.slug)))
    assert d3.slug in continued.slugs and continued.by_id["replies-title"] == "1 reply"


def chain_across_two_pages(post, make_comment, settings) -> list:
    """root -> d1 -> d2 -> d3 with three comments a page and the indent limit at d2,
    so d2 ends page 1 and its reply d3 opens page 2."""
    settings.COMMENTS_INDENT_LIMIT = 2
    settings.COMMENTS_PER_PAGE = 3
    chain = [make_comment(post, at=BASE)]
    for minutes in (1, 2, 3):
        chain.append(make_comment(post, parent_slug=chain[-1].slug, at=BASE + timedelta(minutes=minutes)))
    return chain


def continue_links(*shown_pages) -> list[str]:
    return [link["href"] for shown in shown_pages for link in shown.links
            if "continue-thread" in link.get("class", "")]


def test_continue_link_appears_when_the_reply_opens_the_next_page(client, make_post, make_comment, settings):
    """A comment at the indent limit whose reply opens the next page still offers 'Continue
    this thread'; the next page, opening below the limit, starts with the same link."""
    post = make_post()
    root, d1, d2, d3 = chain_across_two_pages(post, make_comment, settings)
    first = page(client.get(discussion_url(post), {"page": 1}))
    second = page(client.get(discussion_url(post), {"page": 2}))
    assert first.slugs == [root.slug, d1.slug, d2.slug] and second.slugs == []
    assert continue_links(first, second) == [permalink_url(post, d2.slug)] * 2
    assert second.current == ["2"] and second.by_id["comments-title"] == "4 comments"


def test_continue_link_survives_coming_back_by_the_previous_link(client, make_post, make_comment, settings):
    """Reached backwards (a `before=` cursor), the page still knows its last comment's reply opens the next."""
    post = make_post()
    root, d1, d2, _ = chain_across_two_pages(post, make_comment, settings)
    second = page(client.get(discussion_url(post), {"page": 2}))
    prev = next(link["href"] for link in second.links if link.get("rel") == "prev")
    back = page(client.get(prev))
    assert back.slugs == [root.slug, d1.slug, d2.slug]
    assert continue_links(back) == [permalink_url(post, d2.slug)]


# --- Posting --------------------------------------------------------------------------


@pytest.mark.stores("documents")
def test_posted_comment_lands_on_the_post_page_with_its_confirmation_beside_it(client, make_post, mongo_db):
    """A valid comment answers 303 See Other to the post's own page (the article and its
    comments), at the comment's anchor, with the confirmation beside the comment; it is
    stored once."""
    post = make_post()
    response = submit(client, post_url(post), text="First!")
    assert response.status_code == 303
    docs = list(mongo_db.comments.find({"discussion_id": post.id}))
    assert len(docs) == 1
    doc = docs[0]
    assert response["Location"] == f"{post_url(post)}#c-{doc['slug']}"
    assert doc["text"] == "First!"
    assert doc["author"] == {"id": None, "name": "Rosa", "email": "rosa@example.com"}
    assert doc["parent_id"] is None
    landed = client.get(response["Location"])
    shown = page(landed)
    assert shown.slugs == [doc["slug"]] and shown.text_of("message") == [POSTED]
    body = landed.content.decode()
    assert 'id="post-title"' in body  # the article itself
    # The confirmation follows the comment (where #c-… lands), not the top of the page.
    assert body.index(f'id="c-{doc["slug"]}"') < body.index('class="confirmations"')
    assert body.count('class="messages"') == 1
    assert mongo_db.posts.find_one({"_id": post.id})["comment_count"] == 1
    # Read once: the next page says nothing more.
    assert page(client.get(response["Location"])).text_of("message") == []


@pytest.mark.stores("documents")
def test_posted_reply_is_stored_under_its_parent(client, make_post, make_comment, mongo_db):
    """A reply posted with parent=<slug> is stored as a child of that comment and lands on it
    in the discussion."""
    post = make_post()
    root = make_comment(post)
    child = make_comment(post, parent_slug=root.slug)
    response = submit(client, permalink_url(post, child.slug))
    assert response.status_code == 303
    doc = mongo_db.comments.find_one({"discussion_id": post.id, "parent_id": child.id})
    assert doc["slug"].startswith(child.slug + "/") and doc["slug"].count("/") == 2
    anchor = "c-" + doc["slug"].replace("/", "-")
    assert response["Location"] == f"{post_url(post)}#{anchor}"
    assert stored_count(mongo_db) == 3


def test_anonymous_comment_without_name_is_refused_and_keeps_the_text(client, make_post, mongo_db):
    """An anonymous comment without a name is 400 with NAME_REQUIRED, keeps its text and stores nothing."""
    post = make_post()
    response = submit(client, post_url(post), name="   ", text="My words\nstay here.")
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("field-error") == [NAME_REQUIRED]
    assert shown.textareas["text"] == "My words\nstay here."
    assert stored_count(mongo_db) == 0


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \r\n"])
def test_empty_or_blank_comment_is_refused(client, make_post, mongo_db, text):
    """Empty or whitespace-only text answers 400 with EMPTY_TEXT and stores nothing."""
    post = make_post()
    response = submit(client, post_url(post), text=text)
    assert response.status_code == 400
    assert page(response).text_of("field-error") == [EMPTY_TEXT]
    assert stored_count(mongo_db) == 0


def test_comment_over_the_length_limit_is_refused_and_kept(client, make_post, mongo_db, settings):
    """Text over COMMENTS_MAX_LENGTH is 400 with TOO_LONG and kept; text at the limit is accepted."""
    settings.COMMENTS_MAX_LENGTH = 20
    post = make_post()
    long_text = "x" * 21
    response = submit(client, post_url(post), text=long_text)
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("field-error") == [TOO_LONG % {"limit_value": 20, "show_value": 21}]
    assert shown.textareas["text"] == long_text
    assert stored_count(mongo_db) == 0
    assert submit(client, post_url(post), text="y" * 20).status_code == 303
    assert stored_count(mongo_db) == 1


@pytest.mark.parametrize("parent,message", [
    ("zzzzzzzz", PARENT_NOT_FOUND),
    ("zzzzzzzz/yyyyyyyy", PARENT_NOT_FOUND),
    (".*", BAD_PARENT),
    ("a|b", BAD_PARENT),
    ("AAAAAAAA", BAD_PARENT),
    ('{"$ne": null}', BAD_PARENT),
])
def test_reply_to_a_missing_or_malformed_parent_is_refused_and_kept(
    client, make_post, make_comment, mongo_db, parent, message,
):
    """A malformed or unknown parent is 400 with the reason, keeps the text and stores nothing."""
    post = make_post()
    make_comment(post)
    response = submit(client, post_url(post), parent=parent, text="Lost reply")
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("form-errors") == [message]
    assert shown.textareas["text"] == "Lost reply"
    assert stored_count(mongo_db) == 1


@pytest.mark.stores("documents")
def test_reply_to_a_comment_of_another_post_is_refused_and_kept(client, make_post, make_comment, mongo_db):
    """A reply naming another post's comment answers 400 with PARENT_NOT_FOUND and stores nothing."""
    post, other = make_post(), make_post()
    foreign = make_comment(other)
    response = submit(client, post_url(post), parent=foreign.slug, text="Wrong post")
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("form-errors") == [PARENT_NOT_FOUND]
    assert shown.textareas["text"] == "Wrong post"
    assert stored_count(mongo_db) == 1
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 0


def test_refused_reply_redisplays_the_permalink_with_parent_and_text(
    client, make_post, make_comment, mongo_db,
):
    """A reply refused for a missing name comes back on its parent's permalink page, parent and text kept."""
    post = make_post()
    root = make_comment(post)
    response = submit(client, permalink_url(post, root.slug), name="", text="Half a thought")
    assert response.status_code == 400
    shown = page(response)
    assert root.slug in shown.slugs and shown.text_of("focus")
    assert shown.inputs["parent"] == root.slug
    assert shown.textareas["text"] == "Half a thought"
    assert shown.text_of("field-error") == [NAME_REQUIRED]
    assert stored_count(mongo_db) == 1


SCRIPT_NAME = "<script>alert('name')</script>Mallory"
SCRIPT_EMAIL = '"<script>alert(1)</script>"@example.com'
SCRIPT_TEXT = "<script>alert('text')</script>Hello <b onclick=\"steal()\">there</b>"


def without_site_scripts(body: str) -> str:
    """The page without the script tags of static files (the comments app's, that
    base.html links with {% comments_assets %}), nor a post's JSON-LD, which holds no
    "<" at all (cms/sharing.py escapes it)."""
    body = re.sub(r'<script type="application/ld\+json">[^<]*</script>', "", body)
    return re.sub(r'<script src="/static/[^"<>]+" defer></script>', "", body)


@pytest.mark.stores("documents")
def test_script_in_name_email_and_text_never_reaches_the_page(client, make_post, mongo_db):
    """Script in name, e-mail or text never reaches a page raw; the e-mail is never shown at all."""
    post = make_post()
    response = submit(client, post_url(post), name=SCRIPT_NAME, email=SCRIPT_EMAIL, text=SCRIPT_TEXT)
    assert response.status_code == 303
    doc = mongo_db.comments.find_one({"discussion_id": post.id})
    assert doc["author"]["email"] == SCRIPT_EMAIL
    for url in (response["Location"], post_url(post), discussion_url(post)):
        body = client.get(url).content.decode()
        assert "<script" not in without_site_scripts(body).lower()
        assert "onclick" not in body
        assert "steal()" not in body
        assert html.escape(SCRIPT_NAME) in body
        # Only the poster's own form is filled in with their e-mail again, escaped.
        assert page(client.get(discussion_url(post))).inputs["email"] == SCRIPT_EMAIL
        other = Client().get(url).content.decode()
        assert "alert(1)" not in other and "@example.com" not in other
        shown = Page(body.encode())
        rendered = next(c for c in shown.comments if c["slug"] == doc["slug"])
        assert rendered["author"] == SCRIPT_NAME
        assert rendered["text"] == "Hello there"
    assert "<b>there</b>" in client.get(response["Location"]).content.decode()


def test_script_in_a_refused_form_is_escaped_when_shown_again(client, make_post, mongo_db):
    """A refused form redisplays name, e-mail and text escaped, never as markup."""
    post = make_post()
    response = submit(client, post_url(post), name=SCRIPT_NAME, email="<script>alert(2)</script>",
                      text=SCRIPT_TEXT)
    assert response.status_code == 400
    body = response.content.decode()
    assert "<script" not in without_site_scripts(body).lower()
    shown = page(response)
    assert shown.textareas["text"] == SCRIPT_TEXT
    assert shown.inputs["name"] == SCRIPT_NAME
    assert shown.inputs["email"] == "<script>alert(2)</script>"
    assert stored_count(mongo_db) == 0


@pytest.mark.stores("documents")
def test_logged_in_user_posts_as_themselves_without_a_name(
    client, db, django_user_model, make_post, mongo_db,
):
    """A logged-in reader sees no name or e-mail fields and posts under their own name and id."""
    user = django_user_model.objects.create_user(username="grace", first_name="Grace", last_name="Hopper")
    client.force_login(user)
    post = make_post()
    shown = page(client.get(post_url(post)))
    assert "name" not in shown.inputs and "email" not in shown.inputs
    assert shown.text_of("posting-as") == ["Posting as Grace Hopper."]
    response = submit(client, post_url(post), text="Members only", name="Impostor", email="x@y.org")
    assert response.status_code == 303
    doc = mongo_db.comments.find_one({"discussion_id": post.id})
    assert doc["author"] == {"id": user.pk, "name": "Grace Hopper", "email": ""}
    rendered = page(client.get(response["Location"])).comments[0]
    assert rendered["author"] == "Grace Hopper"


def test_post_without_csrf_token_is_forbidden_and_writes_nothing(make_post, mongo_db):
    """With CSRF checks on, a POST without the token is 403 and stores nothing; with it, it goes through."""
    post = make_post()
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(discussion_url(post), {"text": "No token", "name": "Rosa"})
    assert response.status_code == 403
    assert stored_count(mongo_db) == 0
    fields = page(strict.get(post_url(post))).inputs
    assert fields["csrfmiddlewaretoken"]
    without = {k: v for k, v in fields.items() if k != "csrfmiddlewaretoken"}
    response = strict.post(discussion_url(post), {**without, "text": "Cookie only", "name": "Rosa"})
    assert response.status_code == 403
    assert stored_count(mongo_db) == 0
    response = submit(strict, post_url(post))
    assert response.status_code == 303
    assert stored_count(mongo_db) == 1


@pytest.mark.stores("documents")
def test_reply_beyond_the_depth_limit_is_reattached_and_the_next_page_says_so(
    client, make_post, make_comment, mongo_db, settings,
):
    """A reply past COMMENTS_MAX_DEPTH is stored at the deepest level; the next page shows REATTACHED."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    d1 = make_comment(post, parent_slug=root.slug)
    d2 = make_comment(post, parent_slug=d1.slug)
    notice = REATTACHED.format(depth=2)

    response = submit(client, permalink_url(post, d2.slug), text="Deeper still")
    assert response.status_code == 303
    doc = mongo_db.comments.find_one({"discussion_id": post.id, "text": "Deeper still"})
    assert doc["parent_id"] == d1.id
    assert doc["slug"].count("/") == 2
    assert response["Location"].endswith("#c-" + doc["slug"].replace("/", "-"))

    shown = page(client.get(response["Location"]))
    assert shown.text_of("message") == [notice, POSTED]
    assert page(client.get(response["Location"])).text_of("message") == []


def test_reply_within_the_depth_limit_shows_no_notice(client, make_post, make_comment, settings):
    """A reply that fits under the depth limit is followed by a page without the reattached notice."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    response = submit(client, permalink_url(post, root.slug))
    assert response.status_code == 303
    assert page(client.get(response["Location"])).text_of("message") == [POSTED]


def test_markdown_is_rendered_and_links_are_marked_user_generated(client, make_post, mongo_db):
    """**bold** becomes <strong>, and a link gets rel="nofollow ugc noopener"."""
    post = make_post()
    text = "This is **bold** and [a link](https://example.org/page)."
    response = submit(client, post_url(post), text=text)
    assert response.status_code == 303
    body = client.get(response["Location"]).content.decode()
    assert "<strong>bold</strong>" in body
    shown = Page(body.encode())
    links = [link for link in shown.comments[0]["links"] if link["href"] == "https://example.org/page"]
    assert len(links) == 1
    assert set(links[0]["rel"].split()) == {"nofollow", "ugc", "noopener"}
    assert links[0]["text"] == "a link"


def test_html_in_comments_keeps_safe_tags_and_drops_images_and_javascript_links(client, make_post):
    """Allowed inline HTML stays; images, javascript: links and attributes outside the list are dropped."""
    post = make_post()
    text = ('<em style="color:red" onmouseover="steal()">kept</em> <img src="https://evil.example/x.png"> '
            "[bad](javascript:alert(1))")
    response = submit(client, post_url(post), text=text)
    assert response.status_code == 303
    body = client.get(response["Location"]).content.decode()
    shown = Page(body.encode())
    assert "<em>kept</em>" in body
    assert "<img" not in body and "evil.example" not in body
    assert "javascript:" not in body and "steal()" not in body and "color:red" not in body
    assert shown.comments[0]["text"] == "kept  bad"
