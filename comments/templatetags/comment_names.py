"""`{{ name|bdi }}`: a commenter's name isolated from the text around it (`<bdi>`),
for the places a name goes into a translated sentence ("Comment by {{ name }}"), so
a right-to-left name, or one that slipped in with a direction control before names
were cleaned (comments/posting/names.py), cannot reorder the sentence around it. Where a
name stands alone, templates write `<bdi>{{ name }}</bdi>` themselves."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def bdi(name: object) -> SafeString:
    """The name, escaped, inside `<bdi>…</bdi>`."""
    return format_html("<bdi>{}</bdi>", name)
