"""The app's own pages rendered in the host's layout.

Each page template of the comments app (comments/templates/comments/) starts with
`{% extends comments_base %}`: the layout named by COMMENTS_BASE_TEMPLATE ("base.html"
by default, comments/conf.py), which `render` adds to the context. A project with
another layout sets the setting, or overrides a template of the app in its own
templates directory, as with any reusable Django app.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render as django_render

from comments import conf

# The context variable that names the layout the app's pages extend.
BASE = "comments_base"
# The context variable whose site name the app's page titles end with ("": none).
SITE_NAME = "comments_site_name"


def site_name(request: HttpRequest) -> str:
    """COMMENTS_SITE_NAME, else the Sites framework's name of this site if installed."""
    named = conf.get().site_name
    if named or not apps.is_installed("django.contrib.sites"):
        return named
    from django.contrib.sites.shortcuts import get_current_site

    return str(get_current_site(request).name)


def render(
    request: HttpRequest, template_name: str, context: dict[str, Any] | None = None, *,
    status: int = 200, content_type: str | None = None,
) -> HttpResponse:
    """Django's `render`, with the layout the app's pages extend in the context."""
    full = {BASE: conf.get().base_template, SITE_NAME: site_name(request), **(context or {})}
    return django_render(request, template_name, full, status=status, content_type=content_type)
