"""An editor's journeys: log in, write, preview and publish a post; moderate; and
what an editor sees of the dashboard at desktop (1280 px) and phone (390 px) widths."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_screenshots import overflow

WIDTHS = {"desktop": 1280, "phone": 390}

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

    # A confirmation page says what will change; nothing has changed yet.
    expect(page.locator("h1")).to_have_text("Mark comments as spam?")
    expect(page.locator(".confirm-summary")).to_have_text("This will mark 2 comments by 2 names as spam.")
    expect(page.locator(".confirm-list li")).to_have_count(2)
    page.get_by_role("button", name="Mark as spam").click()

    expect(page.locator(".messages")).to_contain_text("Marked 2 comments as spam")
    expect(page.locator("tr.queue-row")).to_have_count(1)
    expect(_row(page, comments[0])).to_have_attribute("data-status", "pending")
    reader = open_page(js=False)
    reader.goto(f"/posts/{post.slug}/")
    for comment in comments:
        expect(reader.locator(f"#{comment.anchor}")).to_have_count(0)


def test_cancelling_a_thread_removal_changes_nothing(open_page, log_in, pending):
    """Remove thread asks first, without JavaScript; Cancel goes back to the queue as it was."""
    _, comments = pending
    page = open_page(js=False)
    log_in(page)
    _open_moderation_queue(page)
    _row(page, comments[0]).get_by_role("button", name="Remove thread").click()
    expect(page.locator(".confirm-summary")).to_have_text(
        "This will delete 1 comment by “Visitor 1”: the comment and every reply below it."
    )
    page.get_by_role("link", name="Cancel").click()
    expect(page).to_have_url(re.compile(re.escape(MODERATION_URL)))
    expect(_row(page, comments[0])).to_have_attribute("data-status", "pending")
    expect(page.locator("tr.queue-row")).to_have_count(3)


LONG_POST = "\n\n".join(f"Paragraph {n} of a post long enough to fill the form." for n in range(1, 30))


def _in_view(page, locator) -> bool:
    """The element's top is on the screen as the page opened (no scrolling)."""
    box = locator.bounding_box()
    return page.evaluate("window.scrollY") == 0 and 0 <= box["y"] < page.viewport_size["height"] - 40


@pytest.mark.parametrize("device", WIDTHS)
def test_preview_shows_without_scrolling_and_the_form_keeps_what_was_typed(open_page, log_in, screenshots, device):
    """Beside the form on a wide screen, above it on a phone; the form keeps every value."""
    width = WIDTHS[device]
    page = open_page(width=width, js=False)
    log_in(page)
    page.goto("/dashboard/posts/new/")
    page.get_by_label("Title").fill("Previewed post")
    page.get_by_label("Content").fill("**Bold start.**\n\n" + LONG_POST)
    page.get_by_label("Excerpt").fill("What lists show.")
    page.get_by_role("textbox", name="Publish time").fill("2099-12-24 18:30")
    page.get_by_role("button", name="Preview").click()

    preview, form = page.locator("section.preview"), page.locator("form.post-form")
    expect(preview.locator("strong")).to_have_text("Bold start.")
    assert _in_view(page, preview.locator("strong")), "the preview is below the fold"
    preview_box, form_box = preview.bounding_box(), form.bounding_box()
    if device == "desktop":
        assert preview_box["x"] >= form_box["x"] + form_box["width"], "the preview is beside the form"
        assert _in_view(page, page.get_by_label("Title"))
    else:
        assert preview_box["y"] + preview_box["height"] <= form_box["y"], "the preview is above the form"
    assert not overflow(page)
    page.screenshot(path=screenshots / f"post-preview-{width}.png")
    assert "{#" not in page.inner_text("body"), "a template comment shows on the page"
    expect(page.get_by_label("Title")).to_have_value("Previewed post")
    expect(page.get_by_label("Content")).to_have_value(re.compile(r"Paragraph 29 of a post"))
    expect(page.get_by_label("Excerpt")).to_have_value("What lists show.")
    expect(page.get_by_role("textbox", name="Publish time")).to_have_value("2099-12-24 18:30")


def test_the_publish_time_reads_back_as_its_help_text_says(open_page, log_in):
    """Typed as the help text and placeholder say, saved, and shown back the same way."""
    page = open_page()
    log_in(page)
    page.goto("/dashboard/posts/new/")
    field = page.get_by_role("textbox", name="Publish time")
    expect(field).to_have_attribute("placeholder", "2026-05-01 09:30")
    help_text = page.locator("#id_published_helptext")
    expect(help_text).to_contain_text("such as 2026-05-01 09:30")
    expect(help_text).to_contain_text("time zone (UTC)")
    page.get_by_label("Title").fill("Scheduled for Christmas")
    field.fill("2099-12-24 18:30")
    page.get_by_role("radio", name=re.compile("^Publish:")).check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".post-state .state")).to_have_text("scheduled")
    expect(page.get_by_role("textbox", name="Publish time")).to_have_value("2099-12-24 18:30")

    page.get_by_role("textbox", name="Publish time").fill("24/12/2099 6pm")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".field-error")).to_contain_text("such as 2026-05-01 09:30")
    expect(page.get_by_role("textbox", name="Publish time")).to_have_value("24/12/2099 6pm")


@pytest.fixture
def full_dashboard(post_by, pending, editor):
    """Something in every dashboard table: posts, pending comments, blocked words and
    bans, and a version whose fields differ from the post's."""
    from cms import posts, versions
    from comments.moderation import blocklist

    blocklist.add_entry(kind="word", value="a rather long blocked phrase for a phone", added_by=editor.username)
    blocklist.add_entry(kind="domain", value="spam-domain.example", added_by=editor.username)
    blocklist.add_entry(kind="ip", value="2001:db8:85a3::8a2e:370:7334", added_by=editor.username)
    post = post_by(title="A post with a rather long title that has to wrap on a phone", tags=["one"])
    versions.save_version(post=post, saved_by=editor.username)
    posts.update_post(
        post_id=post.id, revision=post.revision, title=post.title + ", edited", slug=post.slug,
        content=post.content + "\n\nMore.", tags=["one", "two"], status=post.status, published=post.published,
        excerpt="A new excerpt.",
    )
    [version] = versions.find_versions(post_id=post.id)
    return {
        "posts": ("/dashboard/", ".post-row", ["Author", "Status", "Publish time", "Comments"]),
        "authors": ("/dashboard/authors/", "tbody tr", ["Name", "Author page"]),
        "moderation": (MODERATION_URL, "tr.queue-row", ["Author", "Status"]),
        "blocklist": ("/dashboard/moderation/blocklist/", "tr.blocklist-entry", ["Value"]),
        "version": (f"/dashboard/posts/{post.id}/versions/{version.id}/", ".field-changes tbody tr",
                    ["This version", "Now"]),
    }


def _cells_outside(page, rows: str, width: int) -> list[str]:
    """Cells and buttons of these rows that are not wholly on a screen `width` wide."""
    return page.evaluate(
        """([rows, width]) => [...document.querySelectorAll(rows)].flatMap(row =>
             [...row.querySelectorAll('td, th, button, a, input')].filter(el => {
               const box = el.getBoundingClientRect();
               return box.width > 0 && (box.left < -1 || box.right > width + 1);
             }).map(el => el.tagName + ': ' + el.textContent.trim().slice(0, 40)))""",
        [rows, width],
    )


@pytest.mark.parametrize("device", WIDTHS)
def test_every_dashboard_table_is_usable_on_the_screen(open_page, editor_state, full_dashboard, device):
    """At 390 px each row is a card of labelled cells with its actions on screen; at
    1280 px the tables stay tables. Nothing is wider than the screen."""
    width = WIDTHS[device]
    page = open_page(width=width, state=editor_state)
    for name, (url, rows, labels) in full_dashboard.items():
        page.goto(url)
        expect(page.locator(rows).first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, overflow(page))
        assert not overflow(page), (name, overflow(page))
        assert not _cells_outside(page, rows, width), (name, _cells_outside(page, rows, width))
        card = page.locator(rows).first
        header = page.locator("thead").first
        if device == "phone":
            assert not header.is_visible() or header.bounding_box()["height"] <= 1, name
            for label in labels:
                assert card.locator(f"[data-label^='{label}']").evaluate(
                    "td => getComputedStyle(td, '::before').content"
                ).startswith(f'"{label}'), (name, label)
        else:
            expect(header).to_be_visible()
    page.goto(MODERATION_URL)
    for button in ("Remove thread", "Ban commenter"):
        shown = page.locator("tr.queue-row").first.get_by_role("button", name=button)
        expect(shown).to_be_visible()
        box = shown.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (button, box)


def test_the_confirmation_page_and_the_previewed_form_have_no_serious_accessibility_violations(
    open_page, editor_state, axe, pending,
):
    _, comments = pending
    page = open_page(state=editor_state, width=390)
    page.goto(MODERATION_URL)
    _row(page, comments[0]).get_by_role("button", name="Ban commenter").click()
    expect(page.locator(".confirm-summary")).to_be_visible()
    violations, described = axe(page)
    assert not violations, described

    page.goto("/dashboard/posts/new/")
    page.get_by_label("Title").fill("Checked")
    page.get_by_label("Content").fill("Some *text*.")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("section.preview em")).to_have_text("text")
    violations, described = axe(page)
    assert not violations, described
