"""The API's write bodies checked by the comment forms' own rules (the same fields,
limits, messages and codes as the HTML forms): the comments app's forms, less what
only a browser's form carries (its signed token, honeypot and fill time: the API
accepts writes from signed-in members and tokens only)."""

from __future__ import annotations

from django import forms

from comments.rest import CommentForm, CommentTextMixin, EditCommentForm, FlagForm

__all__ = ["NewCommentForm", "EditCommentForm", "FlagForm"]


class NewCommentForm(CommentTextMixin, forms.Form):
    """A member's new comment or reply: the text and parent checks of CommentForm."""

    text = forms.CharField(widget=forms.Textarea)
    parent = forms.CharField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._set_up_text()

    clean_parent = CommentForm.clean_parent
