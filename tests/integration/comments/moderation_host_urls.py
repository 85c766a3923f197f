"""A host without Slugline's dashboard: the moderation pages mounted on their own (no
namespace) and the admin page of comments (test_moderation_elsewhere.py). The blog's
own pages follow: its layout and posts reverse their addresses."""

from django.contrib import admin
from django.urls import include, path

from slugline import urls as slugline_urls

urlpatterns = [
    path("moderate/", include("comments.moderation.urls")),
    path("admin/comments/", include("comments.moderation.admin_urls")),
    path("admin/", admin.site.urls),
    path("", include(slugline_urls)),
]
