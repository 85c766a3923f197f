"""Library images as responsive HTML: `<picture>` with a WebP source and an `<img>`
in the JPEG/PNG fallback, both with `srcset`, and `sizes`, `width`, `height`,
`loading="lazy"`, `decoding="async"` and `alt`, so pages do not jump while loading.
Every text is escaped here: what this returns may go straight into a page."""

from __future__ import annotations

from html import escape

from django.urls import reverse

from media.library import Image, StoredRendition

# The post column: the page's measure (44rem) less its padding.
POST_SIZES = "(max-width: 44rem) calc(100vw - 2rem), 42rem"
# List pages show a cover beside the summary at most this wide.
THUMB_SIZES = "10rem"


def rendition_url(image: Image, rendition: StoredRendition) -> str:
    return reverse("media_rendition", args=[image.key, rendition.width, rendition.ext])


def _srcset(image: Image, ext: str) -> str:
    return ", ".join(f"{rendition_url(image, r)} {r.width}w" for r in image.in_format(ext))


def picture_html(image: Image, *, alt: str, sizes: str = POST_SIZES, eager: bool = False) -> str:
    """The image at the rendition width the browser picks for `sizes`."""
    fallback = image.rendition(ext=image.fallback, at_least=image.width)
    loading = 'fetchpriority="high"' if eager else 'loading="lazy"'
    return (
        f'<picture><source type="image/webp" srcset="{_srcset(image, "webp")}" sizes="{escape(sizes)}">'
        f'<img src="{rendition_url(image, fallback)}" srcset="{_srcset(image, image.fallback)}" '
        f'sizes="{escape(sizes)}" width="{image.width}" height="{image.height}" {loading} '
        f'decoding="async" alt="{escape(alt)}"></picture>'
    )


def figure_html(image: Image, *, alt: str, caption: str, sizes: str = POST_SIZES) -> str:
    """The image as a figure, with its caption when it has one."""
    figcaption = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="media-figure">{picture_html(image, alt=alt, sizes=sizes)}{figcaption}</figure>'


def shown_alt(image: Image, alt: str) -> str:
    """The alt text an image is shown with: the text given, else the library's
    (empty for a decorative image)."""
    return alt.strip() or ("" if image.decorative else image.alt)
