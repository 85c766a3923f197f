"""Django's humanize filters (intcomma, naturaltime) for the app's templates, so a project
need not install django.contrib.humanize (with it installed, its translations of the
relative times load too: docs/distribution.md)."""

from django.contrib.humanize.templatetags.humanize import register

__all__ = ["register"]
