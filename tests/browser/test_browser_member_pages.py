"""A member's "My comments" page (/accounts/comments/) on a phone (390 px): it fits the
screen whatever a comment or title holds, says each comment's status in words, and its
"Older" link leads to the next page by cursor."""

from datetime import UTC, datetime, timedelta

from playwright.sync_api import expect

from comments.records import PENDING, CommentAuthor
from comments.stores import get_store
from tests.browser.test_browser_screenshots import overflow

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
LONG_WORD = "harbourwall" * 12


def test_my_comments_fits_a_phone_and_pages_to_older_comments(open_page, editor_state, editor, post_by,
                                                               make_comment, screenshots):
    me = CommentAuthor(id=editor.id, name=editor.name, email="edith@example.org")
    post = post_by(title="The harbour wall at dawn, seen from the lighthouse on the northern pier")
    made = [make_comment(post, text=f"Note {n} {LONG_WORD}", author=me, at=START + timedelta(minutes=n))
            for n in range(21)]
    get_store().set_status(ids=[made[-1].id], status=PENDING)
    page = open_page(width=390, state=editor_state)
    page.goto("/accounts/comments/")
    expect(page.get_by_role("heading", name="My comments")).to_be_visible()
    items = page.locator(".member-comment")
    expect(items).to_have_count(20)
    expect(items.first).to_contain_text("Waiting for a moderator")
    expect(items.nth(1)).to_contain_text("Approved")
    expect(items.first.get_by_role("link", name=post.title)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, overflow(page)
    assert not overflow(page), overflow(page)
    page.screenshot(path=str(screenshots / "account-my-comments-390.png"), full_page=True)
    page.get_by_role("link", name="Older").click()
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Note 0")
    expect(page.get_by_role("link", name="Older")).to_have_count(0)
    page.get_by_role("link", name="Newest").click()
    expect(items.first).to_contain_text("Note 20")
