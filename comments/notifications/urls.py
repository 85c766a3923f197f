from django.urls import path

from comments.notifications import views

app_name = "subscriptions"

# Mounted at notifications/ (slugline/urls.py): the links in notification mail.
urlpatterns = [
    path("", views.ask, name="ask"),
    path("confirm/<str:token>/", views.confirm, name="confirm"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("manage/<str:token>/", views.manage, name="manage"),
]
