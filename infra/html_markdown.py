"""HTML written elsewhere as the Markdown this site stores: the one HTML -> Markdown
path, used by both importers (WordPress posts in cms/wxr, imported comments in
comments/transfer/importing.py).

It is markdownify, configured, with a few conversions of its own where the site's
renderer (infra/markup.py) needs them:
- everything Markdown would read as markup in the text is escaped, so it stays text
  (`1986.` does not start a list, `*` is no emphasis, `<tag>` is no tag);
- a line break is a backslash at the end of the line; headings are ATX (`## Title`),
  bullets `-`, code blocks fenced with more backticks than their longest run;
- link and image addresses with spaces or brackets are written `<...>`, image alt
  text is escaped (its Markdown would be lost from the alt), titles are kept;
- what Markdown has no syntax for but the renderer's sanitiser keeps (`sup`, `sub`,
  `del`, `abbr`) stays an inline tag, and tables, figures, definition lists and
  `details` stay whole HTML blocks (with no blank line, which would end the block);
- scripts, styles, frames and form controls go with their content;
- elements nested deeper than the renderer shows (markup.NESTING_LIMIT) are dropped,
  their text kept: markdownify walks the tree recursively, so it must stay shallow.

A fragment of paragraphs, line breaks, links, emphasis, code spans and quotes alone
(most comments) is converted by infra/html_markdown_fast.py instead, to the same
Markdown in a tenth of the time; anything else takes markdownify's path.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bs4 import BeautifulSoup, Comment, Tag
from bs4.element import NavigableString
from markdownify import ATX, BACKSLASH, MarkdownConverter

from infra.html_markdown_fast import BLOCKS, INLINE_HTML, convert, destination, link, title
from infra.markup import NESTING_LIMIT

# Dropped with everything in them.
DROPPED = frozenset(
    ["script", "style", "noscript", "template", "iframe", "object", "form", "input", "button", "select",
     "textarea"]
)
# Kept as HTML blocks, whole.
RAW_BLOCKS = frozenset(["table", "figure", "dl", "details"])
__all__ = ["DROPPED", "INLINE_HTML", "RAW_BLOCKS", "by_markdownify", "to_markdown"]

_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n)+")
_ALT_SPECIAL = re.compile(r"([\\`*_\[\]<>&|])")
_BACKTICKS = re.compile(r"`+")


def _attribute(el: Tag, name: str) -> str:
    """An attribute's value ("" if absent); one bs4 reads as a list, joined by spaces."""
    value = el.get(name)
    if isinstance(value, list):
        return " ".join(value)
    return value or ""


def _inline_tag(name: str) -> Callable[[MarkdownConverter, Tag, str, set[str]], str]:
    def convert(self: MarkdownConverter, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_noformat" in parent_tags or not text.strip():
            return text
        return f"<{name}>{text}</{name}>"

    return convert


class _Converter(MarkdownConverter):
    # Over markdownify's DefaultOptions (which its constructor applies first).
    class Options:
        heading_style = ATX
        bullets = "-"
        escape_misc = True
        code_language = ""
        newline_style = BACKSLASH
        autolinks = False

    # markdownify's type stub leaves out process_tag and the convert_* methods it has.
    def process_tag(self, node: Tag, parent_tags: set[str] | None = None) -> str:
        if node.name in DROPPED:
            return ""
        if node.name in RAW_BLOCKS and "_inline" not in (parent_tags or ()):
            return "\n\n" + _BLANK_LINES.sub("\n", _raw(node)).strip() + "\n\n"
        return super().process_tag(node, parent_tags)  # type: ignore[misc]

    def convert_br(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        if _at_block_edge(el, "previous_sibling") or _at_block_edge(el, "next_sibling"):
            return text
        return super().convert_br(el, text, parent_tags)  # type: ignore[misc]

    def convert_a(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        if "_noformat" in parent_tags:
            return text
        return link(text, _attribute(el, "href"), _attribute(el, "title"))

    def convert_img(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        src = _attribute(el, "src").strip()
        alt = _ALT_SPECIAL.sub(r"\\\1", " ".join(_attribute(el, "alt").split()))
        if "_inline" in parent_tags:
            return alt
        return f"![{alt}]({destination(src)}{title(_attribute(el, 'title'))})" if src else ""

    def convert_pre(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        code = text.strip("\n")
        if not code.strip():
            return ""
        fence = "`" * max(3, max((len(run) for run in _BACKTICKS.findall(code)), default=0) + 1)
        return f"\n\n{fence}\n{code}\n{fence}\n\n"

    convert_sup = _inline_tag("sup")
    convert_sub = _inline_tag("sub")
    convert_del = _inline_tag("del")
    convert_s = _inline_tag("del")
    convert_abbr = _inline_tag("abbr")


def _at_block_edge(el: Tag, direction: str) -> bool:
    """Whether nothing but whitespace (or a line break) lies between `el` and the edge
    of its parent, or a block, in `direction`."""
    node = getattr(el, direction)
    while node is not None:
        if isinstance(node, Tag):
            if node.name == "br":
                node = getattr(node, direction)
                continue
            return node.name in BLOCKS
        if isinstance(node, NavigableString) and not isinstance(node, Comment) and node.strip():
            return False
        node = getattr(node, direction)
    return True


def _raw(node: Tag) -> str:
    """The element as HTML again, without what is dropped (for what stays HTML)."""
    for dropped in node.find_all(list(DROPPED)):
        dropped.decompose()
    return str(node)


def _flatten_deep(soup: BeautifulSoup) -> None:
    """Replace what is inside every element at depth NESTING_LIMIT by its text alone;
    walked with a stack of its own, since the tree may be thousands of levels deep."""
    stack: list[tuple[Tag, int]] = [(soup, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= NESTING_LIMIT:
            if any(isinstance(child, Tag) for child in node.children):
                text = node.get_text()
                node.clear()
                node.append(NavigableString(text))
            continue
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tag))


def to_markdown(html: str) -> str:
    """`html` (a fragment) as Markdown that renders as it did, without surrounding
    blank lines: infra/html_markdown_fast.py's when the fragment is made of the few
    tags it reads (the same Markdown), else markdownify's (`by_markdownify`)."""
    quick = convert(html or "")
    return quick.strip() if quick is not None else by_markdownify(html)


def by_markdownify(html: str) -> str:
    """`html` as Markdown by markdownify on BeautifulSoup's tree: any HTML."""
    soup = BeautifulSoup(html or "", "html.parser")
    _flatten_deep(soup)
    return _CONVERTER.convert_soup(soup).strip()


_CONVERTER = _Converter()  # it keeps nothing between fragments but its table of conversions
