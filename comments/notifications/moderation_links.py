"""The signed Approve, Spam and Delete links of the editors' queue mail: what a link's
token says and whether it is whole and young enough. Pure (Django's signing, no
database); comments/notifications/mail_moderation.py decides whether a link may act.

A token names one editor (their user id), one comment, one action, the mail it came
in and when that mail was written:

    {"u": <editor's user id>, "c": "<comment id>", "a": "approve" | "spam" | "delete",
     "m": "<the mail's id for this comment>", "t": <issued, Unix seconds>}

signed with the project's SECRET_KEY under a salt of its own (a link for any other
purpose never works here). The three links of one comment in one mail share `m`:
whichever is used first uses them all (`Link.use_key`). The issue time is in the
signed value, not Django's TimestampSigner, so that how old a link is can be asked
at any moment (`now`), which the tests do without waiting a week.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from bson import ObjectId
from django.core import signing

from infra.ids import parse_id

ACTIONS = ("approve", "spam", "delete")
SALT = "comments.notifications.moderate"
# Why a token is refused (LinkRefused.code).
TAMPERED, EXPIRED = "tampered", "expired"


class BadLink(Exception):
    """A token that says nothing usable: changed or cut short (`TAMPERED`), or older
    than links may be (`EXPIRED`)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Link:
    """What a whole, young enough token says."""

    editor_id: int | str
    comment_id: ObjectId
    action: str
    mail: str
    issued: datetime

    @property
    def use_key(self) -> str:
        """The same for the three links of this comment in this mail: using one uses all."""
        return f"{self.editor_id}:{self.comment_id}:{self.mail}"


def make_tokens(*, editor_id: int | str, comment_id: ObjectId, now: datetime | None = None) -> dict[str, str]:
    """The token of each action's link for this editor and comment, in one mail."""
    issued = int((now or datetime.now(UTC)).timestamp())
    mail = secrets.token_urlsafe(9)
    signer = signing.Signer(salt=SALT)
    return {action: signer.sign_object({"u": editor_id, "c": str(comment_id), "a": action, "m": mail,
                                        "t": issued})
            for action in ACTIONS}


def read_token(token: str, *, max_age: float, now: datetime | None = None) -> Link:
    """The link a token names; BadLink when it is not one signed here (TAMPERED) or
    was issued more than `max_age` seconds before `now` (EXPIRED)."""
    try:
        value = signing.Signer(salt=SALT).unsign_object(str(token))
    except (signing.BadSignature, ValueError):
        raise BadLink(TAMPERED) from None
    if not isinstance(value, dict):
        raise BadLink(TAMPERED)
    editor, comment, action = value.get("u"), parse_id(value.get("c")), value.get("a")
    mail, issued = value.get("m"), value.get("t")
    if (not isinstance(editor, (int, str)) or isinstance(editor, bool) or comment is None
            or action not in ACTIONS or not isinstance(mail, str) or not isinstance(issued, int)):
        raise BadLink(TAMPERED)
    age = (now or datetime.now(UTC)).timestamp() - issued
    if age > max_age:
        raise BadLink(EXPIRED)
    return Link(editor_id=editor, comment_id=comment, action=action, mail=mail,
                issued=datetime.fromtimestamp(issued, tz=UTC))
