"""The moderation pages' addresses, for a host to mount where its moderators work:
`path("moderation/", include("comments.moderation.urls"))`. No namespace of their
own: the names (moderation, moderate, moderation_undo, blocklist, blocklist_remove, and a member's
history page with its actions: member, member_ban, member_unban) join the
namespace of the URLconf that includes them, and the pages reverse them there."""

from django.urls import path

from comments.moderation import member_views, undo_views, views

urlpatterns = [
    path("", views.queue, name="moderation"),
    path("actions/", views.moderate, name="moderate"),
    path("actions/undo/", undo_views.undo, name="moderation_undo"),
    path("blocklist/", views.blocklist_page, name="blocklist"),
    path("blocklist/<str:entry_id>/remove/", views.blocklist_remove, name="blocklist_remove"),
    path("members/<int:user_id>/", member_views.member, name="member"),
    path("members/<int:user_id>/ban/", member_views.member_ban, name="member_ban"),
    path("members/<int:user_id>/unban/", member_views.member_unban, name="member_unban"),
]
