"""A source's comment body as the Markdown a comment keeps (comments/transfer/importing.py
writes it as the comment's `text`; `html` is rendered from it as for any comment)."""

from __future__ import annotations

import html as html_module
import re

import nh3

from infra import extras, markup

_BLANK_RUNS = re.compile(r"\n{3,}")


def comment_text(html: str) -> str:
    """A source's HTML body as the Markdown a comment keeps: sanitised by the site's
    comment allow-lists first (scripts and styles go with their content), then
    written as Markdown, with every character Markdown would read as markup escaped."""
    clean = nh3.clean(html or "", tags=markup.COMMENT_TAGS, attributes=markup.ALLOWED_ATTRIBUTES, link_rel=None)
    if markup.nesting_depth(clean) > markup.NESTING_LIMIT:
        # Deeper than a comment may nest (and than markdownify, which recurses, can
        # walk): its text alone, as the site shows such a comment.
        clean = nh3.clean(clean, tags=set())
        return _BLANK_RUNS.sub("\n\n", html_module.unescape(clean)).strip()
    html_markdown = extras.require("infra.html_markdown", extra="imports", feature="Importing HTML comments")
    text = html_markdown.to_markdown(clean)
    return _BLANK_RUNS.sub("\n\n", text).strip()
