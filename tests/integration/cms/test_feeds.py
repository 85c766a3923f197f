"""RSS and Atom feeds: well-formed XML with the right entries, only published posts."""

import html
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone

import pytest

from cms import posts
from comments.records import CommentAuthor

ATOM = "{http://www.w3.org/2005/Atom}"


def rss_items(response) -> list[dict]:
    """The RSS 2.0 channel's items, parsed (fails on malformed XML)."""
    assert response.status_code == 200 and response["Content-Type"].startswith("application/rss+xml")
    root = ET.fromstring(response.content)
    assert root.tag == "rss" and root.get("version") == "2.0"
    channel = root.find("channel")
    assert (
        channel.findtext("title") and channel.findtext("link") and channel.findtext("description") is not None
    )
    return [{child.tag: child.text for child in item} for item in channel.findall("item")]


def atom_entries(response) -> list[dict]:
    """The Atom feed's entries, checked for the elements RFC 4287 requires."""
    assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert root.find(f"{ATOM}{required}") is not None, required
    entries = []
    for entry in root.findall(f"{ATOM}entry"):
        for required in ("id", "title", "updated", "link"):
            assert entry.find(f"{ATOM}{required}") is not None, required
        assert entry.find(f"{ATOM}author/{ATOM}name") is not None
        entries.append(
            {
                "title": entry.findtext(f"{ATOM}title"),
                "link": entry.find(f"{ATOM}link").get("href"),
                "author": entry.findtext(f"{ATOM}author/{ATOM}name"),
                "summary": entry.findtext(f"{ATOM}summary"),
                "updated": entry.findtext(f"{ATOM}updated"),
                "content": entry.findtext(f"{ATOM}summary") or entry.findtext(f"{ATOM}content"),
            }
        )
    return entries


@pytest.fixture
def site(make_post):
    now = datetime.now(timezone.utc)
    return {
        "old": make_post(
            title="Old <news> & more",
            tags=["mongo"],
            published=now - timedelta(days=2),
            content="**Bold** claim",
        ),
        "new": make_post(title="New post", tags=["mongo", "web"], published=now - timedelta(days=1)),
        "draft": make_post(title="Draft post", tags=["mongo"], status=posts.DRAFT, published=None),
        "scheduled": make_post(
            title="Scheduled post", tags=["mongo"], status=posts.SCHEDULED, published=now + timedelta(days=1)
        ),
    }


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_latest_posts_feeds_list_published_posts_newest_first(client, site, kind):
    """Titles (escaped), links, authors and HTML bodies; drafts and scheduled posts left out."""
    response = client.get(f"/feeds/latest/{kind}/")
    items = rss_items(response) if kind == "rss" else atom_entries(response)
    assert [i["title"] for i in items] == ["New post", "Old <news> & more"]
    assert items[1]["link"] == f"http://testserver/posts/{site['old'].slug}/"
    body = items[1]["description" if kind == "rss" else "summary"]
    assert "<strong>Bold</strong>" in body


def test_latest_posts_feed_is_bounded_by_feed_items(client, make_post, settings):
    """FEED_ITEMS entries at most."""
    settings.FEED_ITEMS = 2
    for _ in range(3):
        make_post()
    assert len(atom_entries(client.get("/feeds/latest/atom/"))) == 2


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_tag_feeds_list_the_tags_published_posts(client, site, kind):
    """Only posts with the tag, only published ones."""
    response = client.get(f"/feeds/tags/web/{kind}/")
    items = rss_items(response) if kind == "rss" else atom_entries(response)
    assert [i["title"] for i in items] == ["New post"]


@pytest.mark.parametrize("tag", ["nope", "secret"])
def test_a_tag_feed_for_an_unknown_tag_is_404(client, make_post, tag):
    """Unknown tags (or tags of drafts only) have no feed."""
    make_post(tags=["secret"], status=posts.DRAFT, published=None)
    assert client.get(f"/feeds/tags/{tag}/atom/").status_code == 404


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_comment_feeds_list_a_posts_latest_comments(client, site, make_comment, kind):
    """Newest first, each linking to its permalink, with its author."""
    post = site["new"]
    first = make_comment(post, text="First <b>comment</b>", author=CommentAuthor(id=None, name="Maya"))
    make_comment(post, text="Second comment", author=CommentAuthor(id=None, name="Theo"))
    response = client.get(f"/feeds/posts/{post.slug}/comments/{kind}/")
    items = rss_items(response) if kind == "rss" else atom_entries(response)
    assert len(items) == 2 and items[0]["title"].startswith("Theo")
    assert items[1]["link"] == f"http://testserver/posts/{post.slug}/comments/{first.slug}/"
    if kind == "atom":
        assert [i["author"] for i in items] == ["Theo", "Maya"]


def test_an_edited_comment_is_updated_in_the_atom_feed(client, site, make_comment):
    """An edit shows in the comment feed: the entry's <updated> is the edit's time and
    its text the new one (feed readers fetch entries again when <updated> moves)."""
    from comments.posting import services
    from comments.records import Viewer

    post = site["new"]
    comment = make_comment(post, text="Teh first version", author=CommentAuthor(id=None, name="Maya"))
    [before] = atom_entries(client.get(f"/feeds/posts/{post.slug}/comments/atom/"))
    edited = services.edit_comment(post=post, comment=comment, viewer=Viewer(own=frozenset({comment.id})),
                                   text="The second version", now=comment.posted + timedelta(minutes=5))
    [after] = atom_entries(client.get(f"/feeds/posts/{post.slug}/comments/atom/"))
    assert datetime.fromisoformat(after["updated"]) == edited.edited
    assert after["updated"] != before["updated"] and "second version" in after["content"]


@pytest.mark.parametrize("which", ["draft", "scheduled"])
def test_drafts_and_scheduled_posts_have_no_comment_feed(client, site, which):
    """A post readers cannot see has no feed either."""
    assert client.get(f"/feeds/posts/{site[which].slug}/comments/rss/").status_code == 404


def test_pages_advertise_their_feeds(client, site):
    """The home page links the latest posts feed; a post page its comments feed."""
    assert b'href="/feeds/latest/atom/"' in client.get("/").content
    post_page = client.get(f"/posts/{site['new'].slug}/").content.decode()
    assert f'href="/feeds/posts/{site["new"].slug}/comments/atom/"' in post_page


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_a_comments_votes_show_in_the_comment_feeds_once_readers_voted(client, site, make_comment, kind):
    """A comment readers voted on carries its up and down votes in the feed; one
    without votes carries no votes line."""
    from comments.votes import collection as votes

    post = site["new"]
    voted = make_comment(post, text="Voted on", author=CommentAuthor(id=None, name="Maya"))
    make_comment(post, text="Not voted on", author=CommentAuthor(id=None, name="Theo"))
    for voter, vote in (("reader-1", "up"), ("reader-2", "up"), ("reader-3", "down")):
        votes.cast(comment=voted, voter=voter, vote=vote)
    response = client.get(f"/feeds/posts/{post.slug}/comments/{kind}/")
    items = rss_items(response) if kind == "rss" else atom_entries(response)
    text = {i["title"].split(",")[0]: i.get("description") or i.get("content") for i in items}
    assert "Readers' votes: 2 up, 1 down" in html.unescape(text["Maya"])
    assert "votes" not in text["Theo"]
