"""The dashboard's form for a post's discussion: open or closed. (The moderation
queue's and the blocklist's forms are the comments app's: comments/moderation/forms.py.)"""

from django import forms


class CommentsClosedForm(forms.Form):
    """A post's discussion: open to new comments, or closed."""

    closed = forms.BooleanField(required=False)
