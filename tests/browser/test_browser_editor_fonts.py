"""The post editor's textarea draws every language's letters with a font that has
them (issue 25): Vietnamese's stacked marks as one letter (DejaVu Sans Mono, Linux's
monospace, has no "ế" and drew "viết" as "viêt́"), Devanagari with a Devanagari
font. Chromium says which fonts it drew a node's text with (CSS.getPlatformFontsForNode);
screenshots go to var/screenshots/editor-font-<language>-1280.png."""

import subprocess

import pytest

from tests.browser.test_browser_screenshots import shoot

SAMPLES = {
    "en": "Write your post here: a naïve café",
    "vi": "Viết bài: tiếng Việt có dấu — ế ộ ữ ặ ỹ",
    "hi": "नमस्ते दुनिया, टिप्पणियाँ क्षत्रिय",
    "id": "Tulis tulisan Anda di sini",
}
# A letter of each language that a font must have to draw its text whole.
NEEDS = {"en": "ï", "vi": "ế", "hi": "क्ष", "id": "a"}


def families_with(text: str) -> set[str]:
    """The installed font families that have every character of `text` (fontconfig)."""
    charset = " ".join(f"{ord(ch):x}" for ch in text)
    listed = subprocess.run(["fc-list", f":charset={charset}", "family"], capture_output=True, text=True).stdout
    return {name.strip() for line in listed.splitlines() for name in line.split(",")}


def fonts_drawing(page, selector: str) -> dict[str, int]:
    """Font family -> glyphs Chromium drew of the text inside `selector` (its shadow tree too)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
    target = cdp.send("DOM.querySelector", {"nodeId": root["nodeId"], "selector": selector})["nodeId"]

    def find(node):
        if node["nodeId"] == target:
            return node
        for key in ("children", "shadowRoots"):
            for child in node.get(key, []):
                if (found := find(child)) is not None:
                    return found
        return None

    def texts(node):
        if node.get("nodeType") == 3:
            yield node
        for key in ("children", "shadowRoots"):
            for child in node.get(key, []):
                yield from texts(child)

    used: dict[str, int] = {}
    for text in texts(find(root)):
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": text["nodeId"]})["fonts"]:
            used[font["familyName"]] = used.get(font["familyName"], 0) + font["glyphCount"]
    return used


@pytest.mark.parametrize("language", list(SAMPLES))
def test_the_post_editor_draws_each_languages_letters_with_a_font_that_has_them(
    open_page, editor_state, screenshots, language
):
    page = open_page(state=editor_state)
    page.goto("/dashboard/posts/new/")
    page.locator("textarea").first.fill(SAMPLES[language])
    page.locator("textarea").first.evaluate("(area) => area.setAttribute('data-sample', 'yes')")
    used = fonts_drawing(page, "textarea[data-sample]")
    shoot(page, screenshots, f"editor-font-{language}", 1280)
    main = max(used, key=used.get)
    assert main in families_with(NEEDS[language]), f"{language}: drawn with {used}"
    assert "DejaVu Sans Mono" not in used, f"{language}: drawn with {used}"
