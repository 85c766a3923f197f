from django.urls import path, re_path

from media import views

urlpatterns = [
    re_path(r"^(?P<key>[0-9a-f]{32})/$", views.image, name="media_image"),
    path("<str:key>/<int:width>.<str:ext>", views.rendition, name="media_rendition"),
]
