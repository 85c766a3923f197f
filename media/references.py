"""How a post refers to a library image, and finding the images a post shows.
No database.

A post shows a library image with Markdown's own image syntax and the image's
library address: `![Alt text](/media/<key>/ "Caption")` (image_markdown). Any
Markdown renderer shows it as a plain image (the address redirects to its largest
rendition); Slugline's renders it responsive (media/render.py), and as a figure with
the caption when the image stands alone in its paragraph.

Which images a post shows is read from what it renders, not from one spelling of its
Markdown: the post goes through the site's renderer (infra.markup, before the hooks)
and every address in the HTML that a browser would load a library image from (an
image's src and srcset, a link's href) names a key, however it was written: a title
in any quotes, reference-style, raw `<img>`, a destination in `<…>`, a query
string, the site's absolute address, a rendition's address.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from infra.markup import sanitised_post_html

KEY = r"[0-9a-f]{32}"
# The library address Markdown names (the renderer's hook makes these responsive).
LIBRARY_SRC = re.compile(r"^/media/(" + KEY + r")/$")
# Every path that serves one of its pictures: the library address (also without its
# slash, which Django's APPEND_SLASH adds), and its renditions.
_SERVED_PATH = re.compile(r"^/media/(" + KEY + r")(?:/|$)")
# What a post's relative addresses are resolved against: a post's own page.
_POST_PAGE = "/posts/post/"
# What CommonMark lets a backslash escape and an alt text would otherwise lose or
# change: escapes themselves, brackets, emphasis, code, character references, and a
# leading caret (cmark-gfm reads `![^` as a footnote and shows a link), and `<` (`<A0:>` is an autolink).
_ALT_SPECIAL = re.compile(r"([\\\[\]*_`&^<])")
# A browser drops these from an address before it reads it (WHATWG URL).
_URL_IGNORED = re.compile(r"[\t\n\r]")


def image_markdown(*, key: str, alt: str, caption: str = "") -> str:
    """The Markdown that shows library image `key`."""
    alt = _ALT_SPECIAL.sub(r"\\\1", " ".join(alt.split()))
    title = ' "' + re.sub(r'(["\\&])', r"\\\1", " ".join(caption.split())) + '"' if caption.strip() else ""
    return f"![{alt}](/media/{key}/{title})"


def library_key(address: str) -> str | None:
    """The key of the library picture an address in a post loads, if it loads one."""
    cleaned = _URL_IGNORED.sub("", address).strip().replace("\\", "/")
    resolved = urlsplit(urljoin(settings.SITE_URL + _POST_PAGE, cleaned))
    if resolved.scheme not in ("http", "https") or not _is_this_site(resolved.netloc):
        return None
    match = _SERVED_PATH.match(unquote(resolved.path))
    return match.group(1) if match else None


def _is_this_site(netloc: str) -> bool:
    host, _port = split_domain_port(netloc.rpartition("@")[2])
    site, _ = split_domain_port(urlsplit(settings.SITE_URL).netloc)
    return bool(host) and validate_host(host, [site, *settings.ALLOWED_HOSTS])


class _Addresses(HTMLParser):
    """The addresses a post's HTML loads or links, in order: (tag, address, alt)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        addresses = [values.get("href", "")] if tag == "a" else []
        if tag in ("img", "source"):
            addresses = [values.get("src", "")] + [
                candidate.split()[0] for candidate in values.get("srcset", "").split(",") if candidate.split()
            ]
        self.found += [(tag, address, values.get("alt", "")) for address in addresses if address]


def _shown(text: str) -> list[tuple[str, str, str]]:
    """(tag, key, alt) of each library address the rendered post names, in order."""
    parser = _Addresses()
    parser.feed(sanitised_post_html(text))
    parser.close()
    return [(tag, key, alt) for tag, address, alt in parser.found if (key := library_key(address))]


def referenced(text: str) -> list[tuple[str, str]]:
    """(key, alt text) of each library image the post's Markdown shows, in order."""
    return list(dict.fromkeys((key, alt.strip()) for tag, key, alt in _shown(text) if tag == "img"))


def keys_in(text: str) -> list[str]:
    """The distinct library keys the post's Markdown shows or links, in order of first use."""
    return list(dict.fromkeys(key for _tag, key, _alt in _shown(text)))
