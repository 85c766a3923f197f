"""What a WordPress post becomes here: its body as Markdown (its shortcodes and
block-editor comments dropped, its classic-editor paragraphs made by `autop`, then the
site's one HTML -> Markdown path, infra/html_markdown.py), its excerpt as plain text,
its slug and tags made to fit our rules.

A post's body is what its author edits next, so it becomes Markdown where Markdown
can say it (paragraphs, line breaks, emphasis, links, images, headings, lists, quotes,
code) and stays HTML where it cannot (tables, figures): our post renderer keeps raw
HTML and sanitises it, so nothing is lost and nothing unsafe gets through.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

from cms.posts import MAX_TAGS, SLUG_MAX_LENGTH, TAG_MAX_LENGTH, TAG_PUNCTUATION, is_tag
from cms.slugs import FALLBACK as FALLBACK_SLUG
from cms.slugs import slug_from_title
from cms.wxr.parse import WxrItem
from infra.html_markdown import to_markdown

# Classic-editor posts are stored without <p>: WordPress adds them when it shows the
# post (wpautop). Block-editor posts carry their markup and these comments.
_BLOCK_EDITOR = "<!-- wp:"
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_STARTS_WITH_BLOCK = re.compile(rf"\s*<(?:{'|'.join(sorted(_BLOCK_TAGS))})\b", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")
_PRE = re.compile(r"<pre\b.*?</pre>", re.IGNORECASE | re.DOTALL)
# WordPress's own shortcodes around content: their tags go, what they wrap stays.
_SHORTCODE = re.compile(r"\[/?(?:caption|wp_caption|gallery|embed|audio|video|playlist)\b[^\]]*\]")


def autop(html: str) -> str:
    """What WordPress's wpautop does to a classic post or a comment, in short: blank
    lines separate paragraphs, a single line break is a <br>; blocks that already are
    HTML blocks, and <pre> contents, are left as they are."""
    kept: list[str] = []

    def keep(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _PRE.sub(keep, html.replace("\r\n", "\n").replace("\r", "\n"))
    blocks = []
    for chunk in _BLANK_LINES.split(text.strip()):
        if not chunk.strip():
            continue
        if _STARTS_WITH_BLOCK.match(chunk) or re.fullmatch(r"\s*\x00\d+\x00\s*", chunk):
            blocks.append(chunk.strip())
        else:
            blocks.append("<p>" + chunk.strip().replace("\n", "<br>\n") + "</p>")
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], "\n\n".join(blocks))



def html_to_markdown(html: str) -> str:
    """A WordPress post body as Markdown that renders as the post did."""
    html = _SHORTCODE.sub("", html)
    if _BLOCK_EDITOR not in html:
        html = autop(html)
    return to_markdown(html) + "\n"


def post_slug(item: WxrItem) -> tuple[str, str | None]:
    """The slug a WordPress post has here, and what it was made from when that is not
    its `wp:post_name` as it stands (None then). A name that is already a slug as we
    make them (Devanagari as written, even percent-encoded) is kept; one with accents
    on Latin letters or characters our addresses do not take is made a slug; a post
    without a name (a draft) gets one from its title and WordPress id."""
    name = unicodedata.normalize("NFC", unquote(item.post_name))
    made = slug_from_title(name, limit=SLUG_MAX_LENGTH) if name.strip() else ""
    if name and made == name:  # already one of our slugs (Latin in ASCII, other scripts as written)
        return name, None
    if made and made != FALLBACK_SLUG:
        return made, item.post_name
    base = slug_from_title(item.title, limit=SLUG_MAX_LENGTH - 12)
    return f"{base}-{re.sub(r'[^0-9a-zA-Z]', '', item.post_id) or 'x'}", item.post_name or item.title


def post_tags(item: WxrItem) -> tuple[tuple[str, ...], list[str]]:
    """The post's tags here (its tags, then its categories, once each in any case,
    made to fit the dashboard's rules), and the ones left out."""
    kept: list[str] = []
    left_out: list[str] = []
    for name in (*item.tags, *item.categories):
        tag = " ".join(
            "".join(ch if unicodedata.category(ch)[0] in "LNM" or ch in TAG_PUNCTUATION else " " for ch in name).split()
        )[:TAG_MAX_LENGTH].strip()
        if not is_tag(tag) or len(kept) >= MAX_TAGS:
            left_out.append(name)
        elif tag.casefold() not in {k.casefold() for k in kept}:
            kept.append(tag)
    return tuple(kept), left_out
