from django.urls import include, path

from blog import views

urlpatterns = [
    path("posts/<slug:slug>/", views.post_detail, name="post"),
    path("comments/", include("django_comments_xtd.urls")),
]
