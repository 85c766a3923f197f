"""The reader's blog pages through the test client."""

import re
from datetime import datetime, timedelta, timezone

import pytest

from cms import posts


def test_home_lists_published_posts_with_comment_summaries(client, make_post, make_comment):
    """The home page shows each post's comment count and latest comments."""
    post = make_post(title="Hello Slugline")
    make_comment(post, text="First!")
    make_comment(post, text="Second thoughts")
    make_post(title="Secret draft", status=posts.DRAFT, published=None)
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Hello Slugline" in html and "Secret draft" not in html
    assert "2 comments" in html
    assert "Second thoughts" in html and "First!" in html


def test_home_costs_two_commands_whatever_the_number_of_posts(client, make_post, make_comment, commands):
    """One count and one find, however many posts and comments are listed."""
    for _ in range(6):
        make_comment(make_post())
    commands.reset()
    client.get("/")
    assert sorted(commands.names) == ["aggregate", "find"]


def test_post_page_costs_three_commands(client, make_post, make_comment, make_user, commands, settings):
    """Three for a reader: the post (which carries the comment count), its discussion's
    state (the counts pages need, and a copy of its branch rules) and its first page of
    comments; for an editor, who also sees pending comments, the post, the page and
    their count, (a member: a voter) their votes on the discussion, drawn pressed
    without JavaScript, and the discussion's branch rules (an editor's page reads no state)."""
    settings.COMMENTS_CACHE_SECONDS = 0
    post = make_post()
    for _ in range(4):
        make_comment(post)
    commands.reset()
    assert client.get(f"/posts/{post.slug}/").status_code == 200
    assert sorted(commands.names) == ["find", "find", "find"]
    client.force_login(make_user("eve", role="editor"))
    commands.reset()
    assert client.get(f"/posts/{post.slug}/").status_code == 200
    assert sorted(commands.names) == ["aggregate", "find", "find", "find", "find"]


def test_a_cut_threads_replies_on_the_page_are_counted_without_a_command(
    client, make_post, make_comment, commands, settings,
):
    """"Continue this thread" says how many replies wait: counted among the page's own
    comments when they all are on it (still three commands), by the store (one aggregate
    more) when they run past the page's end; the same number either way."""
    settings.COMMENTS_CACHE_SECONDS = 0
    settings.COMMENTS_INDENT_LIMIT = 1
    post = make_post()
    start = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    root = make_comment(post, at=start)
    reply = make_comment(post, parent_slug=root.slug, at=start + timedelta(minutes=1))
    for minute in (2, 3):
        make_comment(post, parent_slug=reply.slug, at=start + timedelta(minutes=minute))
    commands.reset()
    body = client.get(f"/posts/{post.slug}/").content.decode()
    assert sorted(commands.names) == ["find", "find", "find"]
    assert "Continue this thread (2 replies)" in body
    settings.COMMENTS_PER_PAGE = 3  # the second reply below the limit opens page 2
    commands.reset()
    body = client.get(f"/posts/{post.slug}/").content.decode()
    assert sorted(commands.names) == ["aggregate", "find", "find", "find"]
    assert "Continue this thread (2 replies)" in body


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.5", '{"$ne": null}'])
def test_a_malformed_page_number_is_a_400_in_the_site_layout(client, page):
    """Anything but 1, 2, 3 ... answers 400 with the site's own page."""
    response = client.get("/", {"page": page})
    assert response.status_code == 400
    assert b"Slugline" in response.content and b"whole number" in response.content


def test_a_page_past_the_end_is_a_404(client, make_post):
    """Page 2 of one page of posts does not exist."""
    make_post()
    assert client.get("/", {"page": "2"}).status_code == 404


def test_home_paginates(client, make_post, settings):
    """POSTS_PER_PAGE posts per page, with links between pages."""
    settings.POSTS_PER_PAGE = 2
    now = datetime.now(timezone.utc)
    for h in range(3):
        make_post(title=f"Numbered {h}", published=now - timedelta(hours=h + 1))
    first = client.get("/").content.decode()
    second = client.get("/", {"page": "2"}).content.decode()
    assert "Numbered 0" in first and "Numbered 2" not in first
    assert "Numbered 2" in second and 'rel="prev"' in second and 'rel="next"' in first


def listed_slugs(html: str) -> list[str]:
    """The slugs of the posts a list page shows, in its order (their headings' links)."""
    return re.findall(r'<h[23] id="post-[0-9a-f]+"[^>]*><a href="/posts/([^/"]+)/">', html)


@pytest.mark.parametrize("total", [14, 23])
def test_every_post_is_on_exactly_one_home_page_in_order(client, make_post, settings, total):
    """With a total that is not a multiple of the page size, the pages together list
    each published post once, newest first (the last, short page was fetched as if it
    were a full-sized page of its own size: posts repeated and others on no page)."""
    settings.POSTS_PER_PAGE = 10
    now = datetime.now(timezone.utc)
    newest_first = [
        make_post(slug=f"paged-{n}", published=now - timedelta(minutes=n + 1)).slug for n in range(total)
    ]
    pages = -(-total // 10)
    listed = []
    for number in range(1, pages + 1):
        response = client.get("/", {"page": str(number)})
        assert response.status_code == 200
        listed += listed_slugs(response.content.decode())
    assert listed == newest_first
    assert client.get("/", {"page": str(pages + 1)}).status_code == 404


def test_post_page_shows_the_post(client, make_post):
    """A published post's page shows its title and rendered body."""
    post = make_post(title="A title", content="Some *emphasis*.")
    response = client.get(f"/posts/{post.slug}/")
    assert response.status_code == 200
    assert b"A title" in response.content and b"<em>emphasis</em>" in response.content


@pytest.mark.parametrize("slug", ["no-such-post", "draft"])
def test_unknown_and_draft_posts_are_404_in_the_site_layout(client, make_post, slug):
    """Readers cannot reach a post that does not exist or is not published."""
    make_post(slug="draft", status=posts.DRAFT, published=None)
    response = client.get(f"/posts/{slug}/")
    assert response.status_code == 404
    assert b'class="site-header"' in response.content
    assert b"There is no published post at this address." in response.content


def test_a_url_no_route_matches_is_a_friendly_404(client):
    """Resolver misses show a sentence, not an exception's class name."""
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Resolver404" not in response.content
    assert b"There is nothing at this address." in response.content


# --- Authors, tags and search (the publishing issue) -----------------------------------

from html import escape  # noqa: E402

from django.test import Client  # noqa: E402

from cms import authors  # noqa: E402
from cms.forms import SEARCH_TOO_LONG  # noqa: E402
from cms.views import NO_SUCH_AUTHOR, NO_SUCH_TAG  # noqa: E402
from comments import records
from comments.records import CommentAuthor  # noqa: E402
from comments.stores import get_store  # noqa: E402


@pytest.fixture
def ada(make_user):
    return make_user("ada", display_name="Ada Lindqvist")


def test_author_page_lists_published_posts_newest_first_with_latest_comments(
    client, ada, make_post, make_comment
):
    """The profile, then the author's published posts, each with its latest comments."""
    from cms.models import AuthorProfile

    AuthorProfile.objects.filter(user=ada).update(bio="Writes about databases.")
    now = datetime.now(timezone.utc)
    me = authors.summary_for(ada)
    older = make_post(author=me, title="Older post", created=now - timedelta(days=2))
    make_post(author=me, title="Newer post", created=now - timedelta(days=1))
    make_post(author=me, title="Secret draft", status=posts.DRAFT, published=None)
    make_post(author=me, title="Scheduled", status=posts.SCHEDULED, published=now + timedelta(days=1))
    make_post(title="Not Ada's", author=posts.AuthorSummary(id=ada.pk + 100, username="zed", name="Zed"))
    for n in range(4):
        make_comment(older, text=f"Comment number {n}")
    html = client.get("/authors/ada/").content.decode()
    assert "Ada Lindqvist" in html and "Writes about databases." in html
    assert html.index("Newer post") < html.index("Older post")
    assert "Secret draft" not in html and "Scheduled" not in html and "Not Ada" not in html
    # The three latest of four comments, newest first.
    assert "Comment number 0" not in html
    assert html.index("Comment number 3") < html.index("Comment number 2") < html.index("Comment number 1")


def test_author_page_costs_five_commands(client, ada, make_post, make_comment, commands):
    """Count, posts and one $in query for all their latest comments, however many posts;
    then the comments the author wrote and one $in query for their posts."""
    for _ in range(5):
        post = make_post(author=authors.summary_for(ada))
        for _ in range(4):
            make_comment(post)
        make_comment(post, author=CommentAuthor(id=ada.pk, name="Ada Lindqvist"))
    commands.reset()
    assert client.get("/authors/ada/").status_code == 200
    assert sorted(commands.names) == ["aggregate", "find", "find", "find", "find"]


@pytest.mark.usefixtures("each_store")
def test_author_page_lists_the_comments_the_author_wrote(client, ada, make_post, make_comment, make_user):
    """Ada's own comments, newest first, on anyone's published posts, each linking to its
    permalink; not the comments others wrote on her posts, not her held or removed ones,
    and not those on a post readers cannot see."""
    chen = make_user("chen", role="author")
    hers, theirs = make_post(author=authors.summary_for(ada)), make_post(author=authors.summary_for(chen))
    draft = make_post(author=authors.summary_for(chen), status=posts.DRAFT)
    ada_says = CommentAuthor(id=ada.pk, name="Ada Lindqvist")
    make_comment(hers, text="A reader on Ada's post")
    first = make_comment(theirs, author=ada_says, text="Ada on Chen's post",
                         at=datetime.now(timezone.utc) - timedelta(hours=3))
    second = make_comment(hers, author=ada_says, text="Ada answering on her own post",
                          at=datetime.now(timezone.utc) - timedelta(hours=1))
    make_comment(draft, author=ada_says, text="Ada on a draft")
    held = make_comment(theirs, author=ada_says, text="Ada, held back")
    get_store().set_status(ids=[held.id], status=records.PENDING)
    html = client.get("/authors/ada/").content.decode()
    section = html[html.index('id="author-comments-title"'):]
    assert section.index("Ada answering on her own post") < section.index("Ada on Chen&#x27;s post")
    for text in ("A reader on Ada", "Ada on a draft", "Ada, held back"):
        assert text not in section
    for post, comment in ((hers, second), (theirs, first)):
        assert f'href="/posts/{post.slug}/comments/{comment.slug}/"' in section
    assert "hour" in section  # their times


def test_author_page_without_comments_of_theirs_has_no_such_section(client, ada, make_post):
    make_post(author=authors.summary_for(ada))
    assert b"author-comments-title" not in client.get("/authors/ada/").content


def test_author_page_paginates(client, ada, make_post, settings):
    """POSTS_PER_PAGE posts a page; past the end is a 404."""
    settings.POSTS_PER_PAGE = 2
    for n in range(3):
        make_post(author=authors.summary_for(ada), title=f"Numbered {n}")
    assert 'rel="next"' in client.get("/authors/ada/").content.decode()
    assert client.get("/authors/ada/", {"page": "2"}).status_code == 200
    assert client.get("/authors/ada/", {"page": "3"}).status_code == 404


def test_an_author_without_published_posts_has_a_page(client, ada):
    """A known author with nothing published yet: 200 and a sentence."""
    response = client.get("/authors/ada/")
    assert response.status_code == 200 and b"has not published a post yet" in response.content


@pytest.mark.parametrize("username", ["nobody", "reader"])
def test_unknown_authors_and_readers_are_404(client, make_user, username):
    """Only authors have pages; a reader's account is not one."""
    make_user("reader", role="reader")
    response = client.get(f"/authors/{username}/")
    assert response.status_code == 404 and escape(NO_SUCH_AUTHOR) in response.content.decode()


def test_an_old_username_redirects_permanently(client, ada):
    """After a rename, /authors/<old>/ is a 301 to the new address."""
    authors.update_author(user=ada, username="ada_l", display_name="Ada", bio="", avatar_url="")
    response = client.get("/authors/ada/")
    assert response.status_code == 301 and response["Location"] == "/authors/ada_l/"


def test_tag_page_lists_published_posts_with_the_tag(client, make_post):
    """Newest first; drafts and other tags left out; the byline links the tags."""
    now = datetime.now(timezone.utc)
    make_post(title="First mongo", tags=["mongo"], published=now - timedelta(hours=2))
    make_post(title="Second mongo", tags=["mongo", "web"], published=now - timedelta(hours=1))
    make_post(title="Draft mongo", tags=["mongo"], status=posts.DRAFT, published=None)
    make_post(title="Only web", tags=["web"])
    html = client.get("/tags/mongo/").content.decode()
    assert html.index("Second mongo") < html.index("First mongo")
    assert "Draft mongo" not in html and "Only web" not in html
    assert 'href="/tags/web/"' in html and 'href="/feeds/tags/mongo/atom/"' in html


def test_tags_with_spaces_and_symbols_have_pages(client, make_post):
    """A tag is any text; its address is percent-encoded."""
    make_post(title="Spaced", tags=["threaded comments"])
    make_post(title="Sharp", tags=["c#"])
    assert b"Spaced" in client.get("/tags/threaded%20comments/").content
    assert b"Sharp" in client.get("/tags/c%23/").content
    assert 'href="/tags/threaded%20comments/"' in client.get("/").content.decode()


@pytest.mark.parametrize("tag", ["unknown", "secret"])
def test_unknown_tags_and_tags_of_drafts_only_are_404(client, make_post, tag):
    """A tag no published post has: the site's 404."""
    make_post(tags=["secret"], status=posts.DRAFT, published=None)
    response = client.get(f"/tags/{tag}/")
    assert response.status_code == 404 and escape(NO_SUCH_TAG) in response.content.decode()


def test_search_finds_published_posts_by_title_or_text(client, make_post):
    """Any case; drafts and scheduled posts never show."""
    make_post(title="All about sharding")
    make_post(title="Other", content="We shard our data.")
    make_post(title="Draft sharding", status=posts.DRAFT, published=None)
    make_post(
        title="Future sharding",
        status=posts.SCHEDULED,
        published=datetime.now(timezone.utc) + timedelta(days=1),
    )
    html = client.get("/search/", {"q": "SHARD"}).content.decode()
    assert "All about sharding" in html and "Other" in html
    assert "Draft sharding" not in html and "Future sharding" not in html
    assert "2 posts found" in html


@pytest.mark.parametrize("query", [".*", "(", "a|b", "[", "\\", "$where", '{"$ne": null}'])
def test_search_takes_the_query_literally(client, make_post, query):
    """Regex and operator syntax match only itself, and never errors."""
    make_post(title="Plain title")
    make_post(title=f"Has {query} inside")
    response = client.get("/search/", {"q": query})
    html = response.content.decode()
    assert response.status_code == 200 and "Plain title" not in html and "1 post found" in html


def test_a_search_with_no_results_says_so_with_its_count(client, make_post):
    """An empty page of results is still an answer: "0 posts found." and a message
    naming the words, in the reader's language too."""
    make_post(title="Plain title")
    html = client.get("/search/", {"q": "zzzqqq"}).content.decode()
    assert "0 posts found." in html and "No published post mentions “zzzqqq”." in html
    client.cookies["django_language"] = "vi"
    html = client.get("/search/", {"q": "zzzqqq"}).content.decode()
    assert "Không có bài viết đã xuất bản nào nhắc đến “zzzqqq”." in html


def test_search_without_a_query_shows_the_form(client, make_post, commands):
    """No words, no results and no query."""
    make_post()
    commands.reset()
    response = client.get("/search/")
    assert response.status_code == 200 and b'type="search"' in response.content and commands.count == 0


def test_an_over_long_search_is_a_form_error(client):
    """More than 100 characters: 400 with the message, nothing searched."""
    response = client.get("/search/", {"q": "x" * 101})
    assert response.status_code == 400
    message = SEARCH_TOO_LONG % {"limit_value": 100, "show_value": 101}
    assert escape(message) in response.content.decode()


def test_search_pages_keep_the_query(client, make_post, settings):
    """Next-page links carry q."""
    settings.POSTS_PER_PAGE = 1
    make_post(title="Match one")
    make_post(title="Match two")
    html = client.get("/search/", {"q": "match"}).content.decode()
    assert 'href="?q=match&amp;page=2"' in html


def test_readers_see_login_and_search_links_but_no_dashboard(make_post):
    """The header for anonymous readers."""
    html = Client().get("/").content.decode()
    assert 'href="/search/"' in html and 'href="/accounts/login/"' in html and "/dashboard/" not in html


def test_comment_names_on_author_pages_come_from_the_comments(client, ada, make_post, make_comment):
    """The author page shows each latest comment as the store has it."""
    post = make_post(author=authors.summary_for(ada))
    make_comment(post, author=CommentAuthor(id=None, name="Visitor"), text="Hello from a visitor")
    html = client.get("/authors/ada/").content.decode()
    assert "Visitor" in html and "Hello from a visitor" in html


# --- Summaries and the times of latest comments ----------------------------------------

PITCH = "A pitch written for lists."
BODY = "# Heading\n\nThe **opening** paragraph of a [long](https://x.test) post.\n\nThe second one."


def test_every_list_shows_each_posts_summary(client, ada, make_post):
    """Home, tag, author and search lists show the post's own excerpt, or else its first
    paragraph as plain text (no Markdown, no HTML, not the second paragraph)."""
    me = authors.summary_for(ada)
    make_post(title="Pitched match", excerpt=PITCH, content=BODY, author=me, tags=["t"])
    make_post(title="Plain match", content=BODY, author=me, tags=["t"])
    for url in ["/", "/tags/t/", "/authors/ada/", "/search/?q=match"]:
        html = client.get(url).content.decode()
        summaries = re.findall(r'<p class="post-excerpt"[^>]*>(.*?)</p>', html)
        assert sorted(summaries) == sorted([PITCH, "The opening paragraph of a long post."]), url
        assert "second one" not in html, url


def test_a_long_first_paragraph_is_cut_at_a_word_boundary(client, make_post):
    """The summary stops at a whole word, with an ellipsis, within its bound."""
    make_post(content=" ".join(["wordy"] * 200))
    summary = re.search(r'<p class="post-excerpt"[^>]*>(.*?)</p>', client.get("/").content.decode()).group(1)
    assert summary.endswith(posts.ELLIPSIS) and len(summary) <= posts.SUMMARY_LENGTH
    assert summary.removesuffix(posts.ELLIPSIS).split(" ") == ["wordy"] * summary.count("wordy")


def test_an_excerpt_is_text_not_markup(client, make_post):
    """What an author types as an excerpt is shown literally."""
    make_post(excerpt="<b>bold</b> & more")
    html = client.get("/").content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in html and "<b>bold</b>" not in html


def latest_times(html: str) -> list[tuple[str, str, str]]:
    """(datetime, title, text) of each <time> in the latest comments."""
    section = "".join(re.findall(r'<section class="latest-comments".*?</section>', html, flags=re.S))
    return re.findall(r'<time datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', section)


@pytest.mark.parametrize("url", ["/", "/authors/ada/"])
def test_latest_comments_say_when_they_were_posted(client, ada, make_post, make_comment, url):
    """Each latest comment has a <time> with its moment, a relative text and the full
    date in its title, newest first."""
    post = make_post(author=authors.summary_for(ada))
    now = datetime.now(timezone.utc)
    make_comment(post, text="Earlier", at=now - timedelta(days=3))
    make_comment(post, text="Just now", at=now - timedelta(minutes=5))
    times = latest_times(client.get(url).content.decode())
    assert len(times) == 2
    (recent_at, recent_title, recent_text), (earlier_at, earlier_title, earlier_text) = times
    assert datetime.fromisoformat(recent_at) > datetime.fromisoformat(earlier_at)
    assert abs(datetime.fromisoformat(recent_at) - (now - timedelta(minutes=5))) < timedelta(seconds=1)
    assert recent_text == "5\xa0minutes ago" and earlier_text == "3\xa0days ago"
    assert (now - timedelta(days=3)).strftime("%-d %B %Y") in earlier_title
