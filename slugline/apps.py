from django.apps import AppConfig


class SluglineConfig(AppConfig):
    """The project itself, installed so that its deployment checks register."""

    name = "slugline"
    verbose_name = "Slugline"

    def ready(self):
        from slugline import checks  # noqa: F401 (registers the checks)
