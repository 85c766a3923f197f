from django.apps import AppConfig


class CmsConfig(AppConfig):
    name = "cms"
    verbose_name = "Slugline CMS"
