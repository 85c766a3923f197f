"""Summaries for lists: pure functions of a post's stored fields (its excerpt, else
the first paragraph of its HTML, cut at a word boundary)."""

from __future__ import annotations

from html.parser import HTMLParser

SUMMARY_LENGTH = 280
ELLIPSIS = "\u2026"


class _Paragraphs(HTMLParser):
    """The plain text of the first `<p>` of sanitised HTML that has any, and the text
    of the whole (for HTML without one)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.first: str | None = None
        self.everything: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "p" and self._open is None:
            self._open = []
        elif tag == "br" and self._open is not None:
            self._open.append(" ")

    def handle_endtag(self, tag):
        if tag == "p" and self._open is not None:
            if self.first is None:
                self.first = plain("".join(self._open)) or None
            self._open = None

    def handle_data(self, data):
        self.everything.append(data)
        if self._open is not None:
            self._open.append(data)


def plain(text: str) -> str:
    """`text` with its runs of whitespace (line breaks too) made single spaces."""
    return " ".join(text.split())


# How much of a post's HTML is parsed at a time while looking for its first paragraph:
# lists summarise every post they show, and a long post need not be parsed whole.
_CHUNK = 1024


def first_paragraph(html: str) -> str:
    """The plain text of the first paragraph of `html` that has any (headings, images
    and code before it are passed over); without one, all of its text."""
    parser = _Paragraphs()
    for start in range(0, len(html), _CHUNK):
        parser.feed(html[start:start + _CHUNK])
        if parser.first is not None:
            return parser.first
    parser.close()
    return parser.first if parser.first is not None else plain("".join(parser.everything))


def shorten(text: str, *, limit: int = SUMMARY_LENGTH) -> str:
    """`text` as it is if it fits in `limit` characters, else cut at the last word
    boundary before it, with an ellipsis (a single word longer than that is cut)."""
    text = plain(text)
    if len(text) <= limit:
        return text
    cut = text[: limit + 1 - len(ELLIPSIS)]
    head = cut.rsplit(" ", 1)[0] if " " in cut else cut[:-1]
    return head.rstrip(" ,;:.-\u2013\u2014") + ELLIPSIS


def summarise(*, excerpt: str, content_html: str, limit: int = SUMMARY_LENGTH) -> str:
    """A post's summary on lists: its own excerpt, else its first paragraph."""
    return shorten(excerpt if excerpt.strip() else first_paragraph(content_html), limit=limit)
