"""The count under the comment textarea (comments/static/comments/js/text-count.js), in Chromium (also
under the site's Content-Security-Policy): it follows the typing, says how many characters
are too many in the page's language, and a paste longer than the limit is posted
whole, so the server's message comes back beside the whole text (the textarea has no
maxlength to cut it). Without JavaScript the note says the limit."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

LIMIT = 10_000  # COMMENTS_MAX_LENGTH's default (the browser tests' site keeps it)


@pytest.fixture
def post(post_by):
    return post_by(title="Counted words", slug=f"counted-words-{uuid.uuid4().hex[:8]}", content="Say it.")


def test_the_count_follows_the_text_and_a_long_paste_posts_whole(open_page, post, axe):
    page = open_page()  # axe is injected: the policy is bypassed (the next test keeps it)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/posts/{post.slug}/")
    form = page.locator("form#reply")
    text = form.get_by_role("textbox", name="Comment")
    count = form.locator(".text-count")
    expect(count).to_have_text("At most 10,000 characters.")
    text.fill("Two\nlines")  # The line break counts twice, as the form sends it (CR LF).
    expect(count).to_have_text("10 of 10,000 characters")
    expect(count).not_to_have_class("text-count over")
    long = "x" * (LIMIT - 1) + " and the tail"
    text.fill(long)
    expect(count.locator(".text-count-shown")).to_have_text("10,012 of 10,000 characters: 12 too many")
    expect(count).to_have_class("text-count over")
    expect(count.locator("[aria-live=polite]")).to_have_text("10,012 of 10,000 characters: 12 too many")
    form.get_by_label("Name").fill("Lee")
    form.get_by_role("button", name="Post comment").click()
    expect(form.locator(".field-error")).to_have_text(
        "Comments can be at most 10,000 characters; this one has 10,012.")
    expect(form.get_by_role("textbox", name="Comment")).to_have_value(long)
    # The form drawn again by the server is counted again.
    expect(form.locator(".text-count-shown")).to_have_text("10,012 of 10,000 characters: 12 too many")
    violations, described = axe(page)
    assert not violations, described
    assert not errors, errors


def test_the_count_uses_the_pages_language(open_page, post, site):
    page = open_page(csp=True)
    page.context.add_cookies([{"name": "django_language", "value": "vi", "url": site.url}])
    page.goto(f"/posts/{post.slug}/")
    form = page.locator("form#reply")
    expect(form.locator(".text-count")).to_have_text("Tối đa 10.000 ký tự.")
    form.locator("textarea[name=text]").fill("y" * 10_250)
    expect(form.locator(".text-count-shown")).to_have_text("10.250/10.000 ký tự: thừa 250 ký tự")


def test_without_javascript_the_note_says_the_limit(open_page, post):
    page = open_page(js=False)
    page.goto(f"/posts/{post.slug}/")
    expect(page.locator("form#reply .text-count")).to_have_text("At most 10,000 characters.")
    assert page.locator("form#reply textarea[name=text]").get_attribute("maxlength") is None
