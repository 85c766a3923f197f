"""sitemap.xml: valid XML listing the home page, published posts, and their authors and tags."""

import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone

from cms import authors, posts

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def sitemap(client) -> dict[str, str | None]:
    """Each <url>'s location and lastmod (fails on malformed XML)."""
    response = client.get("/sitemap.xml")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{NS}urlset"
    return {url.findtext(f"{NS}loc"): url.findtext(f"{NS}lastmod") for url in root.findall(f"{NS}url")}


def test_sitemap_lists_published_posts_authors_and_tags_only(client, make_user, make_post):
    """Drafts and scheduled posts, and their tags and authors, stay out."""
    ada = make_user("ada")
    chen = make_user("chen")
    when = datetime(2026, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    shown = make_post(author=authors.summary_for(ada), tags=["mongo"], slug="shown", published=when)
    make_post(
        author=authors.summary_for(chen), tags=["secret"], slug="draft", status=posts.DRAFT, published=None
    )
    make_post(
        author=authors.summary_for(chen),
        tags=["later"],
        slug="later",
        status=posts.SCHEDULED,
        published=datetime.now(timezone.utc) + timedelta(days=1),
    )
    urls = sitemap(client)
    assert set(urls) == {
        "http://testserver/",
        f"http://testserver/posts/{shown.slug}/",
        "http://testserver/authors/ada/",
        "http://testserver/tags/mongo/",
    }
    assert urls[f"http://testserver/posts/{shown.slug}/"] == "2026-02-03"


def test_an_edited_posts_lastmod_is_its_last_save(client, make_post):
    """lastmod follows the latest edit, not the first publication."""
    post = make_post(published=datetime(2026, 1, 1, tzinfo=timezone.utc))
    posts.update_post(
        post_id=post.id,
        revision=post.revision,
        title="Edited",
        slug=post.slug,
        content="",
        tags=(),
        status=posts.PUBLISHED,
        published=post.published,
        now=datetime(2026, 3, 4, tzinfo=timezone.utc),
    )
    assert sitemap(client)[f"http://testserver/posts/{post.slug}/"] == "2026-03-04"


def test_an_empty_site_has_a_valid_sitemap_with_the_home_page(client):
    """No posts: just the home page."""
    assert list(sitemap(client)) == ["http://testserver/"]
