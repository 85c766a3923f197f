"""Following a thread without leaving the page (js/follow.js), in Chromium under the
site's Content-Security-Policy: a stranger's "Follow this thread" opens the address
field under the comment, a bad address is refused there with the typed address kept,
and a good one says a confirmation mail was sent; a member's follow toggles in place."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from comments.records import CommentAuthor

MEMBER = {"email": "fern.follower@example.com", "password": "a long enough passphrase 38", "name": "Fern Follower"}


def test_following_a_thread_happens_in_place(open_page, post_by, make_comment, new_reader, site):
    post = post_by(title="Threads to follow", slug=f"threads-to-follow-{uuid.uuid4().hex[:8]}")
    make_comment(post, text="Follow me.", author=CommentAuthor(id=None, name="Ada", email=""))
    page = open_page(csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/posts/{post.slug}/")
    address = page.url
    comment = page.locator("article.comment", has_text="Follow me.")
    comment.get_by_role("link", name="Follow this thread").click()
    form = page.locator("form.inline-follow")
    field = form.get_by_label("E-mail address")
    expect(field).to_be_focused()
    field.fill("ada@")
    form.get_by_role("button", name="Follow this thread").click()
    expect(form.locator(".field-error")).to_contain_text("Enter a whole e-mail address")
    expect(form.get_by_label("E-mail address")).to_have_value("ada@")
    form.get_by_label("E-mail address").fill("ada@example.com")
    form.get_by_role("button", name="Follow this thread").click()
    expect(page.locator(".follow-said")).to_contain_text("we sent a link to that address")
    expect(form).to_have_count(0)
    assert page.url == address

    new_reader(site, **MEMBER)
    member = open_page(csp=True)
    member.goto(f"/accounts/login/?next=/posts/{post.slug}/")
    member.get_by_label("E-mail address or username").fill(MEMBER["email"])
    member.get_by_label("Password").fill(MEMBER["password"])
    member.get_by_role("button", name="Sign in", exact=True).click()
    member.wait_for_url(f"**/posts/{post.slug}/")
    actions = member.locator("article.comment", has_text="Follow me.").locator(".comment-actions")
    actions.get_by_role("link", name="Follow this thread").click()
    expect(member.locator(".follow-said")).to_contain_text("You follow this thread")
    stop = actions.get_by_role("link", name="Stop following this thread")
    expect(stop).to_be_focused()
    stop.click()
    expect(member.locator(".follow-said")).to_contain_text("You no longer follow this thread.")
    expect(actions.get_by_role("link", name="Follow this thread")).to_be_visible()
    assert member.url.endswith(f"/posts/{post.slug}/")
    assert not errors, errors
