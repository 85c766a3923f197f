"""Template tags of votes: the page's one vote form, which every vote button submits
(the comments fragment is shared between readers and carries no CSRF token; this
form is rendered for each request), and a reader's own vote on one comment among
their votes on the discussion (`own_votes|vote_for:comment.slug`)."""

from typing import Any

from django import template
from django.template import Context
from django.urls import reverse

register = template.Library()


@register.inclusion_tag("comments/includes/vote_form.html", takes_context=True)
def vote_form(context: Context) -> dict[str, Any]:
    """The hidden form vote buttons submit (`form="vote-form"`), with the CSRF token and
    the page to come back to."""
    request, post = context.get("request"), context.get("post")
    return {"request": request, "csrf_token": context.get("csrf_token"),
            "next": request.get_full_path() if request is not None else "",
            "action": reverse("comments:my_votes", args=[post.slug]) if post is not None else ""}


@register.filter
def vote_for(own_votes: object, slug: str) -> str:
    """The vote (up or down) among `own_votes` (by comment slug) on the comment `slug`;
    "" if none (or no votes are known)."""
    return own_votes.get(slug, "") if isinstance(own_votes, dict) else ""
