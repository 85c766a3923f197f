"""How pages go out: text compressed (pictures not, and their ETags stay strong),
and the documented nginx block compresses too; comment and search pages have a meta
description; `<time datetime>` values are valid HTML; the vote form has a real action."""

import gzip
import re
from html.parser import HTMLParser
from pathlib import Path

from django.conf import settings
from django.test import Client

from media import services
from tests.pictures import picture

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
DEPLOY = Path(settings.BASE_DIR) / "docs" / "deploy.md"
# HTML's valid global date and time string, as the site writes it: to the second, in UTC.
HTML_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.descriptions, self.datetimes, self.forms = [], [], {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and attrs.get("name") == "description":
            self.descriptions.append(attrs.get("content"))
        elif tag == "time":
            self.datetimes.append(attrs.get("datetime"))
        elif tag == "form" and attrs.get("id"):
            self.forms[attrs["id"]] = attrs


def read(url: str, client: Client | None = None) -> _Page:
    response = (client or Client()).get(url)
    assert response.status_code == 200, url
    page = _Page()
    page.feed(response.content.decode())
    return page


def test_pages_feeds_and_json_go_out_gzipped_to_a_browser_that_takes_it(make_post, make_comment):
    post = make_post(slug="harbour", content="Words. " * 200)
    make_comment(post, text="A first comment.")
    client = Client()
    for url in ("/", "/posts/harbour/", "/posts/harbour/comments/", "/feeds/latest/rss/", "/api/v1/openapi.json"):
        response = client.get(url, **GZIP)
        assert response.status_code == 200, url
        assert response["Content-Encoding"] == "gzip", url
        assert "Accept-Encoding" in response["Vary"], url
        assert len(gzip.decompress(response.content)) > len(response.content), url
    plain = client.get("/posts/harbour/")
    assert not plain.has_header("Content-Encoding") and plain.content.startswith(b"<!doctype html>")


def test_pictures_are_not_gzipped_and_keep_their_strong_etag():
    image = services.upload_image(data=picture(700, 500), name="wall.jpg", alt="A wall", decorative=False,
                                  uploaded_by="ada")
    client = Client()
    served = client.get(f"/media/{image.key}/640.webp", **GZIP)
    assert not served.has_header("Content-Encoding") and served.content.startswith(b"RIFF")
    assert served["ETag"] == f'"{image.key}-640-webp"'
    again = client.get(f"/media/{image.key}/640.webp", HTTP_IF_NONE_MATCH=served["ETag"], **GZIP)
    assert again.status_code == 304


def test_a_comment_poll_answers_304_to_the_etag_it_sent_gzipped(make_post):
    """In Hindi the answer is long enough to be compressed, and its ETag made weak."""
    make_post(slug="harbour")
    client = Client(HTTP_ACCEPT_LANGUAGE="hi")
    first = client.get("/posts/harbour/comments/latest/?seen=0", **GZIP)
    assert first["Content-Encoding"] == "gzip" and first["ETag"].startswith('W/"')
    again = client.get("/posts/harbour/comments/latest/?seen=0", HTTP_IF_NONE_MATCH=first["ETag"], **GZIP)
    assert again.status_code == 304


def test_the_documented_nginx_block_compresses_text():
    block = re.search(r"```nginx\n(.*?)```", DEPLOY.read_text(), re.S).group(1)
    assert re.search(r"^\s*gzip on;", block, re.M)
    assert re.search(r"^\s*gzip_types [^;]*application/json", block, re.M)
    assert re.search(r"^\s*gzip_proxied any;", block, re.M)


def test_comment_views_and_search_pages_have_a_meta_description(make_post, make_comment):
    post = make_post(title="Harbour walk", slug="harbour")
    comment = make_comment(post, text="The **tide** was out & 1 < 2 boats lay in the mud. " * 8)
    for view in ("", "?view=newest", "?view=chronological", "?view=best", "?view=top"):
        (description,) = read(f"/posts/harbour/comments/{view}").descriptions
        assert description == "Readers’ comments on “Harbour walk”, on Slugline.", view
    (description,) = read(f"/posts/harbour/comments/{comment.slug}/").descriptions
    assert description.startswith(f"{comment.author.name} on “Harbour walk”: The tide was out & 1 < 2 boats lay")
    assert len(description) < 220 and description.endswith("…")
    assert read("/search/").descriptions == ["Search the posts published on Slugline."]
    assert read("/search/?q=harbour").descriptions == ["Posts on Slugline that contain “harbour”."]


def test_every_time_element_carries_a_valid_html_datetime(make_post, make_comment, make_user):
    post = make_post(slug="harbour")
    comment = make_comment(post, text="First.")
    make_comment(post, text="A reply.", parent_slug=comment.slug)
    editor = Client()
    editor.force_login(make_user("bruno", role="editor"))
    pages = [("/", None), ("/posts/harbour/", None), ("/posts/harbour/comments/", None),
             (f"/posts/harbour/comments/{comment.slug}/", None), ("/dashboard/", editor),
             ("/dashboard/moderation/?tab=recent", editor)]
    for url, client in pages:
        found = read(url, client).datetimes
        assert found, url
        assert all(HTML_DATETIME.match(value or "") for value in found), (url, found)


def test_the_vote_form_posts_to_a_real_address(make_post, make_comment):
    post = make_post(slug="harbour")
    comment = make_comment(post, text="First.")
    for url in ("/posts/harbour/", f"/posts/harbour/comments/{comment.slug}/"):
        action = read(url).forms["vote-form"].get("action")
        assert action == "/posts/harbour/comments/votes/", url
