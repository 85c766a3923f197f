from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The editors' dashboard: posts, moderation, authors."""

    name = "dashboard"
    verbose_name = "Editors' dashboard"
