from django.urls import include, path

from comments.views import changing, following, posting, reading
from comments.views import votes as vote_views

app_name = "comments"

# The action routes come first: `<path:…>` would also match ".../edit". No slug part
# is named edit, delete, flag, follow, vote or votes (parts are 8 characters), nor notifications:
# the subscription pages behind notification mail are here too (namespace
# comments:subscriptions), so a host needs no other line for them
# (comments/notifications/links.py).
urlpatterns = [
    path("", posting.discussion, name="discussion"),
    path("notifications/", include("comments.notifications.urls")),
    path("votes/", vote_views.my_votes, name="my_votes"),
    path("<path:comment_path>/vote/", vote_views.vote, name="vote"),
    path("latest/", reading.latest, name="latest"),
    path("<path:comment_path>/edit/", changing.edit, name="edit"),
    path("<path:comment_path>/delete/", changing.delete, name="delete"),
    path("<path:comment_path>/flag/", changing.flag, name="flag"),
    path("<path:comment_path>/follow/", following.follow, name="follow"),
    path("<path:comment_path>/", reading.permalink, name="permalink"),
]
