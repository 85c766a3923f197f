"""The reader's forms (the dashboard's are in dashboard/post_forms.py, author_forms.py,
moderation_forms.py and media_forms.py)."""

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

SEARCH_MAX_LENGTH = 100
SEARCH_TOO_LONG = gettext_noop("Search for at most %(limit_value)d characters; this has %(show_value)d.")


class SearchForm(forms.Form):
    """Words to find in published posts' titles and text, matched literally."""

    q = forms.CharField(
        required=False,
        max_length=SEARCH_MAX_LENGTH,
        label=_("Search posts"),
        error_messages={"max_length": _(SEARCH_TOO_LONG)},
        widget=forms.TextInput(attrs={"type": "search"}),
    )
