from django.urls import path

from comments import views

app_name = "comments"

# The action routes come first: `<path:…>` would also match ".../edit". No slug part
# is named edit, delete or flag (parts are 8 characters).
urlpatterns = [
    path("", views.discussion, name="discussion"),
    path("latest/", views.latest, name="latest"),
    path("<path:comment_path>/edit/", views.edit, name="edit"),
    path("<path:comment_path>/delete/", views.delete, name="delete"),
    path("<path:comment_path>/flag/", views.flag, name="flag"),
    path("<path:comment_path>/", views.permalink, name="permalink"),
]
