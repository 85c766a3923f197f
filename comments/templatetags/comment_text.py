"""`{{ comment.html|plain_text }}`: what a reader reads of a comment, tags dropped and
entities decoded (infra/html_text.py), for a page's meta description. Not marked
safe: the template escapes it like any text."""

from django import template

from infra.html_text import html_text

register = template.Library()


@register.filter
def plain_text(html: object) -> str:
    return html_text(str(html or ""))
