"""A reader's account comments as a member, in Chromium against the gunicorn site: the
form asks for no name or address, and the comment is drawn with the member's initials
(decorative, the name beside them) and no request to any other site."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

MEMBER = {"email": "mia.member@example.com", "password": "a long enough passphrase 7", "name": "Mia Okonkwo"}


@pytest.fixture(scope="module")
def member(new_reader, site) -> int:
    """A reader's account as sign-up and verification leave it, in the site's database."""
    return new_reader(site, **MEMBER)


def test_a_members_form_has_no_name_or_email_and_their_comment_shows_initials(open_page, post_by, member, site):
    post = post_by()
    page = open_page(js=True, csp=True)
    elsewhere: list[str] = []
    page.on("request", lambda r: elsewhere.append(r.url) if urlsplit(r.url).netloc != urlsplit(site.url).netloc
            and not r.url.startswith("data:") else None)
    page.goto(f"/accounts/login/?next=/posts/{post.slug}/")
    page.get_by_label("E-mail address or username").fill(MEMBER["email"])
    page.get_by_label("Password").fill(MEMBER["password"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"**/posts/{post.slug}/")
    form = page.locator("form#reply")
    expect(form.locator("textarea[name=text]")).to_be_visible()
    assert form.locator("input[name=name], input[name=email]").count() == 0
    expect(form.locator(".posting-as")).to_have_text(f"Posting as {MEMBER['name']}.")
    form.locator("textarea[name=text]").fill("Signed in and commenting.")
    form.get_by_role("button", name="Post comment").click()
    comment = page.locator("article.comment", has_text="Signed in and commenting.")
    expect(comment).to_be_visible()
    avatar = comment.locator(".avatar")
    expect(avatar).to_have_text("MO")
    expect(avatar).to_have_attribute("aria-hidden", "true")
    expect(avatar).to_have_class(f"avatar avatar-{member % 8}")
    expect(comment.locator(".comment-author")).to_have_text(MEMBER["name"])
    assert avatar.evaluate("e => getComputedStyle(e).borderRadius") == "50%"
    assert elsewhere == []
