"""`{% load comments %}`: how a host's page shows a discussion's comments.

- `{% comment_section discussion %}`: the comments heading, the views switcher, the
  first page of comments (or the page `?page=N` names), its page links and the
  comment form (comments/reading/sections.py);
- `{% comment_form discussion %}`: the comment form alone (`heading="…"` to title it);
- `{% comments_assets %}`: the app's stylesheet and scripts (comments/static/comments/),
  for a layout's <head>. Written once a request: the two tags above write them where
  the page has not yet, so a host that never calls it still gets them.

All need the request in the context (Django's `request` context processor).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.templatetags.static import static
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from comments.host import get_host
from comments.posting import services
from comments.reading import sections

register = template.Library()

# The app's static files, as `{% comments_assets %}` links them, in this order.
STYLESHEET = "comments/comments.css"
SCRIPTS = (
    "comments/js/section.js",  # Reply opens the form in place; "Load more comments"
    "comments/js/votes.js",
    "comments/js/posting.js",  # posting, previewing and editing without leaving the page
    "comments/js/follow.js",  # "Follow this thread" in place
    "comments/js/live.js",  # "3 new comments": the section's data-poll
    "comments/js/text-count.js",
)
# Set on the request once the page has linked them.
LINKED = "_comments_assets_linked"


@register.simple_tag(takes_context=True)
def comments_assets(context: template.Context) -> SafeString:
    """The <link rel="stylesheet"> and <script defer> tags of the app's static files, the
    first time a request's page asks; nothing after that. Without a request in the
    context it cannot tell, and writes them."""
    request = context.get("request")
    if request is not None:
        if getattr(request, LINKED, False):
            return SafeString("")
        setattr(request, LINKED, True)
    stylesheet = format_html('<link rel="stylesheet" href="{}">', static(STYLESHEET))
    scripts = format_html_join("\n", '<script src="{}" defer></script>', ((static(n),) for n in SCRIPTS))
    return format_html("{}\n{}", stylesheet, scripts)


def _reader(context: template.Context) -> dict[str, Any]:
    """What the section's templates use of the page's context: the request, its CSRF
    token and the reader."""
    request = context["request"]
    return {"request": request, "csrf_token": context.get("csrf_token"),
            "user": getattr(request, "user", None)}


@register.inclusion_tag("comments/includes/section.html", takes_context=True)
def comment_section(context: template.Context, discussion: Any) -> dict[str, Any]:
    """The comment section of `discussion` (a host's discussion, or an instance of
    COMMENTS_DISCUSSION_MODEL) for this request's reader."""
    discussion = get_host().discussion_of(discussion)
    section = sections.of(context["request"], discussion)
    return {**_reader(context), "post": discussion, "comments_html": section.comments_html,
            "form": section.form, "closed": section.closed, "confirmations": section.at_section}


@register.inclusion_tag("comments/includes/form_alone.html", takes_context=True)
def comment_form(context: template.Context, discussion: Any, heading: str = "") -> dict[str, Any]:
    """The comment form of `discussion` for this request's reader: the one the page
    prepared (with what the reader sent), or a fresh one."""
    discussion = get_host().discussion_of(discussion)
    form = sections.prepared_form(context["request"], discussion)
    return {**_reader(context), "post": discussion, "form": form, "heading": heading,
            "closed": services.comments_closed(post=discussion)}
