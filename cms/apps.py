from django.apps import AppConfig


class CmsConfig(AppConfig):
    name = "cms"
    verbose_name = "Slugline CMS"

    def ready(self):
        from cms import checks  # noqa: F401 (registers the checks)
