"""The reader's blog pages through the test client."""

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


def test_post_page_costs_three_commands(client, make_post, make_comment, commands):
    """The post, its comment count and its first page of comments: three commands."""
    post = make_post()
    for _ in range(4):
        make_comment(post)
    commands.reset()
    assert client.get(f"/posts/{post.slug}/").status_code == 200
    assert sorted(commands.names) == ["aggregate", "find", "find"]


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
