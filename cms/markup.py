"""Markdown to safe HTML, for posts (trusted authors) and comments (anyone).

Rendering happens once, when text is written; pages show the stored HTML.
"""

import markdown
import nh3

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4",
    "hr", "i", "li", "ol", "p", "pre", "strong", "sub", "sup", "ul",
}
_POST_TAGS = _TAGS | {"h1", "h5", "h6", "img", "table", "thead", "tbody", "tr", "th", "td"}
_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "img": {"src", "alt", "title"}}
# A code block scrolls sideways rather than widen the page; tabindex lets a keyboard
# reach it to scroll it (every browser, not only those that focus scrollers).
_SET_ATTRIBUTES = {"pre": {"tabindex": "0"}}


def render_post(text: str) -> str:
    """An author's Markdown as sanitised HTML."""
    html = markdown.markdown(text, extensions=["fenced_code", "tables", "sane_lists"])
    return nh3.clean(
        html, tags=_POST_TAGS, attributes=_ATTRIBUTES, set_tag_attribute_values=_SET_ATTRIBUTES,
        link_rel="noopener",
    )


def render_comment(text: str) -> str:
    """A reader's Markdown as sanitised HTML: no images, single line breaks kept,
    and every link marked as user-generated so it passes on no ranking."""
    html = markdown.markdown(text, extensions=["fenced_code", "nl2br", "sane_lists"])
    return nh3.clean(
        html, tags=_TAGS, attributes=_ATTRIBUTES, set_tag_attribute_values=_SET_ATTRIBUTES,
        link_rel="nofollow ugc noopener",
    )
