"""With JavaScript (under the site's Content-Security-Policy): reply forms open under
the comment, and "Load more comments" appends the next page, without leaving the page.
The same links work without JavaScript (test_browser_reading.py)."""

import re

from playwright.sync_api import expect

from tests.browser.listing import expect_listed


def test_reply_form_opens_under_the_comment_and_posts_the_reply(open_page, discussion):
    target = discussion.top[2]
    page = open_page(csp=True)
    errors = []  # script errors, and anything the Content-Security-Policy refused
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None)
    page.goto(f"/posts/{discussion.post.slug}/comments/?view=chronological")
    address = page.url

    page.get_by_role("link", name=f"Reply to {target.author.name}").click()
    form = page.locator(f"#{target.anchor} + form.inline-reply")
    expect(form.get_by_role("textbox", name="Comment")).to_be_focused()
    assert page.url == address
    expect(form.get_by_role("heading")).to_have_text(f"Reply to {target.author.name}")

    form.get_by_role("textbox", name="Comment").fill("Answered in place.")
    form.get_by_role("textbox", name="Name").fill("Lee")
    form.get_by_role("button", name="Post comment").click()
    # Oldest first, a reply goes at the end, on the last page: a notice links to it.
    link = page.get_by_role("link", name="Your comment is on another page of the discussion: show it")
    expect(link).to_be_focused()
    expect(form).to_have_count(0)
    assert page.url == address
    link.click()
    expect(page).to_have_url(re.compile(r"/posts/[^/]+/(\?page=\d+)?#c-"))
    new = page.locator(f"#{page.url.split('#', 1)[1]}")
    expect(new).to_contain_text("Answered in place.")
    expect(new).to_be_focused()
    assert not errors, errors


def test_load_more_appends_the_next_page_and_moves_the_focus_to_it(open_page, discussion):
    top, chain = discussion.top, discussion.chain
    page = open_page(csp=True)
    page.goto(f"/posts/{discussion.post.slug}/")
    address = page.url
    first_page = [c.slug for c in [top[0], *chain[:5]]]
    expect_listed(page, first_page)

    page.get_by_role("button", name="Load more comments").click()
    # chain[5] and chain[6] continue on chain[4]'s page: not appended, and the link to
    # them is not repeated.
    second_page = [c.slug for c in top[1:5]]
    expect(page.locator(f"#{top[1].anchor}")).to_be_focused()
    expect_listed(page, first_page + second_page)
    expect(page.locator("#comments a.continue-thread")).to_have_count(1)
    assert page.url == address

    page.get_by_role("button", name="Load more comments").click()
    expect(page.locator(f"#{top[5].anchor}")).to_be_focused()
    expect_listed(page, first_page + second_page + [c.slug for c in top[5:]])
    expect(page.get_by_role("button", name="Load more comments")).to_have_count(0)
