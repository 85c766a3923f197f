"""Collapsible branches over HTTP: on a threaded page each comment whose replies follow
it wraps them in an open <details> whose summary counts every reply below it on the
page ("Hide 4 replies" / "Show 4 replies"), nested as the thread is; the flat view
draws none; the words come in the reader's language with its plural forms."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser

import pytest
from django.test import Client

from tests.page_reading import discussion_url, page, post_url

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.stores("documents")]

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class Branches(HTMLParser):
    """Each comment's slug with the branches (`data-branch` of the open <details>
    around it, outermost first), and each branch's `open` attribute."""

    def __init__(self, content: bytes):
        super().__init__(convert_charrefs=True)
        self.inside: dict[str, list[str]] = {}
        self.opened: dict[str, bool] = {}
        self._stack: list[str] = []
        self.feed(content.decode())

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "details" and "comment-replies" in (a.get("class") or ""):
            self._stack.append(a["data-branch"])
            self.opened[a["data-branch"]] = "open" in a
        if tag == "article" and a.get("data-slug"):
            self.inside[a["data-slug"]] = list(self._stack)

    def handle_endtag(self, tag):
        if tag == "details" and self._stack:
            self._stack.pop()


def thread(make_post, make_comment):
    """A root with two replies, the first with two of its own; a second root alone."""
    post = make_post()
    at = iter(BASE + timedelta(minutes=n) for n in range(10))
    root = make_comment(post, at=next(at))
    first = make_comment(post, parent_slug=root.slug, at=next(at))
    deep = [make_comment(post, parent_slug=first.slug, at=next(at)) for _ in range(2)]
    second = make_comment(post, parent_slug=root.slug, at=next(at))
    alone = make_comment(post, at=next(at))
    return post, root, first, deep, second, alone


def test_a_threaded_page_nests_each_comments_replies_in_a_details_that_counts_them(
    client, make_post, make_comment,
):
    post, root, first, deep, second, alone = thread(make_post, make_comment)
    response = client.get(post_url(post))
    found = Branches(response.content)
    assert found.inside == {
        root.slug: [], first.slug: [root.slug], deep[0].slug: [root.slug, first.slug],
        deep[1].slug: [root.slug, first.slug], second.slug: [root.slug], alone.slug: [],
    }
    assert found.opened == {root.slug: True, first.slug: True}
    shown = page(response)
    assert shown.text_of("when-open") == ["Hide 4 replies", "Hide 2 replies"]
    assert shown.text_of("when-closed") == ["Show 4 replies", "Show 2 replies"]
    assert shown.slugs == [root.slug, first.slug, *(c.slug for c in deep), second.slug, alone.slug]
    # Oldest first draws no threads: nothing to collapse.
    flat = client.get(discussion_url(post) + "?view=chronological").content
    assert Branches(flat).opened == {} and b"replies-toggle" not in flat


def test_the_summary_speaks_the_readers_language_with_its_plural_forms(make_post, make_comment):
    post = make_post()
    root = make_comment(post, at=BASE)
    reply = make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    make_comment(post, parent_slug=reply.slug, at=BASE + timedelta(minutes=2))
    shown = page(Client(HTTP_ACCEPT_LANGUAGE="hi").get(post_url(post)))
    assert shown.text_of("when-open") == ["2 जवाब छिपाएँ", "1 जवाब छिपाएँ"]
    assert shown.text_of("when-closed") == ["2 जवाब दिखाएँ", "1 जवाब दिखाएँ"]
    english = page(Client().get(post_url(post)))
    assert english.text_of("when-open") == ["Hide 2 replies", "Hide 1 reply"]
