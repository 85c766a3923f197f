from django.urls import path

from comments.notifications import views

app_name = "subscriptions"

# The pages behind the links in notification mail: under every discussion's prefix
# (comments/urls.py), and wherever a host mounts them for the whole site (Slugline:
# notifications/, slugline/urls.py). Where mail links to: comments/notifications/links.py.
urlpatterns = [
    path("", views.ask, name="ask"),
    path("confirm/<str:token>/", views.confirm, name="confirm"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("manage/<str:token>/", views.manage, name="manage"),
]
