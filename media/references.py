"""How Markdown refers to a library image, and finding the references in a post.
Pure: no database.

A post shows a library image with Markdown's own image syntax and the image's
library address: `![Alt text](/media/<key>/ "Caption")`. Any Markdown renderer shows
it as a plain image (the address redirects to its largest rendition); Slugline's
renders it responsive (media/render.py), and as a figure with the caption when the
image stands alone in its paragraph.
"""

from __future__ import annotations

import re

KEY = r"[0-9a-f]{32}"
# A Markdown image whose destination is a library image: alt text, key, optional title.
MARKDOWN_IMAGE = re.compile(
    r"!\[(?P<alt>(?:[^\[\]\\]|\\.)*)\]\(\s*/media/(?P<key>" + KEY + r")/\s*"
    r"(?:\"(?P<title>(?:[^\"\\]|\\.)*)\")?\s*\)"
)
LIBRARY_SRC = re.compile(r"^/media/(" + KEY + r")/$")


def image_markdown(*, key: str, alt: str, caption: str = "") -> str:
    """The Markdown that shows library image `key`."""
    alt = re.sub(r"([\[\]\\])", r"\\\1", " ".join(alt.split()))
    title = ' "' + re.sub(r'(["\\])', r"\\\1", " ".join(caption.split())) + '"' if caption.strip() else ""
    return f"![{alt}](/media/{key}/{title})"


def referenced(text: str) -> list[tuple[str, str]]:
    """(key, alt text) of each library image the Markdown shows, in order."""
    return [(m["key"], re.sub(r"\\(.)", r"\1", m["alt"]).strip()) for m in MARKDOWN_IMAGE.finditer(text)]


def keys_in(text: str) -> list[str]:
    """The distinct library keys the Markdown shows, in order of first use."""
    return list(dict.fromkeys(key for key, _ in referenced(text)))
