"""An editor's journeys: log in, write, preview and publish a post; moderate."""

import re

import pytest
from playwright.sync_api import expect

MODERATION_URL = "/dashboard/moderation/"


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_editor_logs_in_writes_previews_and_publishes_a_post(open_page, log_in, js):
    page = open_page(js=js)
    log_in(page)
    page.get_by_role("link", name="New post").click()
    page.get_by_label("Title").fill(f"Fresh from the dashboard ({'js' if js else 'no js'})")
    page.get_by_label("Content").fill("Hello **readers**.\n\n    print('code')")
    page.get_by_label("Tags").fill("news, browsers")

    page.get_by_role("button", name="Preview").click()
    preview = page.locator(".preview")
    expect(preview.locator("strong")).to_have_text("readers")
    expect(preview.locator("pre")).to_contain_text("print('code')")
    expect(page.get_by_label("Title")).to_have_value(re.compile("^Fresh from the dashboard"))

    page.get_by_role("radio", name=re.compile("^Publish:")).check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Post created.")
    expect(page.locator(".post-state .state")).to_have_text("published")

    page.get_by_role("link", name="View on the site").click()
    expect(page.locator("h1#post-title")).to_have_text(re.compile("^Fresh from the dashboard"))
    expect(page.locator(".post-body strong")).to_have_text("readers")
    page.get_by_role("link", name="Posts", exact=True).click()
    expect(page.locator("article.post-summary h2").first).to_have_text(re.compile("^Fresh from the dashboard"))


def _open_moderation_queue(page) -> None:
    """Follow the dashboard menu's Moderation link, or skip while there is none."""
    link = page.locator(".dashboard-nav a", has_text=re.compile("moderat", re.I))
    if link.count() == 0:
        pytest.skip(f"No moderation queue yet: {MODERATION_URL} is missing (no 'Moderation' link in the dashboard menu)")
    link.first.click()
    expect(page).to_have_url(re.compile(re.escape(MODERATION_URL)))


def _row(page, comment):
    return page.locator(f"tr.queue-row[data-id='{comment.id}']")


def test_editor_approves_a_pending_comment_with_the_keyboard_alone(open_page, log_in, pending):
    post, comments = pending
    page = open_page()
    log_in(page)
    _open_moderation_queue(page)
    for comment in comments:
        expect(_row(page, comment)).to_have_attribute("data-status", "pending")

    checkbox = _row(page, comments[0]).get_by_role("checkbox")
    for _ in range(100):
        page.keyboard.press("Tab")
        if checkbox.evaluate("box => box === document.activeElement"):
            break
    else:
        pytest.fail("Tab never reached the comment's checkbox")
    page.keyboard.press("Space")
    expect(checkbox).to_be_checked()
    for _ in range(40):  # back up to the bulk actions above the table
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.textContent.trim()") == "Approve chosen":
            break
    else:
        pytest.fail("Shift+Tab never reached Approve chosen")
    page.keyboard.press("Enter")

    expect(page.locator(".messages")).to_contain_text("Approved 1 comment")
    expect(_row(page, comments[0])).to_have_count(0)
    reader = open_page()  # not logged in: readers see approved comments only
    reader.goto(f"/posts/{post.slug}/")
    expect(reader.locator(f"#{comments[0].anchor}")).to_contain_text("Pending comment 1.")
    expect(reader.locator(f"#{comments[1].anchor}")).to_have_count(0)


def test_editor_bulk_marks_comments_as_spam_without_javascript(open_page, log_in, pending):
    post, comments = pending
    page = open_page(js=False)
    log_in(page)
    _open_moderation_queue(page)
    for comment in comments[1:]:
        _row(page, comment).get_by_role("checkbox").check()
    page.get_by_role("button", name="Spam chosen").click()

    expect(page.locator(".messages")).to_contain_text("Marked 2 comment(s) as spam")
    expect(page.locator("tr.queue-row")).to_have_count(1)
    expect(_row(page, comments[0])).to_have_attribute("data-status", "pending")
    reader = open_page(js=False)
    reader.goto(f"/posts/{post.slug}/")
    for comment in comments:
        expect(reader.locator(f"#{comment.anchor}")).to_have_count(0)
