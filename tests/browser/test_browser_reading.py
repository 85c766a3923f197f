"""A reader's journeys, with JavaScript on and off: views, cursor pages, permalinks,
"Continue this thread", replying, and a refused comment that keeps its text."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.listing import expect_listed

pytestmark = pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])


def slugs(comments) -> list[str]:
    return [c.slug for c in comments]


def test_reader_switches_views_and_pages_by_cursor_forward_and_back(open_page, discussion, js):
    top, chain = discussion.top, discussion.chain
    page = open_page(js=js)
    page.goto("/")
    summary = page.locator("article.post-summary", has_text=discussion.post.title)
    expect(summary.locator(".post-comments-count")).to_have_text("15 comments")
    summary.get_by_role("link", name=discussion.post.title).click()

    expect(page).to_have_url(re.compile(r"/posts/threads-all-the-way-down/$"))
    expect(page.locator("#comments-title")).to_have_text("15 comments")
    first_page = slugs([top[0], *chain[:5]])
    expect_listed(page, first_page)

    page.get_by_role("link", name="Oldest first").click()
    expect(page).to_have_url(re.compile(r"view=chronological"))
    expect_listed(page, slugs(top[:6]))

    page.get_by_role("link", name="Newest threads first").click()
    expect(page).to_have_url(re.compile(r"view=newest"))
    expect_listed(page, slugs(top[::-1][:6]))

    page.get_by_role("link", name="Threaded").click()
    expect_listed(page, first_page)

    page.locator("a[rel=next]").first.click()
    expect(page).to_have_url(re.compile(r"[?&]after="))
    # chain[5] and chain[6] fill their places below the indent limit, not drawn here:
    # the page opens with the link to where their thread continues.
    expect_listed(page, slugs(top[1:5]))
    expect(page.locator("#comments .comment-list > li.continued a")).to_have_attribute(
        "href", f"/posts/{discussion.post.slug}/comments/{chain[4].slug}/"
    )
    expect(page.locator("#comments .pagination [aria-current=page]")).to_have_text("2")

    page.locator("a[rel=prev]").first.click()
    expect(page).to_have_url(re.compile(r"[?&]before="))
    expect_listed(page, first_page)


def test_reader_opens_a_permalink_and_continues_a_thread(open_page, discussion, js):
    top, chain = discussion.top, discussion.chain
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/")

    posted = page.locator(f"#{top[0].anchor} time")  # relative, the exact time on hover
    expect(posted).to_have_text("3\xa0days ago")
    expect(posted).to_have_attribute("title", re.compile(r"^\d{1,2} \w+ \d{4}, \d\d:\d\d UTC$"))
    page.locator(f"#{top[0].anchor} a.comment-permalink").click()
    # The permalink page opens scrolled to the comment.
    expect(page).to_have_url(re.compile(rf"/comments/{re.escape(top[0].slug)}/#{top[0].anchor}$"))
    expect(page.locator(".focus article.comment")).to_have_attribute("data-slug", top[0].slug)

    page.go_back()
    follow = page.get_by_role("link", name=re.compile("Continue this thread"))
    expect(follow).to_have_count(1)
    # Below the link, the deeper replies are not on the page.
    expect(page.locator(f"#{chain[5].anchor}")).to_have_count(0)
    follow.click()
    expect(page).to_have_url(re.compile(rf"/comments/{re.escape(chain[4].slug)}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Comment by {chain[4].author.name}")
    expect(page.locator(".focus article.comment")).to_have_attribute("data-slug", chain[4].slug)
    expect(page.locator(".focus article.comment")).to_be_in_viewport()
    expect_listed(page, slugs(chain[5:]))
    expect_listed(page, slugs([top[0], *chain[:4]]), ".ancestors article.comment")
    # Ancestors are one line each, opened without JavaScript.
    root = page.locator(f"#{top[0].anchor}")
    expect(root).to_be_hidden()
    page.locator(".ancestors summary").first.click()
    expect(root).to_be_visible()
    # The reply names its parent, on this page: the link lands on it.
    page.locator(f"#{chain[5].anchor} a.reply-to").click()
    expect(page).to_have_url(re.compile(rf"#{chain[4].anchor}$"))


def test_reader_replies_to_a_deep_comment_and_lands_on_it(open_page, discussion, js):
    deepest = discussion.deepest
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/comments/{deepest.slug}/")
    expect(page.locator(".replies .no-comments")).to_have_text("No replies yet.")
    page.get_by_role("textbox", name="Comment").fill("A reply at the bottom of the thread.")
    page.get_by_role("textbox", name="Name").fill("Ines")
    address = page.url
    page.get_by_role("button", name="Post comment").click()

    if js:  # In place: the page's list of replies draws it, highlighted.
        new = page.locator(".replies li.just-posted article.comment")
        expect(new).to_contain_text("A reply at the bottom of the thread.")
        assert page.url == address
        anchor = new.get_attribute("id")
    else:
        # Below the indent limit: the permalink page of the thread's comment at the limit
        # (chain[4]) draws it, highlighted as the address's target, with a confirmation.
        holder = discussion.chain[4]
        expect(page).to_have_url(re.compile(rf"/comments/{re.escape(holder.slug)}/#c-"))
        anchor = page.url.split("#", 1)[1]
        new = page.locator(f"#{anchor}")
        assert page.evaluate(f"document.getElementById('{anchor}').matches(':target')")
    expect(new).to_contain_text("A reply at the bottom of the thread.")
    expect(new).to_have_attribute("data-depth", str(deepest.depth + 1))
    expect(page.locator(f"#{anchor} + .confirmations")).to_contain_text("your comment is posted")
    assert new.evaluate("a => getComputedStyle(a).backgroundColor") != "rgba(0, 0, 0, 0)"
    _expect_focus_on(page, anchor, js=js)


def follow_to_other_page(page, *, js: bool) -> None:
    """With JavaScript, a comment that belongs on another page of the discussion than
    the one open leaves a notice with a link, which takes the focus: follow it."""
    if js:
        link = page.get_by_role("link", name="Your comment is on another page of the discussion: show it")
        expect(link).to_be_focused()
        page.keyboard.press("Enter")


def _expect_focus_on(page, anchor: str, *, js: bool) -> None:
    """The new comment has the focus (it is focusable, and the address names it, with
    or without JavaScript), so Tab moves on from inside it."""
    expect(page.locator(f"#{anchor}")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate(f"document.getElementById('{anchor}').contains(document.activeElement)")


def test_refused_comment_keeps_its_text(open_page, discussion, js):
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/")
    page.get_by_role("textbox", name="Comment").fill("Words worth keeping.")
    page.get_by_role("button", name="Post comment").click()

    expect(page.locator(".comment-form .field-error")).to_contain_text("Tell us your name")
    expect(page.get_by_role("textbox", name="Comment")).to_have_value("Words worth keeping.")
    page.get_by_role("textbox", name="Name").fill("Jo")
    page.get_by_role("button", name="Post comment").click()
    follow_to_other_page(page, js=js)
    expect(page).to_have_url(re.compile(r"/posts/[^/]+/(\?page=\d+)?#c-"))
    expect(page.locator(f"#{page.url.split('#', 1)[1]}")).to_contain_text("Words worth keeping.")
    # The name stays filled in for the next comment.
    expect(page.get_by_role("textbox", name="Name")).to_have_value("Jo")


def test_keyboard_alone_opens_a_reply_form_and_posts(open_page, discussion, js):
    target = discussion.top[1]
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/comments/?view=chronological")
    reply = f"#{target.anchor} .comment-actions a"
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement === document.querySelector('{reply}')"):
            break
    else:
        pytest.fail("Tab never reached the Reply link")
    page.keyboard.press("Enter")
    if js:  # the reply form opens under the comment, its text box focused
        expect(page.locator(f"#{target.anchor} + form.inline-reply textarea")).to_be_focused()
    else:  # the comment's page opens at its reply form; Tab enters the form
        expect(page).to_have_url(re.compile(rf"/comments/{re.escape(target.slug)}/#reply$"))
        page.keyboard.press("Tab")
        expect(page.locator("form#reply textarea")).to_be_focused()
    focused = "document.activeElement.name || document.activeElement.textContent.trim()"
    page.keyboard.type("Typed without a mouse.")
    page.keyboard.press("Tab")
    assert page.evaluate(focused) == "name"
    page.keyboard.type("Kim")
    # On through the e-mail field and the notification checkboxes to the button.
    stops = []
    while page.evaluate(focused) != "Post comment" and len(stops) < 6:
        page.keyboard.press("Tab")
        stops.append(page.evaluate(focused))
    assert stops == ["email", "notify_replies", "follow_discussion", "Post comment"]
    page.keyboard.press("Enter")
    follow_to_other_page(page, js=js)
    expect(page).to_have_url(re.compile(r"/posts/[^/]+/(\?page=\d+)?#c-"))
    new = page.locator(f"#{page.url.split('#', 1)[1]}")
    expect(new).to_contain_text("Typed without a mouse.")
    _expect_focus_on(page, page.url.split("#", 1)[1], js=js)
