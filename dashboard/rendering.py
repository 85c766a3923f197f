"""How every dashboard page is rendered."""

from django.shortcuts import render

from dashboard.permissions import is_editor


def render_page(request, template: str, context: dict, status: int = 200):
    """A dashboard page; `is_editor` decides which links the dashboard's menu shows."""
    return render(request, template, {**context, "is_editor": is_editor(request.user)}, status=status)
