"""`{% load comments %}`: how a host's page shows a discussion's comments.

- `{% comment_section discussion %}`: the comments heading, the views switcher, the
  first page of comments (or the page `?page=N` names), its page links and the
  comment form (comments/reading/sections.py);
- `{% comment_form discussion %}`: the comment form alone (`heading="…"` to title it).

Both need the request in the context (Django's `request` context processor).
"""

from __future__ import annotations

from typing import Any

from django import template

from comments.host import get_host
from comments.posting import services
from comments.reading import sections

register = template.Library()


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


@register.inclusion_tag("comments/includes/form.html", takes_context=True)
def comment_form(context: template.Context, discussion: Any, heading: str = "") -> dict[str, Any]:
    """The comment form of `discussion` for this request's reader: the one the page
    prepared (with what the reader sent), or a fresh one."""
    discussion = get_host().discussion_of(discussion)
    form = sections.prepared_form(context["request"], discussion)
    return {**_reader(context), "post": discussion, "form": form, "heading": heading,
            "closed": services.comments_closed(post=discussion)}
