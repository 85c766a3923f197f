"""The shapes of the API's answers and request bodies (pydantic, through django-ninja):
what the OpenAPI document describes and what every answer is checked against.

Request bodies are strict: a JSON object, array or number where a string is expected
is refused (400), never passed on, so no body value reaches MongoDB as an operator."""

from __future__ import annotations

from datetime import datetime

from ninja import Schema
from pydantic import ConfigDict, Field, StrictStr


class Votes(Schema):
    score: int | None = None
    votes_up: int | None = None
    votes_down: int | None = None


class CommentOut(Schema):
    slug: str = Field(description="The comment's slug path (parts joined by '/').")
    full_slug: str = Field(description="The threaded sort key: posting time and slug of each ancestor.")
    parent: str | None = Field(description="The slug path of the comment it answers; null at top level.")
    depth: int
    indent: int = Field(description="How far the page indents it (threaded views; 0 in chronological).")
    posted: datetime
    edited: datetime | None
    author: str | None = Field(description="The author's display name; null for a placeholder.")
    staff: bool = Field(description="Written by one of the site's authors or editors.")
    html: str = Field(description="The rendered, sanitised text; empty for a placeholder.")
    text: str | None = Field(description="The Markdown source: only for its author while they may edit it, and for editors.")
    placeholder: bool = Field(description="Only its place is shown (deleted, removed or pending with replies).")
    placeholder_text: str | None
    awaiting_moderation: bool = Field(description="Pending: shown only to its author and to editors.")
    can_change: bool = Field(description="The requester may still edit or delete it.")
    reply_to: str | None = Field(description="The name (or placeholder) of the comment it answers.")
    continue_thread: bool = Field(description="At the indent limit with replies: they are on its own page.")
    locked: bool = Field(default=False, description="An editor locked its branch: no new reply below it (or to it).")
    slow_seconds: int = Field(default=0, description="Its branch is in slow mode: each commenter may post "
                                                     "there once per this many seconds (0: not slowed).")
    url: str = Field(description="Its permalink page on the site.")
    votes: Votes | None = None


class ViewOut(Schema):
    name: str
    label: str


class DiscussionOut(Schema):
    post: str
    title: str
    url: str
    comment_count: int
    closed: bool
    views: list[ViewOut]
    per_page: int
    comments: str = Field(description="The URL of its comments in this API.")


class PageOut(Schema):
    view: str
    page: int
    num_pages: int
    total: int = Field(description="Entries listed, placeholders included (pages are cut from these).")
    comment_count: int
    next: str | None = Field(description="Cursor of the next page: pass it as `after`.")
    prev: str | None = Field(description="Cursor of the previous page: pass it as `before`.")
    continued_from: str | None
    comments: list[CommentOut]


class ThreadOut(Schema):
    ancestors: list[CommentOut]
    comment: CommentOut
    replies: PageOut


class CountsOut(Schema):
    counts: dict[str, int | None] = Field(description="Comments of each post asked for; null: no such published post.")


class ProblemOut(Schema):
    type: str
    title: str
    status: int
    detail: str
    code: str | None = None
    errors: list[dict[str, str | None]] | None = None


class Strict(Schema):
    model_config = ConfigDict(extra="forbid")


class NewComment(Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"text": "Thanks, this *helped*.", "parent": None}]})

    text: StrictStr = Field(description="The comment in Markdown.")
    parent: StrictStr | None = Field(
        None, description="The slug path of the comment it answers; empty or null at top level.")


class CommentEdit(Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"text": "Thanks, this *helped* a lot."}]})

    text: StrictStr = Field(description="The comment's new text in Markdown.")


class FlagIn(Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"reason": "spam", "note": "Links to a shop."}]})

    reason: StrictStr
    note: StrictStr = Field("", description="Anything to add for the editors (optional).")


class WriteOut(Schema):
    comment: CommentOut
    outcome: str = Field(description="posted, awaiting_moderation, posted_before (the same text a moment ago) or edited.")
    reattached: bool = Field(description="Too deep: it was added beside the comment it answers.")


class FlagOut(Schema):
    counted: bool = Field(description="False when you had flagged it before.")


class VoteIn(Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"vote": "up"}]})

    vote: StrictStr = Field(description="up, down, or none to take your vote back.")


class VoteOut(Schema):
    vote: str = Field(description="Your vote on the comment now: up, down or none.")
    up: int = Field(description="The comment's up votes, yours counted.")
    down: int = Field(description="The comment's down votes, yours counted.")
    score: int = Field(description="Up votes less down votes.")
    slug: str = Field(description="The comment's slug path.")
    message: str = Field(description="What the site says after such a vote, in your language.")
