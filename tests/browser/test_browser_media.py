"""An editor's journey with a picture: upload it in the dashboard's media library,
insert it into a post with its alt text, publish, and see the post's responsive
picture, at 390 px (where the browser picks a smaller rendition) and 1280 px; both
pages pass axe."""

import re

from playwright.sync_api import expect

from tests.pictures import picture


def _rendition_in_use(page) -> str:
    image = page.locator(".post-body figure img")
    image.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    return image.evaluate("img => img.currentSrc")


def test_editor_uploads_a_picture_inserts_it_and_readers_get_the_right_size(open_page, log_in, axe):
    page = open_page()
    log_in(page)
    page.locator(".dashboard-nav").get_by_role("link", name="Media").click()
    page.locator("input[type=file][name=file]").set_input_files(
        {"name": "harbour.jpg", "mimeType": "image/jpeg", "buffer": picture(2000, 1333, color=(30, 90, 160))}
    )
    page.locator("#id_alt").fill("Fishing boats moored in the harbour")
    page.locator("#id_caption").fill("The harbour at dawn")
    page.get_by_role("button", name="Upload").click()
    expect(page.locator(".messages")).to_contain_text("Picture added to the library.")
    violations, described = axe(page)
    assert not violations, described

    page.get_by_role("link", name="New post").click()
    page.get_by_label("Title").fill("A morning at the harbour")
    page.get_by_label("Content").fill("We walked down before sunrise.")
    page.locator(".image-picker summary").click()
    page.locator(".image-picker").get_by_role("button", name=re.compile("^Insert")).first.click()
    expect(page.get_by_label("Content")).to_have_value(
        re.compile(r'^We walked down before sunrise\.\n\n!\[Fishing boats moored in the harbour\]\(/media/[0-9a-f]{32}/ "The harbour at dawn"\)\n\n$')
    )
    page.get_by_role("button", name="Preview").click()
    expect(page.locator(".preview figcaption")).to_have_text("The harbour at dawn")
    page.get_by_role("radio", name=re.compile("^Publish:")).check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Post created.")
    post_url = page.get_by_role("link", name="View on the site").get_attribute("href")

    sizes = {}
    for width in (1280, 390):
        reader = open_page(width=width, csp=True)
        reader.goto(post_url)
        figure_image = reader.locator(".post-body figure img")
        expect(figure_image).to_have_attribute("alt", "Fishing boats moored in the harbour")
        expect(figure_image).to_have_attribute("width", "1600")
        expect(reader.locator(".post-body figcaption")).to_have_text("The harbour at dawn")
        sizes[width] = int(re.search(r"/(\d+)\.webp$", _rendition_in_use(reader)).group(1))
        box = figure_image.bounding_box()
        assert box["width"] <= width and abs(box["height"] / box["width"] - 1067 / 1600) < 0.01
        reader_axe = open_page(width=width)
        reader_axe.goto(post_url)
        violations, described = axe(reader_axe)
        assert not violations, f"{width} px: {described}"
    assert sizes == {1280: 1024, 390: 640}
