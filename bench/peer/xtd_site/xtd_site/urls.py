from blog import views
from django.urls import include, path

urlpatterns = [
    path("posts/<slug:slug>/", views.post_detail, name="post"),
    path("comments/", include("django_comments_xtd.urls")),
]
