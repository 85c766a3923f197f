"""Screenshots at desktop and phone widths, kept under var/screenshots/ to look at,
and what can be checked without eyes: nothing is wider than the screen, and the
deepest comments keep a readable width."""

import pytest
from playwright.sync_api import expect

WIDTHS = {"desktop": 1280, "phone": 390}


def overflow(page) -> list[str]:
    """Elements that stick out past the right edge of the screen (not counting those
    inside a box that scrolls sideways, such as a code block)."""
    return page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const inScroller = el => {
            for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
              if (['auto', 'scroll'].includes(getComputedStyle(up).overflowX)) return true;
            }
            return false;
          };
          const out = [...document.querySelectorAll('body *')].filter(el => {
            const box = el.getBoundingClientRect();
            return box.width > 0 && box.right > width + 1 && !inScroller(el);
          });
          return out.slice(0, 5).map(el => el.tagName.toLowerCase() + '.' + el.className + ': ' + el.outerHTML.slice(0, 80));
        }"""
    )


def shoot(page, folder, name: str, width: int) -> None:
    page.screenshot(path=folder / f"{name}-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width, overflow(page)
    assert not overflow(page)
    assert "{#" not in page.inner_text("body"), "a template comment shows on the page"


@pytest.mark.parametrize("device", WIDTHS)
def test_reader_pages_fit_the_screen(open_page, discussion, screenshots, device):
    width = WIDTHS[device]
    page = open_page(width=width)
    page.goto("/")
    shoot(page, screenshots, "home", width)

    page.goto(f"/posts/{discussion.post.slug}/")
    expect(page.locator(".continue-thread")).to_be_visible()
    shoot(page, screenshots, "post-deep-thread", width)
    deepest = page.locator(f"#{discussion.chain[4].anchor}").bounding_box()
    assert deepest["width"] >= 0.6 * min(width, 44 * 16), "the deepest indented comment is too narrow"

    # Oldest first, page 1 holds a long address, a long word and a code block.
    page.goto(f"/posts/{discussion.post.slug}/comments/?view=chronological")
    shoot(page, screenshots, "comments-long-words-and-code", width)
    code = page.locator(f"#{discussion.top[2].anchor} pre")
    assert code.evaluate("pre => pre.scrollWidth > pre.clientWidth"), "the long code line scrolls in its box"

    page.goto(f"/posts/{discussion.post.slug}/")
    page.locator(f"#{discussion.chain[4].anchor}").get_by_role("link", name="Reply to").click()
    expect(page.locator("form.inline-reply textarea")).to_be_focused()
    shoot(page, screenshots, "post-inline-reply", width)

    page.goto(f"/posts/{discussion.post.slug}/comments/{discussion.deepest.slug}/")
    shoot(page, screenshots, "permalink", width)


@pytest.mark.parametrize("device", WIDTHS)
def test_dashboard_pages_fit_the_screen(open_page, log_in, discussion, pending, screenshots, device):
    width = WIDTHS[device]
    page = open_page(width=width)
    log_in(page)
    shoot(page, screenshots, "dashboard", width)
    moderation = page.locator(".dashboard-nav a", has_text="oderat")
    if moderation.count():
        moderation.first.click()
        shoot(page, screenshots, "moderation-queue", width)
