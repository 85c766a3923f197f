"""Voting in a browser: with JavaScript the counts change in place (no page load), under
the site's Content-Security-Policy; without it the buttons post the page's vote form and
come back to the comment; ?view=best opens on the most up-voted thread; axe finds nothing
serious."""

import re

from playwright.sync_api import expect

from comments.stores import counters
from comments.votes import collection as votes
from tests.browser.listing import listed


def article(page, comment):
    return page.locator(f"#{comment.anchor}")


def up_button(page, comment):
    return article(page, comment).get_by_role("button", name=re.compile(r"^Vote up"))


def down_button(page, comment):
    return article(page, comment).get_by_role("button", name=re.compile(r"^Vote down"))


def test_with_javascript_a_vote_changes_in_place_and_can_be_changed_and_taken_back(
    open_page, post_by, make_comment
):
    post = post_by()
    first, second = make_comment(post, text="First words"), make_comment(post, text="Second words")
    page = open_page(csp=True)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(f"/posts/{post.slug}/comments/")
    loads = []
    page.on("load", lambda: loads.append(page.url))

    up_button(page, second).click()
    expect(up_button(page, second)).to_have_attribute("aria-pressed", "true")
    expect(up_button(page, second).locator(".vote-count")).to_have_text("1")
    expect(page.locator("#vote-status")).to_have_text("Your up vote is counted.")
    expect(article(page, second)).to_have_attribute("data-score", "1")

    down_button(page, second).click()  # changed: up goes back, down counts
    expect(down_button(page, second)).to_have_attribute("aria-pressed", "true")
    expect(up_button(page, second)).to_have_attribute("aria-pressed", "false")
    expect(up_button(page, second).locator(".vote-count")).to_have_text("0")
    expect(down_button(page, second).locator(".vote-count")).to_have_text("1")

    down_button(page, second).click()  # pressed again: taken back
    expect(down_button(page, second)).to_have_attribute("aria-pressed", "false")
    expect(down_button(page, second).locator(".vote-count")).to_have_text("0")
    expect(page.locator("#vote-status")).to_have_text("Your vote is taken back.")

    up_button(page, first).click()
    expect(up_button(page, first)).to_have_attribute("aria-pressed", "true")
    assert not loads, loads  # no page load for any of it
    page.reload()
    # The page may come from the shared cache: the script presses the reader's own vote.
    expect(up_button(page, first)).to_have_attribute("aria-pressed", "true")
    expect(up_button(page, first).locator(".vote-count")).to_have_text("1")
    assert not errors, errors


def test_without_javascript_a_vote_posts_the_form_and_comes_back_to_the_comment(
    open_page, post_by, make_comment
):
    post = post_by()
    comment = make_comment(post, text="Vote on me")
    page = open_page(js=False)
    page.goto(f"/posts/{post.slug}/comments/?view=newest")
    up_button(page, comment).click()
    expect(page).to_have_url(re.compile(rf"/comments/\?view=newest#{comment.anchor}$"))
    expect(page.get_by_text("Your up vote is counted.")).to_be_visible()
    expect(up_button(page, comment).locator(".vote-count")).to_have_text("1")
    # Its permalink page is drawn for this reader: the vote shows pressed, and pressing
    # it again takes it back.
    page.goto(f"/posts/{post.slug}/comments/{comment.slug}/")
    focus = page.locator("section.focus")
    pressed = focus.get_by_role("button", name=re.compile(r"^Vote up"))
    expect(pressed).to_have_attribute("aria-pressed", "true")
    pressed.click()
    expect(page.get_by_text("Your vote is taken back.")).to_be_visible()
    page.goto(f"/posts/{post.slug}/comments/{comment.slug}/")
    expect(page.locator("section.focus").get_by_role("button", name=re.compile(r"^Vote up"))).to_have_attribute(
        "aria-pressed", "false")


def test_best_opens_on_the_most_up_voted_thread_and_is_axe_clean(open_page, post_by, make_comment, axe):
    post = post_by()
    older, loved, newer = (make_comment(post, text=f"Thread {n}") for n in range(3))
    make_comment(post, parent_slug=loved.slug, text="A reply to the loved one")
    for n in range(4):
        votes.cast(comment=loved, voter=f"b:{n}", vote="up")
    votes.cast(comment=newer, voter="b:x", vote="down")
    counters.touch([post.id])  # a fresh version, as the vote view gives
    page = open_page()
    page.goto(f"/posts/{post.slug}/comments/?view=best")
    slugs = listed(page)
    assert slugs[0] == loved.slug and slugs[1].startswith(loved.slug + "/")
    expect(page.locator("nav.view-switch [aria-current=true]")).to_have_text("Best")
    violations, described = axe(page)
    assert not violations, described


def test_comments_appended_by_load_more_show_the_readers_vote(open_page, post_by, make_comment):
    """Best, one thread a page (COMMENTS_PER_PAGE 6 on the test site): the reader's down
    vote on the older thread shows pressed once "Load more comments" brings it in."""
    post = post_by()
    older, newer = make_comment(post, text="Older thread"), make_comment(post, text="Newer thread")
    page = open_page(csp=True)
    page.goto(f"/posts/{post.slug}/comments/")
    down_button(page, older).click()
    expect(down_button(page, older)).to_have_attribute("aria-pressed", "true")
    page.goto(f"/posts/{post.slug}/comments/?view=best")
    expect(article(page, newer)).to_be_visible()
    expect(article(page, older)).to_have_count(0)
    page.get_by_role("button", name="Load more comments").click()
    expect(down_button(page, older)).to_have_attribute("aria-pressed", "true")
