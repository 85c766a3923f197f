from django.urls import include, path

urlpatterns = [
    path("accounts/", include("allauth.urls")),
    path("", include("allauth.idp.urls")),
]
