"""The site in each of its languages, in a real browser: home, a post with comments
and the dashboard at desktop and phone widths, screenshots under var/screenshots/,
axe-core clean, <html lang> right, and the language switcher working without
JavaScript."""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.browser.test_browser_screenshots import WIDTHS, shoot

LANGUAGES = [code for code, _name in settings.LANGUAGES]
# The page heading each language gives the home page (from locale/*/django.po).
HOME_HEADINGS = {"en": "Latest posts", "vi": "Bài viết mới nhất", "hi": "नई पोस्टें", "id": "Tulisan terbaru"}


def in_language(page, site, language: str):
    """The page's browser as a reader who chose `language` with the switcher."""
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": site.url}])
    return page


@pytest.mark.parametrize("device", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_reads_well_and_passes_axe(open_page, site, discussion, editor_state, axe, screenshots,
                                                 language, device):
    width = WIDTHS[device]
    pages = {
        "home": (open_page(width=width), "/"),
        "post": (open_page(width=width), f"/posts/{discussion.post.slug}/"),
        "dashboard": (open_page(width=width, state=editor_state), "/dashboard/"),
    }
    for name, (page, url) in pages.items():
        in_language(page, site, language).goto(url)
        assert page.get_attribute("html", "lang") == language, name
        shoot(page, screenshots, f"language-{language}-{name}", width)
        violations, described = axe(page)
        assert violations == [], f"{language} {name} at {width}px:\n{described}"
    home = pages["home"][0]
    home.goto("/")
    assert home.locator("h1").inner_text() == HOME_HEADINGS[language]


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_the_switcher_works_without_javascript(open_page, discussion, language):
    """With JavaScript off, choosing a language and pressing the button lands on the
    same page (query included), now in that language; the choice stays."""
    page = open_page(js=False, width=390)
    url = f"/posts/{discussion.post.slug}/comments/?view=chronological"
    page.goto(url)
    assert page.get_attribute("html", "lang") == "en"
    switcher = page.locator("form.language-switcher")
    switcher.get_by_label("Language").select_option(language)
    switcher.get_by_role("button").click()
    # The address ends the same before and after the form's redirect: wait for the language.
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert page.url.endswith(url)
    page.goto("/")
    assert page.locator("h1").inner_text() == HOME_HEADINGS[language]


def test_the_switcher_is_reachable_by_keyboard(open_page):
    """Tab reaches the language menu and its button."""
    page = open_page(width=390)
    page.goto("/")
    reached = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.closest('form.language-switcher') ? "
                                  "document.activeElement.tagName : ''"))
    assert {"SELECT", "BUTTON"} <= reached
