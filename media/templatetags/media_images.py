"""Template tags for library images: `{% picture image sizes=... %}` (responsive
HTML, media/render.py) and `{{ image|markdown }}` (the Markdown that shows it)."""

from django import template
from django.utils.safestring import mark_safe

from media import references, render
from media.library import Image

register = template.Library()


@register.simple_tag
def picture(image: Image | None, alt: str | None = None, sizes: str = render.POST_SIZES, eager: bool = False):
    """The image as `<picture>`, with its library alt text unless `alt` is given."""
    if image is None:
        return ""
    shown = render.shown_alt(image, alt or "")
    return mark_safe(render.picture_html(image, alt=shown, sizes=sizes, eager=eager))  # noqa: S308 (escaped there)


@register.filter
def markdown(image: Image) -> str:
    return references.image_markdown(key=image.key, alt=image.alt, caption=image.caption)


@register.filter
def kilobytes(size: int) -> str:
    return f"{size / 1024:.0f}"


@register.simple_tag
def thumbnail(images: dict, key: str):
    """A list's small picture of library image `key` (from `images`, by key), whose
    alt text is empty: the post's title beside it says what it is about."""
    image = images.get(key) if key else None
    if image is None:
        return ""
    return mark_safe(  # noqa: S308 (escaped there)
        '<div class="post-thumb">' + render.picture_html(image, alt="", sizes=render.THUMB_SIZES) + "</div>"
    )
