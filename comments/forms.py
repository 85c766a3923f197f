from django import forms
from django.conf import settings
from django.core.validators import MaxLengthValidator

from comments import slugs

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

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
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

    def clean_parent(self) -> str:
        parent = self.cleaned_data["parent"].strip()
        if parent and not slugs.is_slug_path(parent):
            raise forms.ValidationError(BAD_PARENT, code="bad_parent")
        return parent
