"""The API's read endpoints, over HTTP through Django's test client, in every store:
the same comments in the same order as the HTML pages, the same cursors, the same
visibility, entity tags, counts and problem details."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client
from django.utils import translation

from api.v1 import NO_POSTS, NO_SUCH_COMMENT, TOO_MANY_POSTS
from cms import posts
from cms.published import NO_SUCH_POST
from comments.moderation import queue as moderation
from comments.posting import services
from comments.reading import listers
from comments.reading.cursors import BAD_CURSOR
from comments.reading.listings import BAD_VIEW
from comments.records import RANKED_ORDERS, CommentAuthor
from tests.page_reading import Page
from tests.snapshots import once

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
# PARENTS[i]: the comment that comment i answers (None: top level); 17 comments, depth 0-6.
PARENTS = [None, 0, 1, 2, 3, 4, 5, None, 7, 0, None, 10, 8, 1, None, 14, 7]
PER_PAGE = 4


def api(url: str, client: Client | None = None, **headers):
    response = (client or Client()).get(url, **headers)
    return response, (json.loads(response.content) if response.content else None)


def build_tree(post, make_comment) -> list:
    made = []
    for i, parent in enumerate(PARENTS):
        made.append(make_comment(
            post, text=f"Comment number {i}",
            author=CommentAuthor(id=None, name=f"Reader {i}", email=f"reader{i}@example.com"),
            parent_slug=made[parent].slug if parent is not None else None,
            at=BASE + timedelta(minutes=i), ip="192.0.2.7",
        ))
    return made


@pytest.fixture(scope="module")
def _discussions_built() -> dict:
    """Per store: `hidden_discussion` as the first test built it, and what that wrote."""
    return {}


@pytest.fixture
def hidden_discussion(settings, make_post, make_comment, mongo_db, each_store, _discussions_built):
    """A discussion with hidden comments: a deleted one with replies (a placeholder),
    a spam one with none (gone), a pending one (gone for readers). Built through the
    services by the module's first test of each store; every later test of that store
    gets the same documents again (tests/snapshots.py)."""
    settings.COMMENTS_PER_PAGE = PER_PAGE
    settings.COMMENTS_INDENT_LIMIT = 3
    return once(_discussions_built, each_store, mongo_db, lambda: build_hidden(make_post, make_comment))


def build_hidden(make_post, make_comment):
    post = make_post()
    made = build_tree(post, make_comment)
    moderation.moderate(action="delete", comment_ids=[made[7].id])
    moderation.moderate(action="spam", comment_ids=[made[15].id])
    moderation.moderate(action="delete", comment_ids=[made[11].id])
    pending = services.post_comment(
        post=post, text="Held", author=CommentAuthor(id=None, name="Held"), parent_slug=made[10].slug,
    ).comment
    moderation.moderate(action="delete", comment_ids=[pending.id])
    return post, made


def html_pages(post, view: str) -> list[list[str]]:
    """The slugs of each page of the HTML discussion in `view`, walked by its next links."""
    found, url = [], f"/posts/{post.slug}/comments/?view={view}"
    while url:
        page = Page(Client().get(url).content)
        found.append([c["slug"] for c in page.comments])
        nxt = [link["href"] for link in page.links if link.get("rel") == "next"]
        url = nxt[0].split("#")[0].replace("&amp;", "&") if nxt else None
    return found


def api_pages(post, view: str) -> list[list[dict]]:
    found, url = [], f"/api/v1/posts/{post.slug}/comments/?view={view}"
    while url:
        response, data = api(url)
        assert response.status_code == 200
        found.append(data["comments"])
        url = f"/api/v1/posts/{post.slug}/comments/?view={view}&after={data['next']}" if data["next"] else None
    return found


@pytest.mark.parametrize("view", list(listers.VIEWS))
def test_api_and_pages_show_the_same_comments_in_the_same_order(hidden_discussion, view):
    """Every page of every view: the same slugs, in the same order, placeholders in the
    same places, whether reached by cursor or (in the views that number their pages)
    by page number."""
    post, _ = hidden_discussion
    from_html = html_pages(post, view)
    from_api = api_pages(post, view)
    assert [[c["slug"] for c in page] for page in from_api] == from_html
    assert len(from_html) > 2
    if view in RANKED_ORDERS:  # best and top page by cursor only (docs/votes.md)
        return
    for number, expected in enumerate(from_html, start=1):
        _, data = api(f"/api/v1/posts/{post.slug}/comments/?view={view}&page={number}")
        assert [c["slug"] for c in data["comments"]] == expected
        assert data["page"] == number and data["num_pages"] == len(from_html)


def test_hidden_comments_are_placeholders_or_absent(hidden_discussion):
    """A deleted comment with replies keeps its place and nothing else; spam and pending
    comments without approved replies are not listed; no e-mail or IP anywhere."""
    post, made = hidden_discussion
    listed = [c for page in api_pages(post, "chronological") for c in page]
    by_slug = {c["slug"]: c for c in listed}
    deleted = by_slug[made[7].slug]
    assert deleted["placeholder"] and deleted["author"] is None and deleted["html"] == ""
    assert deleted["placeholder_text"] == "[deleted]"
    assert made[15].slug not in by_slug
    assert "Held" not in json.dumps(listed)
    raw = json.dumps(listed)
    assert "example.com" not in raw and "192.0.2.7" not in raw
    assert by_slug[made[0].slug]["author"] == "Reader 0"
    assert by_slug[made[0].slug]["text"] is None  # the Markdown source is not the reader's


def test_views_come_from_the_site_registry(hidden_discussion, monkeypatch):
    """A view the site adds to its registry appears in the discussion with no change to the API."""
    post, _ = hidden_discussion
    _, data = api(f"/api/v1/posts/{post.slug}/")
    assert [v["name"] for v in data["views"]] == list(listers.VIEWS)
    monkeypatch.setitem(listers.VIEWS, "best", "Best")
    _, data = api(f"/api/v1/posts/{post.slug}/")
    assert "best" in [v["name"] for v in data["views"]]


def test_discussion_says_count_and_closed(make_post, make_comment):
    post = make_post()
    make_comment(post)
    response, data = api(f"/api/v1/posts/{post.slug}/")
    assert response.status_code == 200
    assert data["comment_count"] == 1 and data["closed"] is False and data["post"] == post.slug
    posts.set_comments_closed(post_id=post.id, closed=True)
    _, data = api(f"/api/v1/posts/{post.slug}/")
    assert data["closed"] is True


def test_a_comment_comes_with_its_ancestors_and_replies(hidden_discussion):
    post, made = hidden_discussion
    response, data = api(f"/api/v1/posts/{post.slug}/comments/{made[3].slug}/")
    assert response.status_code == 200
    assert [c["slug"] for c in data["ancestors"]] == [made[0].slug, made[1].slug, made[2].slug]
    assert data["comment"]["slug"] == made[3].slug and data["comment"]["depth"] == 3
    assert data["comment"]["parent"] == made[2].slug
    assert [c["slug"] for c in data["replies"]["comments"]] == [made[4].slug, made[5].slug, made[6].slug]
    html = Page(Client().get(f"/posts/{post.slug}/comments/{made[3].slug}/").content)
    drawn = [c["slug"] for c in html.comments]
    assert sorted(drawn) == sorted(c["slug"] for c in [*data["ancestors"], data["comment"], *data["replies"]["comments"]])
    assert drawn[-3:] == [c["slug"] for c in data["replies"]["comments"]]


def test_a_hidden_or_unknown_comment_is_a_404_problem(hidden_discussion):
    post, made = hidden_discussion
    for path in (made[15].slug, "zzzzzzzz", "not a slug!"):
        response, data = api(f"/api/v1/posts/{post.slug}/comments/{path}/")
        assert response.status_code == 404
        assert response["Content-Type"] == "application/problem+json"
        assert data["detail"] == NO_SUCH_COMMENT and data["status"] == 404


@pytest.mark.parametrize("query, message", [
    ("view=sideways", BAD_VIEW), ("after=garbage", BAD_CURSOR),
])
def test_bad_views_and_cursors_are_the_pages_400s(make_post, make_comment, query, message):
    post = make_post()
    make_comment(post)
    response, data = api(f"/api/v1/posts/{post.slug}/comments/?{query}")
    assert response.status_code == 400
    assert data["detail"] == message


def test_problems_speak_the_readers_language(make_post):
    response, data = api("/api/v1/posts/no-such-post/", HTTP_ACCEPT_LANGUAGE="vi")
    assert response.status_code == 404
    with translation.override("vi"):
        assert data["detail"] == translation.gettext(NO_SUCH_POST) != NO_SUCH_POST


def test_unchanged_answers_are_304_until_the_discussion_changes(make_post, make_comment):
    post = make_post()
    make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/"
    first, _ = api(url)
    etag = first["ETag"]
    again, body = api(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and body is None
    make_comment(post)
    changed, data = api(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag and len(data["comments"]) == 2


def test_counts_of_many_posts(make_post, make_comment):
    one, two = make_post(), make_post()
    make_comment(one)
    make_comment(two)
    make_comment(two)
    draft = make_post(status="draft")
    response, data = api(f"/api/v1/counts?posts={one.slug},{two.slug},nope,{draft.slug},{one.slug}")
    assert response.status_code == 200
    assert data["counts"] == {one.slug: 1, two.slug: 2, "nope": None, draft.slug: None}


def test_counts_are_capped_and_need_posts(settings):
    settings.API_COUNTS_MAX = 3
    response, data = api("/api/v1/counts?posts=a,b,c,d")
    assert response.status_code == 400 and data["detail"] == TOO_MANY_POSTS.format(limit=3)
    response, data = api("/api/v1/counts?posts=,")
    assert response.status_code == 400 and data["detail"] == NO_POSTS


def test_pending_comments_show_to_their_author_only(settings, make_post, make_user):
    """A member's held comment is theirs to see (with its source, while they may edit
    it); other readers do not see it, and their answers carry no entity tag."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    member = make_user("mia", role="reader")
    posted = services.post_comment(post=post, text="Mine *here*", author=CommentAuthor(id=member.pk, name="Mia"))
    mine = Client()
    mine.force_login(member)
    response, data = api(f"/api/v1/posts/{post.slug}/comments/", client=mine)
    assert "ETag" not in response
    [shown] = data["comments"]
    assert shown["slug"] == posted.comment.slug and shown["awaiting_moderation"] and shown["text"] == "Mine *here*"
    assert shown["can_change"] is True
    _, data = api(f"/api/v1/posts/{post.slug}/comments/")
    assert data["comments"] == []


def test_a_kept_answer_is_never_served_after_the_discussion_changes(make_post, make_comment, settings):
    """Readers' answers are cached under their entity tag: a moderation action (a new
    comments version) is seen at once."""
    settings.COMMENTS_CACHE_SECONDS = 300
    post = make_post()
    comment = make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/"
    assert [c["slug"] for c in api(url)[1]["comments"]] == [comment.slug]
    assert [c["slug"] for c in api(url)[1]["comments"]] == [comment.slug]
    moderation.moderate(action="spam", comment_ids=[comment.id])
    assert api(url)[1]["comments"] == []
