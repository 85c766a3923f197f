"""Reading Slugline's pages as a browser would, for the HTTP-level tests: a small
HTML parser, the site's comment URLs, and filling in the comment form."""

from __future__ import annotations

from collections import defaultdict
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """What these tests read from a rendered page: the comments (one dict per
    `<article class="comment">`), every link, form inputs and textareas, and the text
    of every element by class name and by id."""

    def __init__(self, content: bytes):
        super().__init__(convert_charrefs=True)
        self.comments: list[dict] = []
        self.links: list[dict] = []
        self.inputs: dict[str, str] = {}
        self.form_action: str | None = None
        self.textareas: dict[str, str] = {}
        self.by_class: dict[str, list[str]] = defaultdict(list)
        self.by_id: dict[str, list] = {}
        self._open: list[tuple[str, list]] = []  # (tag, text buffers collecting inside it)
        self._article: dict | None = None
        self._item_classes: list[str] | None = None  # of the list item around the next comment
        self._current: list[list] = []
        self._current_view: list[list] = []
        self.feed(content.decode())
        self.close()
        for link in self.links:
            link["text"] = "".join(link["text"]).strip()
        for comment in self.comments:
            comment["author"] = "".join(comment["author"]).strip()
            comment["text"] = "".join(comment["text"]).strip()
        for name, buffer in list(self.textareas.items()):
            value = "".join(buffer)
            self.textareas[name] = value[1:] if value.startswith("\n") else value
        # The page number shown as the current one (aria-current="page").
        self.current = ["".join(b).strip() for b in self._current]
        self.current_view = ["".join(b).strip() for b in self._current_view]
        for cls, buffers in list(self.by_class.items()):
            self.by_class[cls] = ["".join(b).strip() for b in buffers]
        for element_id, buffer in list(self.by_id.items()):
            self.by_id[element_id] = " ".join("".join(buffer).split())

    def handle_starttag(self, tag, attrs):
        a = {k: v if v is not None else "" for k, v in attrs}
        classes = a.get("class", "").split()
        buffers: list[list] = []
        if tag == "li" and "comment-item" in classes:
            self._item_classes = classes
        if tag == "article" and "comment" in classes:
            self._article = {
                "item_classes": self._item_classes,
                "id": a.get("id"), "slug": a.get("data-slug"), "depth": a.get("data-depth"),
                "author": [], "text": [], "links": [], "html_attrs": a,
            }
            self.comments.append(self._article)
            self._item_classes = None
        article = self._article
        if tag == "time" and article is not None and "datetime" not in article:
            article["datetime"] = a.get("datetime")
        if tag == "a":
            link = {**a, "text": [], "in_comment": article["slug"] if article else None}
            self.links.append(link)
            if article is not None:
                article["links"].append(link)
            buffers.append(link["text"])
        if article is not None and "comment-author" in classes:
            buffers.append(article["author"])
        if article is not None and "comment-text" in classes:
            buffers.append(article["text"])
            article["html_start"] = self.getpos()
        if tag == "form" and "comment-form" in classes:
            self.form_action = a.get("action")
        if tag == "input" and "name" in a:
            self.inputs[a["name"]] = a.get("value", "")
        if a.get("aria-current") == "true":
            self._current_view.append(buf := [])
            buffers.append(buf)
        if a.get("aria-current") == "page":
            self._current.append(buf := [])
            buffers.append(buf)
        if tag == "textarea":
            self.textareas[a.get("name", "")] = buf = []
            buffers.append(buf)
        if "id" in a:
            self.by_id[a["id"]] = buf = []
            buffers.append(buf)
        for cls in classes:
            buf = []
            self.by_class[cls].append(buf)
            buffers.append(buf)
        if tag not in VOID:
            self._open.append((tag, buffers))

    def handle_endtag(self, tag):
        while self._open:
            open_tag, _ = self._open.pop()
            if open_tag == tag:
                break
        if tag == "article":
            self._article = None

    def handle_data(self, data):
        for _, buffers in self._open:
            for buffer in buffers:
                buffer.append(data)

    # Conveniences -------------------------------------------------------------

    @property
    def slugs(self) -> list[str]:
        return [c["slug"] for c in self.comments]

    def rel(self, name: str) -> str | None:
        found = [link["href"] for link in self.links if link.get("rel") == name]
        assert len(found) <= 1
        return found[0] if found else None

    def text_of(self, cls: str) -> list[str]:
        return self.by_class.get(cls, [])


def page(response) -> Page:
    return Page(response.content)


def query(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


def post_url(post) -> str:
    return f"/posts/{post.slug}/"


def discussion_url(post) -> str:
    return f"/posts/{post.slug}/comments/"


def permalink_url(post, slug: str) -> str:
    return f"/posts/{post.slug}/comments/{slug}/"


def submit(client, page_url: str, **fields):
    """Fill in the comment form of the page at `page_url` as a reader would (its hidden
    fields as rendered, a name and e-mail unless given) and post it to the form's action."""
    shown = page(client.get(page_url))
    assert shown.form_action, "the page has no comment form"
    data = {**shown.inputs, **shown.textareas}
    if "name" in data:
        data.update(name="Rosa", email="rosa@example.com")
    data.update(text="A fine post.")
    data.update(fields)
    return client.post(shown.form_action, data)
