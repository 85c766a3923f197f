"""Commenting without leaving the article (issue 29), in Chromium at 390 and 1280 px:
with JavaScript (under the site's Content-Security-Policy) a comment, a reply, a
refusal and a preview happen in place; without it, posting lands on the post page at
the comment with its confirmation beside it, and Preview is a round trip."""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.listing import listed

WIDTHS = {"phone": 390, "desktop": 1280}
# A rate-limit test starts at least this long before its window ends.
WINDOW_MARGIN_SECONDS = 60


@pytest.fixture(params=list(WIDTHS))
def width(request) -> int:
    return WIDTHS[request.param]


def watch(page) -> list[str]:
    """Script errors, and anything the Content-Security-Policy refused."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    return errors


def clean(page, axe, name: str) -> None:
    violations, described = axe(page)
    assert not violations, f"{name}:\n{described}"


@pytest.fixture
def short(post_by, make_comment):
    """A post with two comments: one page, where a new comment fits."""
    from comments.records import CommentAuthor

    # A slug of its own: the site keeps a discussion's polled counts a few seconds by slug.
    post = post_by(title="A short talk", slug=f"a-short-talk-{uuid.uuid4().hex[:8]}", content="Few words.")
    for name in ("Ada", "Bruno"):
        make_comment(post, text=f"Said by {name}.", author=CommentAuthor(id=None, name=name, email=""))
    return post


def new_comment(page):
    return page.locator("#comments li.just-posted article.comment")


def test_a_comment_posts_in_place(open_page, short, width):
    page = open_page(csp=True, width=width)
    errors = watch(page)
    page.goto(f"/posts/{short.slug}/")
    address = page.url
    form = page.locator("form#reply")
    form.get_by_label("Name").fill("Lee")
    form.get_by_label("E-mail (optional, never shown)").fill("lee@example.com")
    form.get_by_role("textbox", name="Comment").fill("Posted in **place**.")
    form.get_by_role("button", name="Post comment").click()

    new = new_comment(page)
    expect(new).to_contain_text("Posted in place.")
    expect(new).to_be_focused()
    expect(new).to_be_in_viewport()
    assert page.url == address
    expect(page.locator("article.post h1")).to_have_text(short.title)
    expect(page.locator("#comments li.just-posted .confirmations")).to_contain_text("your comment is posted")
    expect(page.get_by_role("status").filter(has_text="your comment is posted")).to_have_count(2)
    # The form is cleared; the name and e-mail stay for the next comment.
    expect(form.get_by_role("textbox", name="Comment")).to_have_value("")
    expect(form.get_by_label("Name")).to_have_value("Lee")
    expect(form.get_by_label("E-mail (optional, never shown)")).to_have_value("lee@example.com")
    # A second comment from the same form is a new comment (the form has a new token).
    form.get_by_role("textbox", name="Comment").fill("And a second one.")
    form.get_by_role("button", name="Post comment").click()
    expect(page.locator("#comments article.comment", has_text="And a second one.")).to_be_focused()
    expect(page.locator("#comments article.comment", has_text="Posted in place.")).to_have_count(1)
    # It is stored: it is there after a reload.
    page.reload()
    expect(page.locator("#comments article.comment", has_text="And a second one.")).to_have_count(1)
    assert not errors, errors


def test_a_comment_for_another_page_leaves_a_notice_with_a_link(open_page, discussion, width, axe):
    """The post page shows the first of three pages; a new thread goes on the last."""
    page = open_page(width=width)
    page.goto(f"/posts/{discussion.post.slug}/")
    form = page.locator("form#reply")
    form.get_by_label("Name").fill("Lee")
    form.get_by_role("textbox", name="Comment").fill("A new thread at the end.")
    form.get_by_role("button", name="Post comment").click()
    link = page.get_by_role("link", name="Your comment is on another page of the discussion: show it")
    expect(link).to_be_focused()
    expect(page.locator(".posted-elsewhere .confirmations")).to_contain_text("your comment is posted")
    clean(page, axe, "a notice of a comment on another page")
    link.click()
    expect(page).to_have_url(re.compile(rf"/posts/{discussion.post.slug}/\?page=3#c-"))
    expect(page.locator(f"#{page.url.split('#', 1)[1]}")).to_contain_text("A new thread at the end.")


def test_a_reply_posts_in_place_under_its_parent(open_page, discussion, width, axe):
    target = discussion.top[0]
    page = open_page(width=width)
    errors = watch(page)
    page.goto(f"/posts/{discussion.post.slug}/")
    address = page.url
    page.locator(f"#{target.anchor}").get_by_role("link", name=f"Reply to {target.author.name}").click()
    form = page.locator(f"#{target.anchor} + form.inline-reply")
    form.get_by_role("textbox", name="Comment").fill("A reply, in place.")
    form.get_by_label("Name").fill("Mo")
    form.get_by_role("button", name="Post comment").click()

    new = new_comment(page)
    expect(new).to_be_focused()
    expect(new).to_contain_text("A reply, in place.")
    expect(new).to_have_attribute("data-depth", "1")
    expect(form).to_have_count(0)  # the reply form closed
    assert page.url == address
    # Threaded: after the parent's sub-thread as this page draws it (depths 1-5 of the chain).
    order = listed(page)
    drawn = [target.slug, *[c.slug for c in discussion.chain[:5]]]
    assert order[: len(drawn)] == drawn and order[len(drawn)] == new.get_attribute("data-slug")
    clean(page, axe, "after a reply in place")
    assert not errors, errors


def test_a_refused_comment_shows_its_errors_in_place_and_keeps_the_text(open_page, short, width, axe):
    page = open_page(width=width)
    page.goto(f"/posts/{short.slug}/")
    address = page.url
    form = page.locator("form#reply")
    form.get_by_role("textbox", name="Comment").fill("Words worth keeping.")
    form.get_by_role("button", name="Post comment").click()
    expect(form.locator(".field-error")).to_contain_text("Tell us your name")
    expect(form.get_by_role("textbox", name="Comment")).to_have_value("Words worth keeping.")
    expect(form.get_by_label("Name")).to_be_focused()
    assert page.url == address
    clean(page, axe, "a refusal in place")
    form.get_by_label("Name").fill("Jo")
    form.get_by_role("button", name="Post comment").click()
    expect(new_comment(page)).to_contain_text("Words worth keeping.")
    expect(form.locator(".field-error")).to_have_count(0)


def test_too_many_comments_answer_429_in_place_with_the_text_kept(open_page, discussion, width):
    from comments.posting import antispam
    from comments import conf

    page = open_page(csp=True, width=width)
    page.goto(f"/posts/{discussion.post.slug}/")
    # The windows are fixed (a new one every COMMENTS_RATE_WINDOW seconds of the clock):
    # filled in one and posted in the next, the comment would go in. Near a window's end,
    # wait for the next one.
    left = conf.get().rate_window - antispam.clock() % conf.get().rate_window
    if left < WINDOW_MARGIN_SECONDS:
        time.sleep(left + 0.5)
    # Every post from this address so far this window (the site counts in MongoDB).
    for _ in range(conf.get().rate_per_ip):
        try:
            antispam.check_rate(action="post", ip="127.0.0.1", user_id=None)
        except antispam.RateLimited:
            break
    form = page.locator("form#reply")
    form.get_by_label("Name").fill("Kit")
    form.get_by_role("textbox", name="Comment").fill("Not now, but later.")
    form.get_by_role("button", name="Post comment").click()
    expect(form.locator(".form-errors")).to_contain_text("You are posting too often")
    expect(form.locator(".retry-after")).to_contain_text(re.compile(r"You can send it again in \d+ minutes?\."))
    expect(form.get_by_role("textbox", name="Comment")).to_have_value("Not now, but later.")
    expect(page.locator("#comments article.comment", has_text="Not now")).to_have_count(0)


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_preview_shows_the_text_as_it_will_be_posted(open_page, short, js, width, axe):
    page = open_page(js=js, width=width)
    page.goto(f"/posts/{short.slug}/")
    address = page.url
    form = page.locator("form#reply")
    form.get_by_label("Name").fill("Pia")
    form.get_by_role("textbox", name="Comment").fill("Some **bold** words <script>alert(1)</script>")
    form.get_by_role("button", name="Preview").click()

    preview = page.locator("form#reply .comment-preview")
    expect(preview.locator("strong")).to_have_text("bold")
    expect(preview.locator("script")).to_have_count(0)
    expect(page.get_by_role("textbox", name="Comment")).to_have_value("Some **bold** words <script>alert(1)</script>")
    expect(page.get_by_label("Name")).to_have_value("Pia")
    # Above the buttons; nothing was posted.
    assert preview.evaluate(
        "p => !!(p.compareDocumentPosition(p.form ? p.form : p.closest('form').querySelector('button'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING)"
    )
    expect(page.locator("#comments article.comment", has_text="bold words")).to_have_count(0)
    if js:
        assert page.url == address
        expect(preview).to_be_focused()
        clean(page, axe, "a preview")
    page.get_by_role("button", name="Post comment").click()
    expect(page.locator("#comments article.comment", has_text="bold words")).to_have_count(1)


def test_without_js_posting_lands_on_the_post_page_beside_the_comment(open_page, discussion, width):
    page = open_page(js=False, width=width)
    page.goto(f"/posts/{discussion.post.slug}/")
    page.get_by_label("Name").fill("Noa")
    page.get_by_role("textbox", name="Comment").fill("Posted the plain way.")
    page.get_by_role("button", name="Post comment").click()

    expect(page).to_have_url(re.compile(rf"/posts/{discussion.post.slug}/(\?page=\d+)?#c-"))
    anchor = page.url.split("#", 1)[1]
    new = page.locator(f"#{anchor}")
    expect(new).to_contain_text("Posted the plain way.")
    expect(new).to_be_in_viewport()
    confirmation = page.locator(f"#{anchor} + .confirmations")
    expect(confirmation).to_contain_text("your comment is posted")
    expect(confirmation).to_be_in_viewport()
    expect(page.locator("main > [role=status] .messages")).to_have_count(0)
    expect(page.locator("article.post h1")).to_have_count(1)


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_the_permalink_page_shows_the_thread_top_down_scrolled_to_the_comment(open_page, discussion, js, width):
    chain = discussion.chain
    page = open_page(js=js, width=width)
    page.goto(f"/posts/{discussion.post.slug}/")
    page.locator(f"#{chain[2].anchor} a.comment-permalink").click()
    expect(page).to_have_url(re.compile(rf"/comments/{re.escape(chain[2].slug)}/#{chain[2].anchor}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Comment by {chain[2].author.name}")
    focus = page.locator(".focus article.comment")
    expect(focus).to_be_in_viewport()
    order = page.locator("main h1, main .ancestors, main .focus, main .replies").evaluate_all(
        "els => els.map(e => e.tagName === 'H1' ? 'h1' : e.className)"
    )
    assert order == ["h1", "ancestors", "focus", "replies"]
    # The ancestors are folded to a line each.
    expect(page.locator(".ancestors details[open]")).to_have_count(0)
    assert page.evaluate("window.scrollY") > 0 or focus.evaluate("a => a.getBoundingClientRect().top") < 200


def test_a_comment_from_another_browser_shows_up_as_new_and_is_inserted_on_click(open_page, short, width):
    """The reader's page polls every 15 s (its clock is run forward here); another
    reader's comment shows as "1 new comment — show", inserted in place on click,
    without moving what is on the screen."""
    reader = open_page(csp=True, width=width, height=500)
    errors = watch(reader)
    reader.clock.install()
    reader.goto(f"/posts/{short.slug}/")
    reader.clock.run_for(16_000)  # one poll: nothing new, no button
    expect(reader.locator(".new-comments button")).to_have_count(0)

    other = open_page(width=1280)
    other.goto(f"/posts/{short.slug}/")
    other.get_by_label("Name").fill("Ola")
    other.get_by_role("textbox", name="Comment").fill("Arrived while you read.")
    other.get_by_role("button", name="Post comment").click()
    expect(other.locator("li.just-posted")).to_have_count(1)

    reader.mouse.wheel(0, 200)
    reader.wait_for_timeout(200)
    # The polled numbers are cached for up to 5 seconds (real ones) on the server, and a
    # poll's round trip takes seconds on a busy machine: poll for up to 20 real seconds.
    button = reader.get_by_role("button", name="1 new comment — show")
    for _ in range(20):
        reader.clock.run_for(16_000)
        reader.wait_for_timeout(1_000)  # the poll this fired has answered before we look
        if button.count() and button.is_visible():
            break
    expect(button).to_be_visible()
    top_item = reader.locator("#comments li.comment-item").first
    before = top_item.evaluate("li => li.getBoundingClientRect().top")
    button.click()
    arrived = reader.locator("#comments li.arrived article.comment")
    expect(arrived).to_contain_text("Arrived while you read.")
    expect(arrived).to_be_focused()
    expect(button).to_be_hidden()
    assert abs(top_item.evaluate("li => li.getBoundingClientRect().top") - before) < 2
    assert reader.url.endswith(f"/posts/{short.slug}/")
    assert not errors, errors


def test_polling_stops_while_the_tab_is_hidden(open_page, short):
    reader = open_page(width=1280)
    reader.clock.install()
    polls = []
    reader.on("request", lambda r: polls.append(r.url) if "/comments/latest/" in r.url else None)
    reader.goto(f"/posts/{short.slug}/")
    reader.clock.run_for(16_000)
    reader.wait_for_timeout(500)
    assert len(polls) == 1
    reader.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    reader.clock.run_for(120_000)
    reader.wait_for_timeout(500)
    assert len(polls) == 1
    reader.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    reader.clock.run_for(2_000)
    reader.wait_for_timeout(500)
    assert len(polls) == 2


def test_an_answer_read_before_the_one_applied_never_hides_the_new_comments_button(open_page, short):
    """Each server process caches the numbers it read: a poll served by one whose numbers
    predate the comment another process announced must not take the button away; a
    later reading that says nothing is new does."""
    def said(new: int, read_at: int) -> dict:
        label = f"{new} new comment — show" if new == 1 else f"{new} new comments — show"
        return {"comments": 2 + new, "new": new, "label": label, "shown": "", "read_at": read_at}

    answers, served = [said(1, 2_000), said(0, 1_000), said(0, 3_000)], []
    reader = open_page(width=1280)
    reader.clock.install()
    reader.route("**/comments/latest/**", lambda route: (
        served.append(1),
        route.fulfill(status=200, content_type="application/json", headers={"ETag": f'"{len(served)}"'},
                      body=json.dumps(answers[min(len(served), len(answers)) - 1])),
    ))
    reader.goto(f"/posts/{short.slug}/")
    button = reader.get_by_role("button", name="1 new comment — show")
    for polls, visible in ((1, True), (2, True), (3, False)):
        reader.clock.run_for(16_000)
        for _ in range(50):
            if len(served) >= polls:
                break
            reader.wait_for_timeout(100)
        reader.wait_for_timeout(300)  # the answer is applied
        assert len(served) == polls
        expect(button).to_be_visible() if visible else expect(button).to_be_hidden()


def test_an_edit_happens_in_place(open_page, short, width):
    page = open_page(csp=True, width=width)
    errors = watch(page)
    page.goto(f"/posts/{short.slug}/")
    address = page.url
    form = page.locator("form#reply")
    form.get_by_label("Name").fill("Eve")
    form.get_by_role("textbox", name="Comment").fill("Teh first version.")
    form.get_by_role("button", name="Post comment").click()
    mine = new_comment(page)
    expect(mine).to_be_focused()
    anchor = mine.get_attribute("id")

    mine.get_by_role("link", name="Edit").click()
    edit = page.locator(f"#{anchor} + form.inline-edit")
    box = edit.get_by_role("textbox", name="Comment")
    expect(box).to_be_focused()
    box.fill("")
    edit.get_by_role("button", name="Save changes").click()
    expect(edit.locator(".field-error")).to_contain_text("Write something before posting.")
    box.fill("The *second* version.")
    edit.get_by_role("button", name="Save changes").click()

    changed = page.locator(f"#{anchor}")
    expect(changed.locator("em")).to_have_text("second")
    expect(changed).to_be_focused()
    expect(page.locator(f"#{anchor} + .confirmations")).to_contain_text("Your comment was changed.")
    expect(page.locator("form.inline-edit")).to_have_count(0)
    assert page.url == address
    assert not errors, errors
