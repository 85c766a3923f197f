"""Template tags of votes: the page's one vote form, which every vote button submits
(the comments fragment is shared between readers and carries no CSRF token; this
form is rendered for each request), and a reader's own vote on one comment."""

from typing import Any

from django import template
from django.template import Context
from django.urls import reverse

from comments import voters, votes
from comments.records import Comment

register = template.Library()


@register.inclusion_tag("comments/includes/vote_form.html", takes_context=True)
def vote_form(context: Context) -> dict[str, Any]:
    """The hidden form vote buttons submit (`form="vote-form"`), with the CSRF token and
    the page to come back to."""
    request, post = context.get("request"), context.get("post")
    return {"request": request, "csrf_token": context.get("csrf_token"),
            "next": request.get_full_path() if request is not None else "",
            "action": reverse("comments:my_votes", args=[post.slug]) if post is not None else ""}


@register.simple_tag(takes_context=True)
def own_vote(context: Context, comment: Comment) -> str:
    """The vote (up, down or none) the reader looking gave `comment` (one query)."""
    request = context.get("request")
    voter = voters.voter_of(request) if request is not None else None
    return votes.vote_of(comment=comment, voter=voter) if voter else "none"
