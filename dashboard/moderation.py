"""Opening or closing a post's comments (its author or an editor), and what the post
editor shows about them. The moderation queue and the blocklist are the comments
app's own pages (comments.moderation.urls), mounted at /dashboard/moderation/."""

from django.contrib import messages
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_POST

from cms import posts
from comments import api as comments_api
from dashboard.moderation_forms import CommentsClosedForm
from dashboard.permissions import check_can_edit, staff_required
from infra.http import see_other

# Marked for translation here, translated where they are shown (gettext).
NO_SUCH_POST = gettext_noop("There is no post at this address.")
COMMENTS_CLOSED = gettext_noop("Comments on this post are closed.")
COMMENTS_OPENED = gettext_noop("Comments on this post are open.")


@staff_required
@require_POST
def post_comments(request, post_id):
    """Close a post's comments, or open them again (its author or an editor)."""
    post = posts.get_by_id(post_id)
    if post is None:
        raise Http404(gettext(NO_SUCH_POST))
    check_can_edit(request.user, post)
    form = CommentsClosedForm(request.POST)
    closed = form.is_valid() and form.cleaned_data["closed"]
    posts.set_comments_closed(post_id=post.id, closed=closed)
    messages.success(request, gettext(COMMENTS_CLOSED if closed else COMMENTS_OPENED))
    return see_other(reverse("dashboard:post_edit", args=[post.id]))


def comments_state(post: posts.Post) -> dict:
    """What the post editor shows about the post's comments."""
    return {"closed_by_hand": post.comments_closed, "closed": comments_api.comments_closed(discussion=post),
            "close_after_days": comments_api.close_after_days()}

