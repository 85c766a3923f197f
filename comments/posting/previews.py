"""A comment's text as it would be posted, for the form's Preview button: the same
checks (comments.forms.CommentTextMixin: not empty, at most COMMENTS_MAX_LENGTH
characters) and the same renderer and sanitiser (infra.markup.render_comment, bounded
in time and size) as posting, and nothing stored. Plain functions; no request.
"""

from __future__ import annotations

from django.utils.safestring import mark_safe

from comments.posting.forms import EditCommentForm, Preview
from infra.markup import render_comment

# The value of the comment form's second submit button (`name="action"`).
PREVIEW = "preview"


def preview(text: str) -> Preview:
    """`text` checked and rendered as posting would check and render it."""
    form = EditCommentForm({"text": text})
    if not form.is_valid():
        return Preview(errors=list(form.errors["text"]))
    return Preview(html=mark_safe(render_comment(form.cleaned_data["text"])))
