"""Library pictures in posts: Markdown that names one renders a responsive picture
(a figure with its caption when alone in its paragraph), the editor checks alt
text, the preview shows it, covers show on the post, on lists and in feeds, and
versions keep the references."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from cms import posts, sharing, versions
from dashboard import post_forms, services
from media import images, library, services as media_services

from tests.pictures import picture


def add_image(*, width=1800, height=1200, alt="Boats at dawn", decorative=False, caption="", color=(9, 99, 199)):
    return media_services.upload_image(
        data=picture(width, height, color=color), name=f"boats-{color}.jpg", alt=alt, decorative=decorative,
        caption=caption, uploaded_by="ada",
    )


@pytest.fixture
def editor_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor", display_name="Bruno Okafor"))
    return client


def post_form(**overrides) -> dict:
    return {"title": "Harbour", "slug": "", "content": "", "tags": "", "status": "published",
            "published": "", "action": "save", **overrides}


def test_a_library_picture_alone_in_its_paragraph_renders_as_a_responsive_figure():
    image = add_image()
    html = posts.create_post(
        title="T", slug="t", content=f'Before.\n\n![Two boats](/media/{image.key}/ "At dawn, <b>May</b>")\n',
        author=posts.AuthorSummary(id=1, username="ada", name="Ada"),
    ).content_html
    figure = re.search(r"<figure class=\"media-figure\"><picture>.*</picture><figcaption>(.*)</figcaption></figure>", html)
    assert figure and figure.group(1) == "At dawn, &lt;b&gt;May&lt;/b&gt;"
    assert f'<source type="image/webp" srcset="/media/{image.key}/320.webp 320w, /media/{image.key}/640.webp 640w, ' in html
    img = re.search(r"<img [^>]*>", html).group(0)
    for attribute in ('width="1600"', 'height="1067"', 'loading="lazy"', 'decoding="async"', 'alt="Two boats"',
                      'sizes="(max-width: 44rem) calc(100vw - 2rem), 42rem"', f'src="/media/{image.key}/1600.jpg"'):
        assert attribute in img
    assert "<p><figure" not in html


def test_an_inline_library_picture_is_a_picture_and_a_missing_one_its_alt_text():
    image = add_image()
    html = posts.create_post(
        title="T", slug="t", author=posts.AuthorSummary(id=1, username="ada", name="Ada"),
        content=f"Look ![boats](/media/{image.key}/) and ![gone <x>](/media/{'ab' * 16}/) here.",
    ).content_html
    assert html.startswith("<p>Look <picture>") and "<figure" not in html
    assert '<span class="media-missing">gone &lt;x&gt;</span>' in html


def test_a_decorative_picture_keeps_an_empty_alt():
    image = add_image(alt="", decorative=True)
    html = posts.create_post(title="T", slug="t", author=posts.AuthorSummary(id=1, username="ada", name="A"),
                             content=f"![](/media/{image.key}/)").content_html
    assert 'alt=""' in html


def test_the_editor_refuses_a_library_picture_without_alt_text_or_not_in_the_library(editor_client):
    image = add_image()
    response = editor_client.post("/dashboard/posts/new/", post_form(content=f"![](/media/{image.key}/)"))
    assert response.status_code == 400
    assert str(post_forms.IMAGE_ALT_REQUIRED % {"key": image.key}).split("![")[0] in response.content.decode().replace("&#x27;", "'")
    unknown = "cd" * 16
    response = editor_client.post("/dashboard/posts/new/", post_form(content=f"![x](/media/{unknown}/)"))
    assert response.status_code == 400 and f"/media/{unknown}/" in response.content.decode()
    assert posts.count_dashboard() == 0


def test_the_preview_shows_the_figure_and_the_picker_offers_the_markdown(editor_client):
    image = add_image(caption="At dawn")
    page = editor_client.get("/dashboard/posts/new/").content.decode()
    assert f'data-insert-markdown="![Boats at dawn](/media/{image.key}/ &quot;At dawn&quot;)"' in page
    response = editor_client.post("/dashboard/posts/new/", post_form(
        content=f'![Two boats](/media/{image.key}/ "At dawn")', action="preview"))
    assert '<figcaption>At dawn</figcaption>' in response.content.decode()
    assert posts.count_dashboard() == 0


def test_a_cover_shows_on_the_post_on_lists_and_in_feeds(editor_client):
    cover = add_image(alt="The harbour wall")
    response = editor_client.post("/dashboard/posts/new/", post_form(title="Harbour", cover=cover.key,
                                                                      content="Text.", tags="sea"))
    assert response.status_code == 303
    post = posts.get_by_slug("harbour")
    assert post.cover == cover.key
    page = Client().get("/posts/harbour/").content.decode()
    assert re.search(r'<figure class="post-cover"><picture>.*alt="The harbour wall"', page)
    assert 'fetchpriority="high"' in page
    for url in ("/", "/tags/sea/", "/authors/bruno/", "/search/?q=harbour"):
        listed = Client().get(url).content.decode()
        assert f'<div class="post-thumb"><picture><source type="image/webp" srcset="/media/{cover.key}/320.webp 320w' in listed, url
        assert 'sizes="10rem"' in listed
    feed = Client().get("/feeds/latest/rss/").content.decode()
    enclosure = re.search(r"<enclosure [^>]*>", feed).group(0)
    assert f'url="http://127.0.0.1:8000/media/{cover.key}/1024.jpg"' in enclosure
    assert 'type="image/jpeg"' in enclosure and re.search(r'length="[1-9][0-9]*"', enclosure)
    assert f'&lt;img src="http://127.0.0.1:8000/media/{cover.key}/1024.jpg"' in feed


def test_the_cover_must_be_a_library_picture(editor_client):
    response = editor_client.post("/dashboard/posts/new/", post_form(cover="ef" * 16))
    assert response.status_code == 400 and str(post_forms.NO_SUCH_COVER) in response.content.decode()


def test_restoring_a_version_restores_its_pictures(editor_client):
    first, second = add_image(color=(1, 1, 1)), add_image(color=(2, 2, 2))
    editor_client.post("/dashboard/posts/new/", post_form(cover=first.key, content=f"![One](/media/{first.key}/)"))
    post = posts.get_by_slug("harbour")
    edited = services.edit_post(post=post, revision=post.revision, editor="bruno", title=post.title, slug=post.slug,
                                content=f"![Two](/media/{second.key}/)", tags=(), status="published",
                                publish_at=post.published, excerpt="", cover=second.key)
    assert [p.slug for p in posts.using_media(key=first.key)] == []
    (version,) = versions.find_versions(post_id=post.id)
    assert version.cover == first.key
    restored = services.restore_version(post=edited, version=version, editor="bruno")
    assert restored.cover == first.key and f"/media/{first.key}/" in restored.content_html
    assert [p.slug for p in posts.using_media(key=first.key)] == ["harbour"]


class _Head(HTMLParser):
    def __init__(self):
        super().__init__()
        self.meta, self.links, self.scripts, self._in_ld = {}, {}, [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta":
            self.meta.setdefault(attrs.get("property") or attrs.get("name"), []).append(attrs.get("content"))
        elif tag == "link":
            self.links[attrs.get("rel")] = attrs.get("href")
        elif tag == "script" and attrs.get("type") == "application/ld+json":
            self._in_ld = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_ld = False if tag == "script" else self._in_ld

    def handle_data(self, data):
        if self._in_ld:
            self.scripts[-1] += data


def head_of(url: str) -> _Head:
    parser = _Head()
    parser.feed(Client().get(url).content.decode())
    return parser


def test_a_post_page_shares_well(make_post, make_comment):
    cover = add_image(alt="The harbour wall")
    post = make_post(title="Harbour </script><script>alert(1)</script>", slug="harbour", cover=cover.key,
                     excerpt="Walls & boats.", tags=("sea", "walks"), language="vi")
    make_comment(post, text="Lovely pictures & 1 < 2 <script>steal()</script>")
    head = head_of("/posts/harbour/")
    url = "http://127.0.0.1:8000/posts/harbour/"
    assert head.links["canonical"] == url
    assert head.meta["description"] == ["Walls & boats."]
    assert head.meta["og:type"] == ["article"] and head.meta["og:url"] == [url]
    assert head.meta["og:locale"] == ["vi_VN"]
    assert head.meta["og:image"] == [f"http://127.0.0.1:8000/media/{cover.key}/1600.jpg"]
    assert head.meta["og:image:width"] == ["1600"] and head.meta["og:image:alt"] == ["The harbour wall"]
    assert head.meta["article:tag"] == ["sea", "walks"]
    assert head.meta["article:author"] == ["http://127.0.0.1:8000/authors/ada/"]
    assert head.meta["twitter:card"] == ["summary_large_image"]
    (script,) = head.scripts
    assert "</script" not in script.lower() and "<" not in script
    data = json.loads(script)
    assert data["@type"] == "BlogPosting" and data["headline"] == post.title
    for required in ("headline", "image", "author", "datePublished", "dateModified", "inLanguage", "commentCount"):
        assert data[required], required
    assert data["inLanguage"] == "vi" and data["commentCount"] == 1
    assert data["comment"][0]["@type"] == "Comment" and data["comment"][0]["text"] == "Lovely pictures & 1 < 2"
    assert data["image"]["url"] == head.meta["og:image"][0]


def test_a_post_without_a_cover_shares_the_site_picture_as_a_small_card(make_post):
    make_post(slug="plain", content="First paragraph.\n\nSecond.")
    head = head_of("/posts/plain/")
    assert head.meta["twitter:card"] == ["summary"]
    assert head.meta["og:image"][0].startswith("http://127.0.0.1:8000/static/img/share")
    assert head.meta["og:image:width"] == ["1200"] and head.meta["description"] == ["First paragraph."]


def test_home_tag_and_author_pages_have_canonical_addresses_and_descriptions(make_post, make_user):
    make_user("ada", display_name="Ada Lindqvist")
    make_post(tags=("sea",))
    assert head_of("/").links["canonical"] == "http://127.0.0.1:8000/"
    assert head_of("/?page=1").links["canonical"] == "http://127.0.0.1:8000/"
    assert head_of("/").meta["description"] == [sharing.HOME_DESCRIPTION]
    assert head_of("/tags/sea/").links["canonical"] == "http://127.0.0.1:8000/tags/sea/"
    assert head_of("/tags/sea/").meta["description"] == ["Posts tagged “sea” on Slugline."]
    assert head_of("/authors/ada/").links["canonical"] == "http://127.0.0.1:8000/authors/ada/"
    assert head_of("/authors/ada/").meta["description"]
