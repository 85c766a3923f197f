"""The admin page of comments and the moderation queue it links to (comments/moderation/admin.py):
`path("admin/comments/", include("comments.moderation.admin_urls"))`."""

from django.contrib import admin
from django.urls import include, path

from comments.moderation import admin as admin_views

app_name = "comments_admin"

urlpatterns = [
    path("", admin.site.admin_view(admin_views.comment_list), name="list"),
    path("moderation/", include("comments.moderation.urls")),
]
