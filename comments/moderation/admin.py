"""A Django admin page for a host without a moderation dashboard: the held, flagged
and recent comments, newest first, each with a link to act on it in the moderation
queue. Comments are not ORM models, so it is a page of the admin site, not a
ModelAdmin: mount it with

    path("admin/comments/", include("comments.moderation.admin_urls")),

before `path("admin/", admin.site.urls)`. The page (and the queue it links to, mounted
under it) is wrapped in `admin.site.admin_view` (staff only, the admin's login), and the
queue's own pages still ask the host's `can_moderate`."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _, pgettext_lazy

from comments.moderation import queue as moderation
from comments.records import QueueFilter

# The lists the page shows, and how many comments of each.
SHOWN = 20
LISTS = [
    ("pending", pgettext_lazy("comment queue", "Pending")),
    ("flagged", pgettext_lazy("comment queue", "Flagged")),
    ("recent", pgettext_lazy("comment queue", "Recent")),
]


def comment_list(request: HttpRequest) -> HttpResponse:
    """The held, flagged and recent comments, with their counts and a link to each queue."""
    filters = QueueFilter()
    counts = moderation.tab_counts(filters=filters)
    queue_url = reverse("comments_admin:moderation")
    lists = [
        {"key": key, "label": label, "count": counts.get(key, 0), "url": f"{queue_url}?tab={key}",
         "entries": moderation.queue_page(tab=key, filters=filters, skip=0, limit=SHOWN)}
        for key, label in LISTS
    ]
    context = {"title": _("Comments"), "lists": lists, "queue_url": queue_url}
    return render(request, "comments/moderation/admin.html", context)
