from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bson import ObjectId
from django import forms
from django.core.validators import MaxLengthValidator
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from comments import addresses, conf, slugs
from comments.host import get_host
from comments.moderation import flags
from comments.posting import members, names, ownership, tokens
from infra.http import undecodable_fields

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser
    from django.http import HttpRequest


EMPTY_TEXT = gettext_noop("Write something before posting.")
TOO_LONG = gettext_noop("Comments can be at most %(limit_value)s characters; this one has %(show_value)s.")
NAME_REQUIRED = gettext_noop("Tell us your name, so readers know who wrote this.")
BAD_PARENT = gettext_noop("The comment you replied to does not exist on this post.")
HONEYPOT = gettext_noop(
    "This form was filled in by a program, so nothing was posted. If you are a person, "
    "please post again: your text is kept below."
)
BAD_REASON = gettext_noop("Choose why this comment should be looked at.")
NOTE_TOO_LONG = gettext_noop("Say it in at most %(limit_value)d characters; this has %(show_value)d.")
EMAIL_FOR_NOTICES = gettext_noop("Give your e-mail address to get replies by mail, or untick the box.")
NO_ACCOUNT_EMAIL = gettext_noop("Your account has no e-mail address, so no mail can be sent to you; untick the box.")
NAME_MAX_LENGTH = 80
NOTE_MAX_LENGTH = 500
BAD_ADDRESS_CHARACTERS = gettext_noop("An e-mail address cannot hold line breaks or other control characters.")
NOT_UTF8 = gettext_noop(
    "This arrived damaged: some of its bytes were not UTF-8 text (each is shown as �). Check it, then "
    "send it again."
)
# The honeypot: a field people never see (hidden by the stylesheet, skipped by the
# keyboard and by screen readers) that form-filling robots do fill in.
HONEYPOT_FIELD = "website"


@dataclass(frozen=True)
class Preview:
    """A comment's text as the Preview button shows it (comments/posting/previews.py): the
    rendered text, or why it cannot be posted as it is."""

    html: SafeString = mark_safe("")
    errors: list[str] = field(default_factory=list)


class AddressField(forms.EmailField):
    """An e-mail address, normalised as mail is delivered to it (comments/addresses.py:
    "dave@ｔarget.test" is "dave@target.test") before it is checked and used, so
    limits, bans and subscriptions see one spelling per mailbox. Line breaks and
    other control characters are refused, not cleaned away."""

    def to_python(self, value: Any) -> Any:
        if value not in self.empty_values and addresses.has_control_characters(value):
            raise forms.ValidationError(gettext(BAD_ADDRESS_CHARACTERS), code="invalid")
        value = super().to_python(value)
        return addresses.normalise(value) if value else value


def grouped(number: int) -> str:
    """A number as the active language groups its digits ("10,000"; "10.000" in Vietnamese)."""
    return number_format(number, force_grouping=True)


class TextLengthValidator(MaxLengthValidator):
    """MaxLengthValidator whose message writes its numbers as the reader's language does."""

    def __call__(self, value: Any) -> None:
        length = self.clean(value)
        if self.compare(length, self.limit_value):
            raise forms.ValidationError(self.message, code=self.code,
                                        params={"limit_value": grouped(self.limit_value), "show_value": grouped(length)})


class CommentTextMixin:
    """The comment's text, validated the same way for new comments and edits. The
    server judges the length (no `maxlength`, which would cut a long paste without a
    word): the form comes back with the whole text and TOO_LONG; the page's script
    counts as the reader types (comments/static/comments/js/text-count.js, from `data-limit`)."""

    fields: dict[str, Any]  # the form's (forms.Form sets them)

    def _set_up_text(self) -> None:
        limit = conf.get().max_length
        text = self.fields["text"]
        text.validators.append(TextLengthValidator(limit, message=gettext(TOO_LONG)))
        text.error_messages["required"] = gettext(EMPTY_TEXT)
        text.widget.attrs["data-limit"] = str(limit)
        text.widget.attrs["aria-describedby"] = f"{self['text'].auto_id}-count"  # type: ignore[index]

    @property
    def text_limit(self) -> str:
        """COMMENTS_MAX_LENGTH as the form's note says it ("At most 10,000 characters")."""
        return grouped(conf.get().max_length)


class CommentForm(CommentTextMixin, forms.Form):
    """A new comment or reply. Anonymous readers give a name (and maybe an e-mail);
    logged-in users post as themselves."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), label=_("Comment"))
    parent = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(required=False, max_length=NAME_MAX_LENGTH, label=_("Name"))
    email = AddressField(
        required=False, label=_("E-mail (optional, never shown)"), max_length=254
    )
    website = forms.CharField(
        required=False, label=_("Leave this empty"),
        widget=forms.TextInput(attrs={"autocomplete": "off", "tabindex": "-1"}),
    )
    # Reply notifications by mail (comments/notifications/notify.py): an anonymous reader's address
    # gets mail only once confirmed; a member's account address needs no confirming.
    notify_replies = forms.BooleanField(required=False, label=_("E-mail me replies to my comment"))
    follow_discussion = forms.BooleanField(required=False, label=_("Follow this discussion (every new comment)"))
    # Signed by the site for this discussion; its key makes posting the same form twice
    # store one comment (see comments/posting/tokens.py).
    token = forms.CharField(required=False, widget=forms.HiddenInput)
    # The Preview button's rendering (comments/posting/previews.py), drawn above the buttons.
    preview: Preview | None = None
    data: Any  # what was sent (a QueryDict), copied when changed

    def __init__(self, *args: Any, user: AbstractBaseUser | AnonymousUser | None = None,
                 discussion_id: ObjectId | None, browser: str = "", damaged: frozenset[str] = frozenset(),
                 next_url: str = "/", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user, self.discussion_id, self.browser = user, discussion_id, browser
        # The fields whose bytes were not UTF-8 (infra.http.undecodable_fields).
        self.damaged = damaged
        if not self.is_bound:
            self.initial["token"] = tokens.issue(discussion_id=discussion_id, browser=browser)
        self._set_up_text()
        # Why this reader cannot comment now (comments/posting/members.py), or None:
        # the form shows its link instead of its fields, and refuses what is sent.
        self.barrier = members.refusal(user, next_url=next_url)
        if self.is_member:
            del self.fields["name"], self.fields["email"]
        elif self.barrier is None:
            self.fields["name"].required = True
            self.fields["name"].error_messages["required"] = gettext(NAME_REQUIRED)

    @property
    def is_member(self) -> bool:
        return bool(self.user and self.user.is_authenticated)

    @property
    def anonymous_notice(self) -> str:
        """What a stranger's form says where only strangers may comment ("" elsewhere)."""
        return gettext(members.ANONYMOUS_ONLY) if not self.is_member and members.anonymous_only() else ""

    @property
    def member_name(self) -> str:
        """The name a member's comments are signed with ("" for a stranger)."""
        return get_host().commenter_name(self.user) if self.is_member else ""

    @property
    def kept_text(self) -> str:
        """The text the reader sent (or a preview kept), for a page that cannot draw the form."""
        return str((self.data if self.is_bound else self.initial).get("text") or "")

    @property
    def writing_fields(self) -> list[Any]:
        """The fields a person fills in (the visible ones but the honeypot)."""
        return [field for field in self.visible_fields() if field.name != HONEYPOT_FIELD]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.barrier is not None:
            link = format_html('<a href="{}">{}</a>', self.barrier.url, self.barrier.label) if self.barrier.url else ""
            raise forms.ValidationError(format_html("{} {} {}", self.barrier.message, link, gettext(members.KEPT)),
                                        code=self.barrier.code)
        for name in sorted(self.damaged & {field.name for field in self.writing_fields}):
            self.add_error(name, forms.ValidationError(gettext(NOT_UTF8), code="not_utf8"))
        if data.get(HONEYPOT_FIELD):
            raise forms.ValidationError(gettext(HONEYPOT), code="honeypot")
        token = data.get("token") or ""
        try:
            data["form_key"] = tokens.read(
                token, discussion_id=self.discussion_id, max_age=conf.get().form_max_age,
            )
            if not self.is_member:
                tokens.check_fill_time(token, min_seconds=conf.get().min_fill_seconds)
        except tokens.TokenError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None
        # Sent back by the browser the form was rendered for (not replayed by another).
        data["from_this_browser"] = tokens.issued_to(token, self.browser)
        self._check_notice_address(data)
        return data

    def _check_notice_address(self, data: dict[str, Any]) -> None:
        """Notices need an address: the typed one, or a member's account's."""
        if not (data.get("notify_replies") or data.get("follow_discussion")):
            return
        if self.is_member:
            if not self._account_address:
                self.add_error("notify_replies", forms.ValidationError(gettext(NO_ACCOUNT_EMAIL), code="no_email"))
        elif not data.get("email") and "email" not in self.errors:
            self.add_error("email", forms.ValidationError(gettext(EMAIL_FOR_NOTICES), code="email_required"))

    @property
    def notice_address(self) -> str:
        """Where this commenter's notices go: their account's address, or the typed one."""
        if self.is_member:
            return self._account_address
        return self.cleaned_data.get("email", "")

    @property
    def _account_address(self) -> str:
        """A member's account's address as their host vouches for it ("" when none):
        their mail needs no confirming."""
        return get_host().member_address(self.user) if self.user is not None else ""

    def renew_token(self) -> None:
        """Give a refused form a fresh token, so the reader can post what they wrote."""
        self.data = self.data.copy()
        self.data["token"] = tokens.issue(discussion_id=self.discussion_id, browser=self.browser)

    def clear_honeypot(self) -> None:
        """Empty the honeypot of a refused form (a browser's autofill may have filled it)."""
        self.data = self.data.copy()
        self.data[HONEYPOT_FIELD] = ""

    def clean_name(self) -> str:
        """The name cleaned as every stored name is (comments/posting/names.py: no bidi
        controls or invisible characters), refused if it would pass for an author's."""
        name = names.clean(self.cleaned_data.get("name", ""))
        if not name and self.fields["name"].required:
            raise forms.ValidationError(gettext(NAME_REQUIRED), code="required")
        if name and names.is_taken(name):
            raise forms.ValidationError(gettext(names.TAKEN).format(name=name), code="name_taken")
        return name

    def clean_parent(self) -> str:
        parent = self.cleaned_data["parent"].strip()
        if parent and not slugs.is_slug_path(parent):
            raise forms.ValidationError(gettext(BAD_PARENT), code="bad_parent")
        return parent


def comment_form(request: HttpRequest, discussion_id: ObjectId | None, data: Any = None,
                 **initial: Any) -> CommentForm:
    """The comment form for this request's reader: a fresh one (an anonymous reader's
    name and e-mail as they last gave them), or the one they sent (`data`).
    `discussion_id` is None only for a form drawn again while the discussion cannot
    be read (an outage): it keeps the token it was sent with."""
    if data is None and not request.user.is_authenticated:
        initial = {**ownership.remembered_author(request), **initial}
    return CommentForm(data, initial=initial, user=request.user, discussion_id=discussion_id,
                       browser=tokens.browser_key(request), next_url=request.get_full_path(),
                       damaged=undecodable_fields(request) if data is not None else frozenset())


class EditCommentForm(CommentTextMixin, forms.Form):
    """An author's edit of their own comment: the text, checked as a new one is."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), label=_("Comment"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._set_up_text()


class FlagForm(forms.Form):
    """A reader's report of a comment: why, and optionally a word more."""

    reason = forms.ChoiceField(
        choices=list(flags.REASONS.items()), widget=forms.RadioSelect, label=_("What is wrong with it?"),
        error_messages={"required": _(BAD_REASON), "invalid_choice": _(BAD_REASON)},
    )
    note = forms.CharField(
        required=False, label=_("Anything to add (optional)"), max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}), error_messages={"max_length": _(NOTE_TOO_LONG)},
    )
