"""The reader's forms (the dashboard's are in dashboard/forms.py)."""

from django import forms

SEARCH_MAX_LENGTH = 100
SEARCH_TOO_LONG = "Search for at most %(limit_value)d characters; this has %(show_value)d."


class SearchForm(forms.Form):
    """Words to find in published posts' titles and text, matched literally."""

    q = forms.CharField(
        required=False,
        max_length=SEARCH_MAX_LENGTH,
        label="Search posts",
        error_messages={"max_length": SEARCH_TOO_LONG},
        widget=forms.TextInput(attrs={"type": "search"}),
    )
