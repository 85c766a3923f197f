"""The comments app's stylesheet and scripts (comments/static/comments/): the static
files finders find them; `{% comments_assets %}` links them once a request; the
section, the form tag and the app's pages link them where the page has not yet; the
site's layout links them in its <head>, and nowhere else."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.template import Context, Template
from django.templatetags.static import static
from django.test import RequestFactory

from comments.host import get_host
from comments.templatetags.comments import SCRIPTS, STYLESHEET
from tests.page_reading import discussion_url, post_url

ASSETS = (STYLESHEET, *SCRIPTS)


def links(html: str) -> list[str]:
    """The app's static files the page links, in order, each time it links one."""
    urls = {static(name): name for name in ASSETS}
    found = re.findall(r'<link rel="stylesheet" href="([^"]+)">|<script src="([^"]+)" defer></script>', html)
    return [urls[href or src] for href, src in found if (href or src) in urls]


def _request(path: str):
    request = RequestFactory().get(path)
    request.user = AnonymousUser()
    request.session = {}
    return request


def render(source: str, post, request=None) -> str:
    request = request or _request(post_url(post))
    return Template("{% load comments %}" + source).render(Context({"post": post, "request": request}))


def test_the_finders_find_the_stylesheet_and_every_script_in_the_app():
    for name in ASSETS:
        found = finders.find(name)
        assert found and found.replace("\\", "/").endswith(f"comments/static/{name}"), (name, found)


def test_comments_assets_links_them_once_a_request(make_post):
    post = make_post()
    request = _request(post_url(post))
    assert links(render("{% comments_assets %}{% comments_assets %}", post, request)) == list(ASSETS)
    assert links(render("{% comments_assets %}", post, request)) == []  # later in the same request
    assert links(render("{% comments_assets %}", post)) == list(ASSETS)  # another request


def test_the_section_links_them_where_the_page_did_not(make_post):
    post = get_host().get(make_post().id)
    alone = render("{% comment_section post %}", post)
    assert links(alone) == list(ASSETS)
    assert alone.index(static(STYLESHEET)) < alone.index('<section id="comments"')
    linked_first = render("<head>{% comments_assets %}</head>{% comment_section post %}", post)
    assert links(linked_first) == list(ASSETS) and links(linked_first.split("</head>")[1]) == []


def test_the_form_tag_links_them_where_the_page_did_not(make_post):
    post = make_post()
    assert links(render('{% comment_form post heading="Say it" %}', post)) == list(ASSETS)
    twice = render("{% comments_assets %}{% comment_form post %}{% comment_form post %}", post)
    assert links(twice) == list(ASSETS)


def test_the_sites_pages_link_them_once_in_the_head(client, make_post, make_comment):
    post = make_post()
    comment = make_comment(post, text="Linked once")
    for url in ("/", post_url(post), discussion_url(post), f"{discussion_url(post)}{comment.slug}/"):
        html = client.get(url).content.decode()
        head, body = html.split("</head>")
        assert links(head) == list(ASSETS) and links(body) == [], url


@pytest.fixture
def bare_layout(settings, tmp_path):
    """A host's layout that neither has a <head> block nor links the app's files."""
    (tmp_path / "bare_base.html").write_text(
        "<!doctype html><title>{% block title %}{% endblock title %}</title>"
        '<main class="bare">{% block content %}{% endblock content %}</main>')
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    settings.COMMENTS_BASE_TEMPLATE = "bare_base.html"


def test_the_apps_pages_link_them_in_a_host_layout_that_does_not(client, make_post, make_comment,
                                                                   bare_layout):
    post = make_post()
    comment = make_comment(post, text="In a bare layout")
    permalink = f"{discussion_url(post)}{comment.slug}/"
    for url in (discussion_url(post), permalink, f"{permalink}flag/"):
        html = client.get(url).content.decode()
        assert 'class="bare"' in html and links(html) == list(ASSETS), url


def test_the_vote_form_names_where_votes_js_asks_for_the_readers_votes(client, make_post, make_comment):
    post = make_post()
    make_comment(post, text="Vote on me")
    html = client.get(post_url(post)).content.decode()
    assert f'data-votes="{discussion_url(post)}votes/"' in html
