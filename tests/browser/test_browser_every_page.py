"""The page types the other browser tests do not reach, as people reach them: a
reader's own comment (its edit page and the question before deleting it), flagging,
an author's page with the comments they wrote, and the editor's confirmations
(marking as spam, lifting a ban). Each at 1280 and 390 px: a screenshot under
var/screenshots/, nothing wider than the screen, and axe-core finds nothing serious."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_screenshots import WIDTHS, shoot


def clean(page, axe, name: str) -> None:
    violations, described = axe(page)
    assert not violations, f"{name}:\n{described}"


@pytest.mark.parametrize("device", WIDTHS)
def test_a_readers_own_comment_pages(open_page, discussion, screenshots, axe, device):
    """Post a comment through the form, land on it, then open its edit page and the
    question before deleting it; keep it."""
    width = WIDTHS[device]
    page = open_page(width=width)
    page.goto(f"/posts/{discussion.post.slug}/")
    page.get_by_label("Name").fill("Rosa Reader")
    page.get_by_role("textbox", name="Comment:").fill("My own words, to edit or take back.")
    page.get_by_role("button", name="Post comment").click()
    # Posted in place; it goes on another page of the discussion: follow the notice's link.
    expect(page.locator(".messages")).to_contain_text("your comment is posted")
    page.get_by_role("link", name="Your comment is on another page of the discussion: show it").click()
    expect(page.locator(".comment:target")).to_contain_text("My own words")
    shoot(page, screenshots, "posted-landing", width)
    clean(page, axe, "after posting")
    # With JavaScript, Edit opens the form in place (test_browser_posting.py): the edit
    # page itself is what its link leads to.
    page.goto(page.locator(".comment:target").get_by_role("link", name="Edit").get_attribute("href"))
    expect(page.get_by_role("heading", name="Edit your comment")).to_be_visible()
    shoot(page, screenshots, "comment-edit", width)
    clean(page, axe, "edit page")
    page.get_by_role("link", name="Delete this comment").click()
    expect(page.locator("h1")).to_contain_text("Delete")
    shoot(page, screenshots, "comment-delete-confirm", width)
    clean(page, axe, "delete confirmation")
    page.get_by_role("link", name="Keep it").click()
    expect(page.get_by_text("My own words, to edit or take back.")).to_be_visible()


@pytest.mark.parametrize("device", WIDTHS)
def test_flag_and_author_pages(open_page, discussion, editor, make_comment, screenshots, axe, device):
    from comments.records import CommentAuthor

    answer = make_comment(discussion.post, text="The author answers here.",
                          author=CommentAuthor(id=editor.id, name=editor.name, staff=True))
    width = WIDTHS[device]
    page = open_page(width=width)
    page.goto(f"/posts/{discussion.post.slug}/comments/{discussion.top[1].slug}/flag/")
    expect(page.get_by_role("heading", name="Flag this comment for the editors")).to_be_visible()
    shoot(page, screenshots, "flag", width)
    clean(page, axe, "flag page")
    page.goto(f"/authors/{editor.username}/")
    expect(page.locator("#author-comments-title")).to_be_visible()
    expect(page.locator(".author-comments")).to_contain_text("The author answers here.")
    shoot(page, screenshots, "author-with-comments", width)
    clean(page, axe, "author page")
    page.goto(f"/posts/{discussion.post.slug}/comments/{answer.slug}/")
    expect(page.locator(f"#{answer.anchor} .staff-badge")).to_have_text("Staff")
    clean(page, axe, "a staff comment's permalink")


@pytest.mark.parametrize("device", WIDTHS)
def test_the_editors_confirmations(open_page, editor_state, discussion, make_comment, screenshots, axe, device):
    """Spam asks first; a ban asks first; lifting it asks first and offers to restore."""
    from comments.records import CommentAuthor

    troll = make_comment(discussion.post, text="Buy cheap pills", ip="203.0.113.9",
                         author=CommentAuthor(id=None, name="Troll", email=""))
    width = WIDTHS[device]
    page = open_page(width=width, state=editor_state)
    page.goto("/dashboard/moderation/?tab=recent")
    page.locator("tr", has_text="Buy cheap pills").get_by_role("button", name="Ban commenter").click()
    expect(page.locator(".confirm-summary")).to_be_visible()
    shoot(page, screenshots, "moderation-confirm-ban", width)
    clean(page, axe, "ban confirmation")
    page.locator(".confirm-form button[type=submit]").click()
    page.goto("/dashboard/moderation/blocklist/")
    shoot(page, screenshots, "blocklist", width)
    clean(page, axe, "blocklist")
    page.get_by_role("link", name="Lift the ban…").first.click()
    expect(page.locator("h1")).to_contain_text("Lift the ban")
    expect(page.get_by_label("Restore the 1 comment as it was")).to_be_checked()
    shoot(page, screenshots, "blocklist-lift", width)
    clean(page, axe, "lift the ban")
    page.get_by_role("button", name="Lift the ban").click()
    expect(page.get_by_text("1 comment it had marked as spam is back as it was")).to_be_visible()
