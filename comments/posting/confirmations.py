"""What a page says about the comment a reader has just posted or changed, shown next
to that comment rather than at the top of the page.

The posting view queues its messages ("Thank you: your comment is posted.", the
mail notice...) with Django's messages framework, tagged with the comment's anchor
(`tag`); a vote without JavaScript does too, and a flag or a delete, which lands on the
comment section, tags its message with the section (`SECTION`). The page that follows
takes them (`take`): those for a comment it draws go beside it, those for the section
at its top (comments/includes/confirmations.html), the rest stay at the top of the
page, as every other message does. Plain functions; the request only to read the
messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.messages.storage.base import Message
from django.http import HttpRequest

# The extra tag that marks a message as belonging next to a comment: "beside c-…".
BESIDE = "beside"
# The anchor of the comment section itself: where a redirect to "#comments" lands (after
# a flag or a delete), its messages drawn at the top of the section.
SECTION = "comments"


def tag(anchor: str) -> str:
    """The `extra_tags` of a message shown next to the comment at `anchor`."""
    return f"{BESIDE} {anchor}"


def anchor_of(message: Message) -> str | None:
    """The anchor of the comment `message` belongs next to, or None."""
    words = (message.extra_tags or "").split()
    if len(words) >= 2 and words[0] == BESIDE:
        return words[1]
    return None


@dataclass(frozen=True)
class Confirmations:
    """This request's messages: those for one comment (`anchor`), and the rest."""

    anchor: str | None = None
    beside: list[Message] = field(default_factory=list)
    others: list[Message] = field(default_factory=list)

    def at_top(self, *, placed: bool) -> list[Message]:
        """The messages for the top of the page: all of them unless the page drew the
        comment with its own beside it."""
        return self.others if placed else self.others + self.beside


def take(request: HttpRequest) -> Confirmations:
    """Read (and so use up) this request's messages, sorted into those for the latest
    comment they name and the rest."""
    found = list(messages.get_messages(request))
    anchors = [anchor_of(m) for m in found if anchor_of(m)]
    if not anchors:
        return Confirmations(others=found)
    anchor = anchors[-1]
    return Confirmations(
        anchor=anchor,
        beside=[m for m in found if anchor_of(m) == anchor],
        others=[m for m in found if anchor_of(m) != anchor],
    )
