from django.urls import include, path

from recipes import views

urlpatterns = [
    path("recipes/<slug:slug>/", views.recipe, name="recipe"),
    path("recipes/<slug:discussion>/comments/", include("comments.urls")),  # comments
]
