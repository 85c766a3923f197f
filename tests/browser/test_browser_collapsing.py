"""A reader collapses a branch of comments from the keyboard (js/section.js remembers it
for the page: a reload finds it still collapsed), and a link to a comment inside the
collapsed branch opens the branches around it."""

from playwright.sync_api import expect


def test_a_collapsed_branch_stays_collapsed_and_a_link_into_it_opens_it(open_page, discussion):
    top, chain = discussion.top, discussion.chain
    url = f"/posts/{discussion.post.slug}/"
    page = open_page(js=True)
    page.goto(url)
    branch = page.locator(f"details.comment-replies[data-branch='{top[0].slug}']")
    summary = branch.locator(":scope > summary")
    expect(summary).to_have_text("Hide 5 replies", use_inner_text=True)
    expect(page.locator(f"details.comment-replies[data-branch='{chain[0].slug}'] > summary")).to_have_text(
        "Hide 4 replies", use_inner_text=True)
    summary.focus()
    page.keyboard.press("Enter")
    expect(branch).not_to_have_attribute("open", "")
    expect(summary).to_have_text("Show 5 replies", use_inner_text=True)
    expect(page.locator(f"#{chain[0].anchor}")).to_be_hidden()
    expect(page.locator(f"#{top[0].anchor}")).to_be_visible()

    page.reload()
    expect(summary).to_have_text("Show 5 replies", use_inner_text=True)
    expect(page.locator(f"#{chain[2].anchor}")).to_be_hidden()

    # A link into the collapsed branch, from another page and within this one.
    page.goto("/")
    page.goto(f"{url}#{chain[2].anchor}")
    expect(page.locator(f"#{chain[2].anchor}")).to_be_visible()
    expect(summary).to_have_text("Hide 5 replies", use_inner_text=True)
    summary.click()
    expect(page.locator(f"#{chain[3].anchor}")).to_be_hidden()
    page.evaluate(f"window.location.hash = '{chain[3].anchor}'")
    expect(page.locator(f"#{chain[3].anchor}")).to_be_visible()
