"""A keyboard user reaches the comment form of a post with a page of comments in a
handful of key presses, with JavaScript on and off: the skip links lead to the comments
and to the form, and a link by the comment count jumps to the form."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])

# More than a handful is what a keyboard user should never need.
HANDFUL = 6
# Where a reader Tabbing through every comment gives up counting.
GIVE_UP = 80


def focused(page) -> dict:
    return page.evaluate("""() => {
        const e = document.activeElement;
        return {tag: e.tagName, href: e.getAttribute('href') || '', form: e.form ? e.form.id : '',
                text: (e.textContent || '').trim()};
    }""")


def presses_to_the_form(page, *, takes: set[str]) -> int:
    """Key presses from the top of the page until the comment form's text box has the
    focus: Tab, and Enter on a focused link whose address is one of `takes`."""
    presses = 0
    while presses < GIVE_UP:
        page.keyboard.press("Tab")
        presses += 1
        now = focused(page)
        if now["tag"] == "TEXTAREA" and now["form"] == "reply":
            return presses
        if now["href"] in takes:
            expect(page.locator(":focus")).to_be_in_viewport()  # a skip link shows when focused
            page.keyboard.press("Enter")
            presses += 1
    return presses


def test_the_skip_links_reach_the_comment_form_in_a_handful_of_presses(open_page, discussion, js):
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/")
    presses = presses_to_the_form(page, takes={"#reply"})
    assert presses <= HANDFUL, f"{presses} key presses to reach the comment form"


def test_the_link_by_the_comment_count_jumps_to_the_form(open_page, discussion, js):
    """From "Skip to comments", the first stop in the comments is "Write a comment"."""
    page = open_page(js=js)
    page.goto(f"/posts/{discussion.post.slug}/")
    for _ in range(HANDFUL):
        page.keyboard.press("Tab")
        if focused(page)["href"] == "#comments":
            break
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    jump = page.locator(":focus")
    expect(jump).to_have_text("Write a comment")
    expect(jump).to_have_attribute("href", "#reply")
    expect(jump).to_be_in_viewport()
    assert jump.evaluate("a => a.closest('#comments') !== null")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator("form#reply textarea")).to_be_focused()
