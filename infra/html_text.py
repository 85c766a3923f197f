"""The text of HTML: what a reader would read, tags dropped, for search and excerpts.

Pure: Python's own HTML parser, no I/O.
"""

from __future__ import annotations

from html.parser import HTMLParser

# Inline elements: their text runs on into the words around them. Every other element
# (a paragraph, a list item, a line break, an image) separates words.
INLINE = frozenset({
    "a", "abbr", "b", "code", "del", "em", "i", "ins", "kbd", "mark", "q", "s", "small", "span",
    "strong", "sub", "sup", "u",
})


class _Text(HTMLParser):
    """All the text of some HTML, with a space where a block begins or ends."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in INLINE:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        self.handle_starttag(tag, [])

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(html: str) -> str:
    """The text of `html` with its tags dropped, entities decoded and blocks apart
    ("<p>One</p><p>T<em>wo</em></p>" is "One Two"), runs of whitespace made single
    spaces."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return " ".join("".join(parser.parts).split())
