"""What a reader sees of what they just did, in Chromium: the in-place edit form deletes
and cancels as the pages without JavaScript do; a vote, a refused vote and a delete say
so where the reader is looking; their own vote shows pressed without JavaScript; and
the comment count follows new comments, posted in place or shown from the sticky
"new comments" notice."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def post_in_place(page, text: str, *, name: str = "Rosa"):
    form = page.locator("form#reply")
    form.get_by_label("Name").fill(name)
    form.get_by_role("textbox", name="Comment").fill(text)
    form.get_by_role("button", name="Post comment").click()


def test_the_in_place_edit_form_cancels_and_deletes_as_the_pages_do(open_page, discussion):
    page = open_page(csp=True, width=390)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/posts/{discussion.post.slug}/")
    post_in_place(page, "Words I will take back.")
    page.get_by_role("link", name="Your comment is on another page of the discussion: show it").click()
    mine = page.locator(".comment:target")
    expect(mine).to_contain_text("Words I will take back.")
    anchor = mine.get_attribute("id")

    edit_link = mine.get_by_role("link", name="Edit")
    edit_link.click()
    form = page.locator(f"#{anchor} + form.inline-edit")
    expect(form.get_by_role("textbox", name="Comment")).to_be_focused()
    expect(form.get_by_role("button", name="Save changes")).to_be_visible()
    form.get_by_role("link", name="Cancel").click()
    expect(page.locator("form.inline-edit")).to_have_count(0)
    expect(edit_link).to_be_focused()
    expect(edit_link).to_have_attribute("aria-expanded", "false")

    edit_link.click()
    page.locator(f"#{anchor} + form.inline-edit").get_by_role("link", name="Delete this comment").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Delete your comment?")
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/posts/{discussion.post.slug}/#comments$"))
    said = page.locator("#comments > .confirmations")
    expect(said).to_have_text("Your comment was deleted.")
    expect(said).to_be_in_viewport()
    expect(page.locator(f"#{anchor}")).to_have_count(0)
    assert not errors, errors


def test_without_javascript_a_vote_says_so_beside_the_comment_and_stays_pressed(open_page, discussion):
    target = discussion.chain[4]
    page = open_page(js=False, width=390, height=600)
    page.goto(f"/posts/{discussion.post.slug}/")
    page.locator(f"#{target.anchor}").get_by_role("button", name=re.compile(r"^Vote up")).click()
    expect(page).to_have_url(re.compile(rf"#{target.anchor}$"))
    said = page.locator(f"#{target.anchor} + .confirmations")
    expect(said).to_have_text("Your up vote is counted.")
    expect(said).to_be_in_viewport()
    up = page.locator(f"#{target.anchor}").get_by_role("button", name=re.compile(r"^Vote up"))
    expect(up).to_have_attribute("aria-pressed", "true")
    # Pressed looks pressed: another colour than a button not pressed.
    down = page.locator(f"#{target.anchor}").get_by_role("button", name=re.compile(r"^Vote down"))
    colour = "b => getComputedStyle(b).backgroundColor"
    assert up.evaluate(colour) != down.evaluate(colour)
    page.goto(f"/posts/{discussion.post.slug}/")
    expect(up).to_have_attribute("aria-pressed", "true")


def test_with_javascript_a_refused_vote_is_said_under_the_buttons(open_page, post_by, make_comment):
    post = post_by(slug="vote-on-your-own")
    make_comment(post, text="Someone else's words.")
    page = open_page(csp=True)
    page.goto(f"/posts/{post.slug}/")
    post_in_place(page, "My own words.")
    mine = page.locator("#comments li.just-posted")
    expect(mine.locator("article.comment")).to_be_focused()
    mine.get_by_role("button", name=re.compile(r"^Vote up")).click()
    refused = mine.locator(".vote-refused")
    expect(refused).to_have_text("You cannot vote on your own comment.")
    expect(refused).to_be_visible()
    expect(refused).to_be_in_viewport()


def test_the_comment_count_follows_new_comments_and_the_notice_stays_in_sight(open_page, discussion):
    """Scrolled into the thread, another reader's comment shows a notice that sticks to
    the top of the window; "show" updates the heading's count, and so does posting."""
    reader = open_page(csp=True, width=1280, height=500)
    reader.clock.install()
    reader.goto(f"/posts/{discussion.post.slug}/")
    heading = reader.locator("#comments-title")
    expect(heading).to_have_text("15 comments")
    reader.clock.run_for(16_000)  # one poll: nothing new
    reader.locator(f"#{discussion.chain[3].anchor}").scroll_into_view_if_needed()
    expect(heading).not_to_be_in_viewport()

    other = open_page(width=1280)
    other.goto(f"/posts/{discussion.post.slug}/")
    post_in_place(other, "Arrived while you read.", name="Ola")
    expect(other.locator(".posted-elsewhere")).to_have_count(1)
    expect(other.locator("#comments-title")).to_have_text("16 comments")

    button = reader.get_by_role("button", name="1 new comment — show")
    for _ in range(20):  # the server keeps polled numbers a few real seconds
        reader.clock.run_for(16_000)
        reader.wait_for_timeout(1_000)
        if button.count() and button.is_visible():
            break
    expect(button).to_be_in_viewport()
    button.click()
    expect(heading).to_have_text("16 comments")
    reader.locator("form#reply").scroll_into_view_if_needed()
    post_in_place(reader, "And mine.", name="Ida")
    expect(reader.locator(".posted-elsewhere")).to_have_count(1)
    expect(heading).to_have_text("17 comments")
