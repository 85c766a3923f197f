from django.urls import path

from comments import views

app_name = "comments"

urlpatterns = [
    path("", views.discussion, name="discussion"),
    path("<path:comment_path>/", views.permalink, name="permalink"),
]
