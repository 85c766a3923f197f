from django.urls import path

from comments.notifications import moderation_views, views

app_name = "subscriptions"

# The pages behind the links in notification mail: under every discussion's prefix
# (comments/urls.py), and wherever a host mounts them for the whole site (Slugline:
# notifications/, slugline/urls.py). Where mail links to: comments/notifications/links.py.
urlpatterns = [
    path("", views.ask, name="ask"),
    path("confirm/<str:token>/", views.confirm, name="confirm"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("manage/<str:token>/", views.manage, name="manage"),
    # The Approve, Spam and Delete links of the editors' queue mail (docs/moderation.md).
    path("moderate/<str:token>/", moderation_views.moderate, name="moderate"),
]
