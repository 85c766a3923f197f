"""The moderation queue's forms: its filter, its actions (bulk and one comment's) and
the blocklist. They own validation; every error has a code, and the messages tests
check are the constants below."""

import re
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId

from django import forms
from django.utils import timezone
from django.utils.translation import pgettext_lazy
from django.utils.translation import gettext_lazy as _

from comments.host import Discussion, get_host
from comments.moderation import bans
from comments.moderation.branches import ACTIONS as BRANCH_ACTIONS, SLOW_LEAST, SLOW_MOST
from infra.ids import parse_id

BAD_TAB = _("Choose pending, flagged, spam or recent.")
NO_SUCH_POST_SLUG = _("No post has this slug.")
BAD_IP = _("Give an IPv4 or IPv6 address.")
NOTHING_CHOSEN = _("Choose at least one comment, then an action.")
BAD_CHOICE = _("That is not a comment of this queue; reload the page and try again.")
BAD_DOMAIN = _("Give a domain such as example.com.")
EMPTY_TERM = _("Give a word, a phrase or a domain.")
BAD_SECONDS = _("Give slow mode's wait in seconds: a whole number from 1 to 86400.")
# One comment's own actions (`one=<kind>:<id>`).
ONE_KINDS = ("thread", "ban", "pick", "unpick", *BRANCH_ACTIONS)
MAX_CHOSEN = 200
SEARCH_MAX_LENGTH = 100
SLUG_MAX_LENGTH = 200
TOO_LONG = _("This can be at most %(limit_value)d characters; it has %(show_value)d.")

QUEUE_TABS = [
    ("pending", pgettext_lazy("comment queue", "Pending")),
    ("flagged", pgettext_lazy("comment queue", "Flagged")),
    ("spam", pgettext_lazy("comment queue", "Spam")),
    ("recent", pgettext_lazy("comment queue", "Recent")),
    ("downvoted", pgettext_lazy("comment queue", "Most down-voted")),
]
DOMAIN_RE = re.compile(r"@?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}", re.IGNORECASE)


class QueueFilterForm(forms.Form):
    """The moderation queue: a tab, and comments on one discussion (the post field), by an author name, an
    e-mail address or an IP address."""

    tab = forms.ChoiceField(
        required=False, choices=QUEUE_TABS, widget=forms.HiddenInput,
        error_messages={"invalid_choice": BAD_TAB},
    )
    post = forms.CharField(
        required=False, max_length=SLUG_MAX_LENGTH, label=_("Post (its slug)"),
        error_messages={"max_length": TOO_LONG},
    )
    name = forms.CharField(
        required=False, max_length=SEARCH_MAX_LENGTH, label=_("Author name contains"),
        error_messages={"max_length": TOO_LONG},
    )
    email = forms.CharField(
        required=False, max_length=254, label=_("E-mail address"), error_messages={"max_length": TOO_LONG}
    )
    ip = forms.GenericIPAddressField(required=False, label=_("IP address"), error_messages={"invalid": BAD_IP})

    def clean_post(self) -> Discussion | None:
        slug = self.cleaned_data["post"].strip()
        if not slug:
            return None
        post = get_host().get_by_slug(unicodedata.normalize("NFC", slug))
        if post is None:
            raise forms.ValidationError(NO_SUCH_POST_SLUG, code="no_such_post")
        return post


class ObjectIdsField(forms.Field):
    """A list of MongoDB ids from checkboxes; anything else is refused."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[ObjectId]:
        values = value if isinstance(value, (list, tuple)) else ([value] if value else [])
        if len(values) > MAX_CHOSEN:
            raise forms.ValidationError(BAD_CHOICE, code="too_many")
        ids = [parse_id(v) for v in values]
        found = [oid for oid in ids if oid is not None]
        if len(found) != len(ids):
            raise forms.ValidationError(BAD_CHOICE, code="bad_id")
        return found


class ModerationForm(forms.Form):
    """A queue action: approve, spam or delete the chosen comments (bulk), or, from
    one comment's row, remove its sub-thread or ban its author."""

    action = forms.ChoiceField(
        required=False,
        choices=[
            ("approve", pgettext_lazy("moderation action", "Approve")),
            ("spam", pgettext_lazy("moderation action", "Spam")),
            ("delete", pgettext_lazy("moderation action", "Delete")),
        ],
        error_messages={"invalid_choice": NOTHING_CHOSEN},
    )
    ids = ObjectIdsField(required=False)
    # One comment's own button: "thread:<id>", "ban:<id>", "pick:<id>", "unpick:<id>", or a
    # branch's: "lock:<id>", "unlock:<id>", "slow:<id>" (with `seconds`), "unslow:<id>".
    one = forms.CharField(required=False, max_length=40)
    # Slow mode's wait, checked in `clean` (the queue shows only the form's own errors).
    seconds = forms.CharField(required=False, max_length=10)
    next = forms.CharField(required=False, max_length=2000)
    # Sent by the confirmation page's button: spam, delete, thread and ban happen only then.
    confirmed = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        one = data.get("one") or ""
        if one:
            kind, _, raw = one.partition(":")
            ids = ObjectIdsField().clean([raw]) if kind in ONE_KINDS and raw else None
            if not ids:
                raise forms.ValidationError(BAD_CHOICE, code="bad_choice")
            data["seconds"] = slow_seconds(data.get("seconds") or "") if kind == "slow" else 0
            data["action"], data["ids"] = kind, ids
        elif not data.get("action") or not data.get("ids"):
            raise forms.ValidationError(NOTHING_CHOSEN, code="nothing_chosen")
        return data


def slow_seconds(raw: str) -> int:
    """Slow mode's wait from the form: whole seconds, SLOW_LEAST to SLOW_MOST."""
    value = raw.strip()
    if not (value.isascii() and value.isdigit()) or not SLOW_LEAST <= int(value) <= SLOW_MOST:
        raise forms.ValidationError(BAD_SECONDS, code="bad_seconds")
    return int(value)


class BlocklistForm(forms.Form):
    """A blocked word or phrase, or a blocked e-mail domain: comments with it wait
    for an editor."""

    kind = forms.ChoiceField(
        label=pgettext_lazy("blocklist entry", "Kind"),
        choices=[("word", _("Word or phrase in the text")), ("domain", _("E-mail domain"))],
        widget=forms.RadioSelect, initial="word",
    )
    value = forms.CharField(max_length=100, label=_("Word, phrase or domain"),
                            error_messages={"required": EMPTY_TERM, "max_length": TOO_LONG})

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        value = " ".join(data.get("value", "").split())
        if data.get("kind") == "domain" and value and not DOMAIN_RE.fullmatch(value):
            self.add_error("value", forms.ValidationError(BAD_DOMAIN, code="bad_domain"))
        data["value"] = value
        return data


NO_REASON = _("Say why: the member is shown the reason when they try to comment.")
UNTIL_MISSING = _("Give the date and time the ban ends, or choose another length.")
UNTIL_PAST = _("The ban's end must be in the future.")
# How long a ban lasts: days, a chosen end, or for good.
UNTIL, PERMANENT = "until", "permanent"
BAN_LENGTHS = [
    ("1", pgettext_lazy("ban length", "1 day")),
    ("7", pgettext_lazy("ban length", "7 days")),
    ("30", pgettext_lazy("ban length", "30 days")),
    ("365", pgettext_lazy("ban length", "1 year")),
    (UNTIL, pgettext_lazy("ban length", "Until the date below")),
    (PERMANENT, pgettext_lazy("ban length", "Permanent")),
]


def ban_end(*, length: str, until: datetime | None, now: datetime) -> datetime | None:
    """When a ban of this `length` (one of BAN_LENGTHS) made at `now` ends; None: never."""
    if length == PERMANENT:
        return None
    if length == UNTIL:
        return until
    return now + timedelta(days=int(length))


class BanForm(forms.Form):
    """A member's ban by account: why (shown to them), and for how long."""

    reason = forms.CharField(max_length=bans.REASON_MAX_LENGTH, label=_("Reason (the member sees it)"),
                             widget=forms.Textarea(attrs={"rows": 2}),
                             error_messages={"required": NO_REASON, "max_length": TOO_LONG})
    length = forms.ChoiceField(label=pgettext_lazy("ban length", "Length"), choices=BAN_LENGTHS, initial="7",
                               widget=forms.RadioSelect)
    until = forms.DateTimeField(required=False, label=_("Ends (date and time)"),
                                widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"])

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        data["reason"] = " ".join(str(data.get("reason") or "").split())
        if not data["reason"] and "reason" not in self.errors:
            self.add_error("reason", forms.ValidationError(NO_REASON, code="required"))
        length, until = data.get("length"), data.get("until")
        if length == UNTIL and until is None and "until" not in self.errors:
            self.add_error("until", forms.ValidationError(UNTIL_MISSING, code="until_missing"))
        elif length:
            data["ends"] = ban_end(length=length, until=until, now=timezone.now())
            if data["ends"] is not None and data["ends"] <= timezone.now():
                self.add_error("until", forms.ValidationError(UNTIL_PAST, code="until_past"))
        return data
