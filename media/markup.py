"""The post renderer's hook for library images (infra.markup.register_post_html_hook).

In a post's sanitised HTML, an `<img src="/media/<key>/">` becomes a responsive
picture (media/render.py), and one standing alone in its paragraph a `<figure>` with
its Markdown title as the caption. An image no longer in the library is shown as its
alt text. One query for all the images of a post.
"""

from __future__ import annotations

import re
from html import escape, unescape

from media import library, references, render

_ALONE = re.compile(r"<p>\s*(<img [^>]*>)\s*</p>")
_IMG = re.compile(r"<img [^>]*>")
_ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')


def _attributes(tag: str) -> dict[str, str]:
    return {name: unescape(value) for name, value in _ATTRIBUTE.findall(tag)}


def _library_key(tag: str) -> str | None:
    match = references.LIBRARY_SRC.match(_attributes(tag).get("src", ""))
    return match.group(1) if match else None


def responsive_images(html: str) -> str:
    """`html` with its library images made responsive."""
    keys = {key for tag in _IMG.findall(html) if (key := _library_key(tag))}
    if not keys:
        return html
    found = library.find_by_keys(keys)

    def shown(tag: str, *, alone: bool) -> str | None:
        key = _library_key(tag)
        if key is None:
            return None
        attributes = _attributes(tag)
        image = found.get(key)
        if image is None:
            return f'<span class="media-missing">{escape(attributes.get("alt", ""))}</span>'
        alt = render.shown_alt(image, attributes.get("alt", ""))
        if alone:
            return render.figure_html(image, alt=alt, caption=attributes.get("title", ""))
        return render.picture_html(image, alt=alt)

    html = _ALONE.sub(lambda m: shown(m.group(1), alone=True) or m.group(0), html)
    return _IMG.sub(lambda m: shown(m.group(0), alone=False) or m.group(0), html)
