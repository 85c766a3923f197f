"""A brand-new Django project with the comments app dropped in by the five lines of
docs/distribution.md (and a `recipes` app whose recipes are the discussions): what
`make wheel-check` builds in a fresh virtualenv, and what tests/unit/test_distribution.py
reads its settings from."""

from __future__ import annotations

import subprocess
from pathlib import Path

# The five lines (issue 41), as they go into the project's files.
SETTINGS_LINES = '''
INSTALLED_APPS += ["recipes"]  # the project's own app, not one of the five lines
INSTALLED_APPS += ["comments"]
COMMENTS_MONGODB_URI = {uri!r}
COMMENTS_DISCUSSION_MODEL = "recipes.Recipe"
'''
URL_LINE = 'path("recipes/<slug:discussion>/comments/", include("comments.urls")),'
TEMPLATE = '''<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ recipe.title }}</title></head>
<body><h1>{{ recipe.title }}</h1>
{% load comments %}{% comment_section recipe %}
</body></html>
'''
RECIPES = {
    "__init__.py": "",
    "apps.py": ("from django.apps import AppConfig\n\n\nclass RecipesConfig(AppConfig):\n"
                "    name = \"recipes\"\n    default_auto_field = \"django.db.models.BigAutoField\"\n"),
    "models.py": ("from django.db import models\nfrom django.urls import reverse\n\n\n"
                  "class Recipe(models.Model):\n    slug = models.SlugField(unique=True)\n"
                  "    title = models.CharField(max_length=200)\n\n"
                  "    def get_absolute_url(self):\n        return reverse(\"recipe\", args=[self.slug])\n"),
    "views.py": ("from django.shortcuts import get_object_or_404, render\n\nfrom recipes.models import Recipe\n\n\n"
                 "def recipe(request, slug):\n"
                 "    return render(request, \"recipes/recipe.html\", {\"recipe\": get_object_or_404(Recipe, slug=slug)})\n"),
    "templates/recipes/recipe.html": TEMPLATE,
}


def make_project(root: Path, *, uri: str, python: str) -> Path:
    """`django-admin startproject kitchen` in `root`, with the recipes app and the five
    lines; the project's directory (manage.py's)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run([python, "-m", "django", "startproject", "kitchen", str(root)], check=True)
    for name, text in RECIPES.items():
        path = root / "recipes" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    settings = root / "kitchen" / "settings.py"
    settings.write_text(settings.read_text() + SETTINGS_LINES.format(uri=uri))
    urls = root / "kitchen" / "urls.py"
    text = urls.read_text().replace("from django.urls import path", "from django.urls import include, path\n"
                                    "from recipes.views import recipe")
    text = text.replace("    path('admin/', admin.site.urls),", "    path('admin/', admin.site.urls),\n"
                        "    path('recipes/<slug:slug>/', recipe, name='recipe'),\n    " + URL_LINE)
    text = text.replace('    path("admin/", admin.site.urls),', '    path("admin/", admin.site.urls),\n'
                        '    path("recipes/<slug:slug>/", recipe, name="recipe"),\n    ' + URL_LINE)
    assert URL_LINE in text, "startproject's urls.py changed shape"
    urls.write_text(text)
    return root
