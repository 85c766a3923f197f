from django.contrib import admin
from django.urls import include, path

from cms import views

urlpatterns = [
    path("", views.home, name="home"),
    path("posts/<slug:slug>/", views.post_detail, name="post"),
    path("posts/<slug:post_slug>/comments/", include("comments.urls")),
    path("admin/", admin.site.urls),
]

handler400 = "cms.errors.bad_request"
handler403 = "cms.errors.permission_denied"
handler404 = "cms.errors.page_not_found"
