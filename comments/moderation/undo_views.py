"""The button in a queue action's confirmation message that undoes it
(comments/moderation/undo.py): a POST with Django's CSRF check, by the editor who
acted, within ten minutes. Thin: token -> undo -> redirect with what was put back,
or a page in the moderation layout saying why nothing was."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext, ngettext_lazy
from django.views.decorators.http import require_POST

from comments.moderation import undo as undoing
from comments.moderation.views import STILL_APPLYING, _back, _render, moderator_required
from infra.http import see_other

UNDONE = ngettext_lazy("Undone: {count} comment is back as it was.",
                       "Undone: {count} comments are back as they were.", "count")
SKIPPED = ngettext_lazy(
    "{count} comment was left as it is: it was changed since by a later decision.",
    "{count} comments were left as they are: they were changed since by a later decision.", "count",
)


@moderator_required
@require_POST
def undo(request: HttpRequest) -> HttpResponse:
    """Undo the action the posted token names, and say how many comments are back."""
    back = _back(request, request.POST.get("next"))
    try:
        undone = undoing.undo(token=request.POST.get("token", ""), editor_id=request.user.pk,
                              editor=request.user.get_username())
    except undoing.UndoRefused as exc:
        context = {"reason": gettext(exc.message), "back": back}
        return _render(request, "comments/moderation/undo_refused.html", context, status=exc.status)
    messages.success(request, UNDONE.format(count=undone.restored))
    if undone.skipped:
        messages.info(request, SKIPPED.format(count=undone.skipped))
    if not undone.done:
        messages.info(request, gettext(STILL_APPLYING))
    return see_other(back)
