"""Markdown to safe HTML, for posts (trusted authors) and comments (anyone).

Rendering happens once, when text is written, inside the request; pages show the
stored HTML. Anyone may send a comment, so no text may make rendering slow: the parser
is cmark-gfm (GitHub's C CommonMark, through cmarkgfm), whose time is linear in the
text and which recurses nowhere. What stays to bound is the depth of what it makes:
the sanitiser's HTML parser slows with the depth of open elements times their number.
So a text whose Markdown nests deeper than NESTING_LIMIT elements, or grows more than
GROWTH_LIMIT times as HTML, or carries more raw HTML start tags than its limit, is
shown as plain text. nh3 then keeps only the allowed tags and attributes.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from html import escape
from typing import Any

import nh3
from cmarkgfm import _cmark
from cmarkgfm.cmark import Options

COMMENT_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4",
    "hr", "i", "li", "ol", "p", "pre", "strong", "sub", "sup", "ul",
}
_POST_TAGS = COMMENT_TAGS | {"h1", "h5", "h6", "img", "table", "thead", "tbody", "tr", "th", "td"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "img": {"src", "alt", "title"}}
# A code block scrolls sideways rather than widen the page; tabindex lets a keyboard
# reach it to scroll it (every browser, not only those that focus scrollers).
_SET_ATTRIBUTES = {"pre": {"tabindex": "0"}}

# Elements inside elements: ten lists inside each other are twenty (list and item),
# with room left for quotes, paragraphs and emphasis. Nobody writes deeper.
NESTING_LIMIT = 32
# HTML characters per character of Markdown: ordinary text makes one to three, and
# "&" five; a post's table whose rows have fewer cells than its header makes hundreds
# (cmark-gfm pads every row, up to its own cap of cells).
GROWTH_LIMIT = 20
# Raw HTML start tags: a comment's few links and bold words fit, as does a post's
# hand-written table. Raw tags nest as deep as they like (Markdown cannot), and every
# element after them costs the sanitiser that depth: these keep the product small.
COMMENT_RAW_TAG_LIMIT = 200
POST_RAW_TAG_LIMIT = 2_000

# cmark's own output, or the sanitiser's: every tag in it is well formed (text and
# attributes are escaped).
_TAG = re.compile(r"<(/?)([a-z][a-z0-9]*)[^>]*?(/?)>")
# Elements that never hold others (the sanitiser writes `<br>`, cmark `<br />`).
_VOID = {"br", "hr", "img", "wbr", "input", "col", "area", "base", "embed", "source", "track", "link", "meta"}
_START_TAG = re.compile(r"<[A-Za-z]")
# Raw HTML is kept (the sanitiser decides what stays), as are unsafe URLs (the
# sanitiser drops them from the link and keeps its text).
_RAW = Options.CMARK_OPT_UNSAFE
_COMMENT_OPTIONS = Options.CMARK_OPT_HARDBREAKS
_POST_EXTENSIONS = ("table",)

# cmarkgfm hands back cmark's buffers without freeing them (its own wrappers leak the
# HTML, and with extensions the document tree, on every call): these free them.
_free = ctypes.CDLL(None).free
_free.argtypes, _free.restype = [ctypes.c_void_p], None
_node_free = ctypes.CDLL(_cmark.__file__).cmark_node_free
_node_free.argtypes, _node_free.restype = [ctypes.c_void_p], None


# What apps add to a post's rendering (the media library makes its images responsive):
# functions from the sanitised HTML to the HTML shown, which escape whatever they add.
_POST_HTML_HOOKS: list[Callable[[str], str]] = []


def register_post_html_hook(hook: Callable[[str], str]) -> None:
    """Run `hook` on every post's sanitised HTML (from an AppConfig.ready())."""
    if hook not in _POST_HTML_HOOKS:
        _POST_HTML_HOOKS.append(hook)


def render_post(text: str) -> str:
    """An author's Markdown as sanitised HTML, then through the registered hooks."""
    html = sanitised_post_html(text)
    for hook in _POST_HTML_HOOKS:
        html = hook(html)
    return html


def sanitised_post_html(text: str) -> str:
    """An author's Markdown as sanitised HTML, before the hooks: every address the
    post shows or links, as a browser reads it (media/references.py counts pictures)."""
    html = _bounded_html(
        text, options=0, extensions=_POST_EXTENSIONS, raw_tag_limit=POST_RAW_TAG_LIMIT
    )
    return nh3.clean(
        html, tags=_POST_TAGS, attributes=ALLOWED_ATTRIBUTES, set_tag_attribute_values=_SET_ATTRIBUTES,
        link_rel="noopener",
    )


def render_comment(text: str) -> str:
    """A reader's Markdown as sanitised HTML: no images, single line breaks kept,
    and every link marked as user-generated so it passes on no ranking."""
    html = _bounded_html(
        text, options=_COMMENT_OPTIONS, extensions=(), raw_tag_limit=COMMENT_RAW_TAG_LIMIT
    )
    return nh3.clean(
        html, tags=COMMENT_TAGS, attributes=ALLOWED_ATTRIBUTES, set_tag_attribute_values=_SET_ATTRIBUTES,
        link_rel="nofollow ugc noopener",
    )


def _bounded_html(text: str, *, options: int, extensions: tuple[str, ...], raw_tag_limit: int) -> str:
    """The text's HTML, or the text as plain paragraphs when its Markdown nests too deep
    or grows too much, or it carries too many raw HTML tags."""
    # One parse, two renders: raw HTML is a render option. Depth is measured without
    # it (raw tags may be malformed), and raw tags are counted as what it adds.
    markdown_only, with_raw = _cmark_html(text, options=options, extensions=extensions)
    if len(markdown_only) > GROWTH_LIMIT * len(text) + 1_000 or nesting_depth(markdown_only) > NESTING_LIMIT:
        return _as_plain_text(text)
    raw_tags = len(_START_TAG.findall(with_raw)) - len(_START_TAG.findall(markdown_only))
    if raw_tags > raw_tag_limit:
        return _as_plain_text(text)
    return with_raw.strip()


def nesting_depth(html: str) -> int:
    """How deep the elements of well-formed HTML nest (cmark's output, raw HTML left
    out; or the sanitiser's)."""
    depth = deepest = 0
    for match in _TAG.finditer(html):
        closing, name, self_closing = match.groups()
        if closing:
            depth -= 1
        elif not self_closing and name not in _VOID:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def _as_plain_text(text: str) -> str:
    """Paragraphs at blank lines, line breaks kept, everything else as typed."""
    paragraphs = re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").replace("\r", "\n").strip())
    return "\n".join(
        "<p>" + escape(paragraph).replace("\n", "<br>\n") + "</p>"
        for paragraph in paragraphs if paragraph.strip()
    )


def _cmark_html(text: str, *, options: int, extensions: tuple[str, ...]) -> tuple[str, str]:
    """cmark-gfm's HTML for the text, parsed once and rendered twice: raw HTML left out,
    then kept (`_RAW`). Frees what cmark allocated."""
    lib = _cmark.lib
    source = text.encode("utf-8", "replace")
    parser = lib.cmark_parser_new(options)
    try:
        for name in extensions:
            lib.cmark_parser_attach_syntax_extension(parser, _extension(name))
        lib.cmark_parser_feed(parser, source, len(source))
        root = lib.cmark_parser_finish(parser)
        try:
            found = lib.cmark_parser_get_syntax_extensions(parser)
            markdown_only = _rendered(lib.cmark_render_html(root, options, found))
            return markdown_only, _rendered(lib.cmark_render_html(root, options | _RAW, found))
        finally:
            _node_free(_address(root))
    finally:
        lib.cmark_parser_free(parser)


def _rendered(output: Any) -> str:
    """The text of a buffer cmark rendered, which is then freed."""
    try:
        return _cmark.ffi.string(output).decode("utf-8", "replace")
    finally:
        _free(_address(output))


def _extension(name: str) -> Any:
    _cmark.lib.cmark_gfm_core_extensions_ensure_registered()
    extension = _cmark.lib.cmark_find_syntax_extension(name.encode())
    if extension == _cmark.ffi.NULL:
        raise LookupError(f"cmark-gfm has no {name} extension")
    return extension


def _address(pointer: Any) -> int:
    return int(_cmark.ffi.cast("uintptr_t", pointer))
