from django.urls import path

from comments.views import changing, posting, reading
from comments.views import votes as vote_views

app_name = "comments"

# The action routes come first: `<path:…>` would also match ".../edit". No slug part
# is named edit, delete, flag, vote or votes (parts are 8 characters).
urlpatterns = [
    path("", posting.discussion, name="discussion"),
    path("votes/", vote_views.my_votes, name="my_votes"),
    path("<path:comment_path>/vote/", vote_views.vote, name="vote"),
    path("latest/", reading.latest, name="latest"),
    path("<path:comment_path>/edit/", changing.edit, name="edit"),
    path("<path:comment_path>/delete/", changing.delete, name="delete"),
    path("<path:comment_path>/flag/", changing.flag, name="flag"),
    path("<path:comment_path>/", reading.permalink, name="permalink"),
]
