"""The quick way through infra/html_markdown.py for the HTML most comments are: the same
Markdown, byte for byte, as its markdownify path gives, from a tree of its own instead
of BeautifulSoup's, for a fragment made only of the tags below; None for anything else,
which then takes the markdownify path.

What an import spends its time on is turning each comment's body (nh3's sanitised
HTML: paragraphs, line breaks, links, emphasis, code, quotes) into Markdown; markdownify
on BeautifulSoup's tree takes about 0.75 ms for a 450-byte comment, this 0.08 ms.

It reads well-formed HTML only, as nh3 writes it: lower-case tags from TAGS, each
closed in order (`br` and `hr` void), attributes `name="value"` after one space, no
comment, no stray `<` or `&`. Whatever else it meets (another tag, `<br/>`, an unclosed or
misnested tag, elements nested NESTING_LIMIT deep) makes it give up, so any HTML may be
handed to it. On that tree it repeats what html.parser, BeautifulSoup and markdownify
(configured as infra/html_markdown.py configures it) do: text and attributes unescaped
once; a text of ASCII whitespace alone made one space or newline; whitespace dropped
at the edges of paragraphs and quotes; the same escaping, emphasis, links, code spans,
line breaks and newline folding between siblings. tests/unit/test_html_markdown_fast.py
compares the two on generated fragments.
"""

from __future__ import annotations

import html as html_module
import re

from infra.markup import NESTING_LIMIT

# The tags read here; any other sends the fragment to markdownify.
TAGS = frozenset(["p", "br", "hr", "a", "b", "strong", "i", "em", "code", "blockquote", "sup", "sub", "del",
                  "abbr"])
VOID = frozenset(["br", "hr"])
# Kept as inline tags (without attributes): Markdown has no syntax for them.
INLINE_HTML = frozenset(["sup", "sub", "del", "abbr"])
# What ends a line of text: a line break next to one (or at either end of its
# parent) would be a stray backslash, so it is left out, as browsers show none.
BLOCKS = frozenset(
    ["address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt", "fieldset",
     "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
     "nav", "ol", "p", "pre", "section", "table", "ul"]
)
# markdownify's: whitespace at the edges inside these goes, and beside them (and `pre`).
_TRIMMED_INSIDE = frozenset(["p", "blockquote", "article", "div", "section", "ol", "ul", "li", "dl", "dt", "dd",
                             "table", "thead", "tbody", "tfoot", "tr", "td", "th"])
_TRIMMED_BESIDE = _TRIMMED_INSIDE | {"pre"}
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"  # BeautifulSoup's

_START = re.compile(r'<([a-z][a-z0-9]*)((?: [a-z]+="[^"]*")*)>')
_END = re.compile(r"</([a-z][a-z0-9]*)>")
_ATTRIBUTE = re.compile(r' ([a-z]+)="([^"]*)"')
# An ampersand that starts no reference ended by ";": html.parser leaves one at the end
# of a fragment as it is, so it is not read here.
_BARE_AMPERSAND = re.compile(r"&(?!(?:[a-zA-Z][a-zA-Z0-9]*|#[0-9]+|#[xX][0-9a-fA-F]+);)")
_NEEDS_BRACKETS = re.compile(r"[\s()<>]")
_BACKTICKS = re.compile(r"`+")
# markdownify's, as it applies them.
_NEWLINE_WHITESPACE = re.compile(r"[\t \r\n]*[\r\n][\t \r\n]*")
_WHITESPACE = re.compile(r"[\t ]+")
_EXTRACT_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", flags=re.DOTALL)
_LINE = re.compile(r"^(.*)", flags=re.MULTILINE)
_MISC_CHARS = re.compile(r"([]\\&<`[>~=+|])")
_MISC_DASHES = re.compile(r"(\s|^)(-+(?:\s|$))")
_MISC_HASHES = re.compile(r"(\s|^)(#{1,6}(?:\s|$))")
_MISC_LIST_ITEMS = re.compile(r"((?:\s|^)[0-9]{1,9})([.)](?:\s|$))")


class _Element:
    __slots__ = ("name", "attrs", "children")

    def __init__(self, name: str, attrs: dict[str, str]):
        self.name, self.attrs = name, attrs
        self.children: list[str | _Element] = []


def destination(url: str) -> str:
    """A link or image address as Markdown writes it: in <...> when it has a space or
    a bracket that would end it early."""
    url = url.strip()
    if _NEEDS_BRACKETS.search(url):
        return "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return url


def title(value: str | None) -> str:
    """A link's or image's title as Markdown writes it after the address ("" if none)."""
    return ' "%s"' % value.replace("\\", "\\\\").replace('"', '\\"') if value else ""


def chomp(text: str) -> tuple[str, str, str]:
    """A link's text without its outer whitespace, and a space for each end that had one."""
    lead = " " if text[:1] == " " else ""
    trail = " " if text[-1:] == " " else ""
    return lead, trail, text.strip()


def link(text: str, href: str, title_value: str) -> str:
    """A link's Markdown (its text as it is when it has no address or no text)."""
    href = href.strip()
    if not href or not text.strip():
        return text
    lead, trail, text = chomp(text)
    return f"{lead}[{text}]({destination(href)}{title(title_value)}){trail}"


def convert(html: str) -> str | None:
    """The Markdown infra/html_markdown.py's markdownify path gives for `html` (before
    its final strip), or None when `html` is not made of TAGS alone, well formed."""
    root = _parse(html)
    return None if root is None else _tag(root, noformat=False).strip("\n")


def _parse(html: str) -> _Element | None:
    root = _Element("[document]", {})
    stack = [root]
    pos, end = 0, len(html)
    while pos < end:
        lt = html.find("<", pos)
        if lt != pos:
            lt = end if lt < 0 else lt
            text = html[pos:lt]
            if "&" in text:
                if _BARE_AMPERSAND.search(text):
                    return None
                text = html_module.unescape(text)
            if not text.strip(_ASCII_SPACES):
                text = "\n" if "\n" in text else " "
            stack[-1].children.append(text)
            pos = lt
            continue
        if start := _START.match(html, pos):
            name = start.group(1)
            if name not in TAGS:
                return None
            element = _Element(name, {key: html_module.unescape(value)
                                      for key, value in _ATTRIBUTE.findall(start.group(2))})
            stack[-1].children.append(element)
            if name not in VOID:
                stack.append(element)
                if len(stack) >= NESTING_LIMIT:  # markdownify's path flattens what is deeper
                    return None
            pos = start.end()
            continue
        closing = _END.match(html, pos)
        if closing is None or len(stack) == 1 or closing.group(1) != stack[-1].name:
            return None
        stack.pop()
        pos = closing.end()
    return root if len(stack) == 1 else None


def _beside(node: str | _Element | None) -> bool:
    return isinstance(node, _Element) and node.name in _TRIMMED_BESIDE


def _tag(node: _Element, *, noformat: bool) -> str:
    """markdownify's process_tag: the children converted, kept whitespace, newlines
    folded between them, then the tag's own conversion. `noformat`: inside code."""
    children, inside = node.children, node.name in _TRIMMED_INSIDE
    inner = noformat or node.name == "code"
    last = len(children) - 1
    strings: list[str] = []
    for index, child in enumerate(children):
        before = children[index - 1] if index else None
        after = children[index + 1] if index < last else None
        if isinstance(child, str):
            if not child.strip() and ((inside and (before is None or after is None))
                                      or _beside(before) or _beside(after)):
                continue
            out = _text(child, before=before, after=after, trimmed=inside, noformat=inner)
        elif child.name == "br":
            out = "" if _at_block_edge(children, index, -1) or _at_block_edge(children, index, 1) else "\\\n"
        else:
            out = _tag(child, noformat=inner)
        if out:
            strings.append(out)
    folded = [""]
    for string in strings:
        match = _EXTRACT_NEWLINES.match(string)
        assert match is not None  # it matches every string
        leading, content, trailing = match.groups()
        if folded[-1] and leading:
            leading = "\n" * min(2, max(len(folded.pop()), len(leading)))
        folded += (leading, content, trailing)
    return _own(node, "".join(folded), noformat=noformat)


def _own(node: _Element, text: str, *, noformat: bool) -> str:
    """The tag's conversion of its children's Markdown `text`."""
    name = node.name
    if name == "p":
        text = text.strip(" \t\r\n")
        return f"\n\n{text}\n\n" if text else ""
    if name == "hr":
        return "\n\n---\n\n"
    if name == "blockquote":
        text = text.strip(" \t\r\n")
        return "\n" + _LINE.sub(lambda line: "> " + line.group(1) if line.group(1) else ">", text) + "\n\n" \
            if text else "\n"
    if noformat or name == "[document]":
        return text
    if name == "a":
        return link(text, node.attrs.get("href", ""), node.attrs.get("title", ""))
    if name in INLINE_HTML:
        return f"<{name}>{text}</{name}>" if text.strip() else text
    prefix = " " if text[:1] == " " else ""
    suffix = " " if text[-1:] == " " else ""
    text = text.strip()
    if not text:
        return ""
    if name == "code":
        longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
        fence = "`" * (longest + 1)
        return f"{prefix}{fence}{' ' + text + ' ' if longest else text}{fence}{suffix}"
    marker = "**" if name in ("b", "strong") else "*"
    return f"{prefix}{marker}{text}{marker}{suffix}"


def _text(text: str, *, before: str | _Element | None, after: str | _Element | None, trimmed: bool,
          noformat: bool) -> str:
    """markdownify's process_text: whitespace runs folded, Markdown's characters escaped
    (not in code), whitespace dropped beside a block or at the edge of one."""
    # (Each pattern is applied only where it can match: the same text, sooner.)
    if "\n" in text or "\r" in text:
        text = _NEWLINE_WHITESPACE.sub("\n", text)
    if "\t" in text or "  " in text:
        text = _WHITESPACE.sub(" ", text)
    if not noformat and text:
        text = _MISC_CHARS.sub(r"\\\1", text)
        if "-" in text:
            text = _MISC_DASHES.sub(r"\1\\\2", text)
        if "#" in text:
            text = _MISC_HASHES.sub(r"\1\\\2", text)
        if "." in text or ")" in text:
            text = _MISC_LIST_ITEMS.sub(r"\1\\\2", text)
        text = text.replace("*", r"\*").replace("_", r"\_")
    if _beside(before) or (trimmed and before is None):
        text = text.lstrip(" \t\r\n")
    if _beside(after) or (trimmed and after is None):
        text = text.rstrip()
    return text


def _at_block_edge(siblings: list[str | _Element], index: int, step: int) -> bool:
    """Whether nothing but whitespace (or a line break) lies between the line break at
    `index` and the edge of its parent, or a block, going by `step`."""
    index += step
    while 0 <= index < len(siblings):
        node = siblings[index]
        if isinstance(node, _Element):
            if node.name != "br":
                return node.name in BLOCKS
        elif node.strip():
            return False
        index += step
    return True
