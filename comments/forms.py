from django import forms
from django.conf import settings
from django.core.validators import MaxLengthValidator

from comments import slugs, tokens

EMPTY_TEXT = "Write something before posting."
TOO_LONG = "Comments can be at most %(limit_value)d characters; this one has %(show_value)d."
NAME_REQUIRED = "Tell us your name, so readers know who wrote this."
BAD_PARENT = "The comment you replied to does not exist on this post."
NAME_MAX_LENGTH = 80


class CommentForm(forms.Form):
    """A new comment or reply. Anonymous readers give a name (and maybe an e-mail);
    logged-in users post as themselves."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), label="Comment")
    parent = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(required=False, max_length=NAME_MAX_LENGTH, label="Name")
    email = forms.EmailField(
        required=False, label="E-mail (optional, never shown)", max_length=254
    )
    # Signed by the site for this post; its key makes posting the same form twice
    # store one comment (see comments/tokens.py).
    token = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, user=None, discussion_id, **kwargs):
        super().__init__(*args, **kwargs)
        self.user, self.discussion_id = user, discussion_id
        if not self.is_bound:
            self.initial["token"] = tokens.issue(discussion_id=discussion_id)
        limit = settings.COMMENTS_MAX_LENGTH
        text = self.fields["text"]
        text.validators.append(MaxLengthValidator(limit, message=TOO_LONG))
        text.error_messages["required"] = EMPTY_TEXT
        text.widget.attrs["maxlength"] = str(limit)
        if self.is_member:
            del self.fields["name"], self.fields["email"]
        else:
            self.fields["name"].required = True
            self.fields["name"].error_messages["required"] = NAME_REQUIRED

    @property
    def is_member(self) -> bool:
        return bool(self.user and self.user.is_authenticated)

    def clean(self):
        data = super().clean()
        try:
            data["form_key"] = tokens.read(
                data.get("token") or "", discussion_id=self.discussion_id,
                max_age=settings.COMMENTS_FORM_MAX_AGE,
            )
        except tokens.TokenError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None
        return data

    def renew_token(self) -> None:
        """Give a refused form a fresh token, so the reader can post what they wrote."""
        self.data = self.data.copy()
        self.data["token"] = tokens.issue(discussion_id=self.discussion_id)

    def clean_parent(self) -> str:
        parent = self.cleaned_data["parent"].strip()
        if parent and not slugs.is_slug_path(parent):
            raise forms.ValidationError(BAD_PARENT, code="bad_parent")
        return parent
