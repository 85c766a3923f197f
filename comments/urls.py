from django.urls import path

from comments import views, vote_views

app_name = "comments"

# The action routes come first: `<path:…>` would also match ".../edit". No slug part
# is named edit, delete, flag, vote or votes (parts are 8 characters).
urlpatterns = [
    path("", views.discussion, name="discussion"),
    path("votes/", vote_views.my_votes, name="my_votes"),
    path("<path:comment_path>/vote/", vote_views.vote, name="vote"),
    path("latest/", views.latest, name="latest"),
    path("<path:comment_path>/edit/", views.edit, name="edit"),
    path("<path:comment_path>/delete/", views.delete, name="delete"),
    path("<path:comment_path>/flag/", views.flag, name="flag"),
    path("<path:comment_path>/", views.permalink, name="permalink"),
]
