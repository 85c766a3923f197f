"""`{% site_languages as languages %}`: the site's languages, each named in itself.

Django's `get_available_languages` runs the names through the active catalog, so a
Hindi page would offer "अंग्रेज़ी" instead of "English"; a reader looking for their
own language must find it written their way."""

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def site_languages() -> list[tuple[str, str]]:
    return list(settings.LANGUAGES)
