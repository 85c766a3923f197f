from django.shortcuts import get_object_or_404, render

from recipes.models import Recipe


def recipe(request, slug):
    return render(request, "recipes/recipe.html", {"recipe": get_object_or_404(Recipe, slug=slug)})
