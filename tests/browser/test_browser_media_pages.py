"""The dashboard's picture pages in a browser: a picture's page never scrolls sideways
(its Markdown wraps, and "Copy the Markdown" copies it), and "Insert a picture" leaves
the cursor on a new paragraph, so the next paragraph typed keeps the picture a figure."""

import re

import pytest
from playwright.sync_api import expect

from media import services
from tests.browser.test_browser_screenshots import overflow
from tests.pictures import picture

WIDTHS = (390, 1280)
LONG_ALT = "Fishing boats moored along the old harbour wall at dawn, nets drying on the quay"


def add_image(**fields):
    return services.upload_image(data=picture(1200, 800, color=(30, 90, 160)), name="harbour-wall-at-dawn.jpg",
                                 alt=LONG_ALT, decorative=False, caption="The harbour at dawn, from the lighthouse",
                                 uploaded_by="edith", **fields)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_pictures_page_fits_the_screen_and_copies_its_markdown(open_page, editor_state, width):
    image = add_image()
    page = open_page(width=width, state=editor_state)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"/dashboard/media/{image.key}/")
    markdown = page.locator("#media-markdown")
    expect(markdown).to_contain_text(f"/media/{image.key}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, overflow(page)
    assert not overflow(page), overflow(page)
    page.get_by_role("button", name="Copy the Markdown").click()
    expect(page.get_by_role("status").filter(has_text="Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == markdown.text_content()


def test_without_javascript_the_markdown_wraps_and_no_copy_button_shows(open_page, editor_state):
    image = add_image()
    page = open_page(js=False, width=390, state=editor_state)
    page.goto(f"/dashboard/media/{image.key}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, overflow(page)
    expect(page.get_by_role("button", name="Copy the Markdown")).to_be_hidden()


@pytest.mark.parametrize("before", ["We walked down before sunrise.", "", "First.\n\nSecond, where the cursor is."])
def test_the_next_paragraph_typed_after_inserting_a_picture_is_a_paragraph_of_its_own(
    open_page, editor_state, before
):
    image = add_image()
    page = open_page(state=editor_state)
    page.goto("/dashboard/posts/new/")
    content = page.get_by_label("Content")
    content.fill(before)
    page.locator(".image-picker summary").click()
    page.locator(".image-picker").get_by_role("button", name=re.compile("^Insert")).first.click()
    page.keyboard.type("Then we had breakfast.")
    value = content.input_value()
    assert re.search(rf'\n\n!\[[^\n]*\]\(/media/{image.key}/ "[^"\n]*"\)\n\nThen we had breakfast\.$', "\n\n" + value), value
    page.get_by_role("button", name="Preview").click()
    expect(page.locator(".preview figcaption")).to_have_text("The harbour at dawn, from the lighthouse")
    expect(page.locator(".preview p").last).to_have_text("Then we had breakfast.")


def test_a_picture_inserted_mid_text_leaves_the_text_after_it_a_paragraph_apart(open_page, editor_state):
    image = add_image()
    page = open_page(state=editor_state)
    page.goto("/dashboard/posts/new/")
    content = page.get_by_label("Content")
    content.fill("Before the picture.\nAfter it.")
    content.evaluate("area => area.setSelectionRange(19, 19)")
    page.locator(".image-picker summary").click()
    page.locator(".image-picker").get_by_role("button", name=re.compile("^Insert")).first.click()
    page.keyboard.type("Typed.")
    value = content.input_value()
    assert value.startswith("Before the picture.\n\n![") and value.endswith(')\n\nTyped.\n\nAfter it.'), value
