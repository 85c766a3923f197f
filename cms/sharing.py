"""What a post tells search engines and social sites: its canonical address, a
description, Open Graph and Twitter card fields, and a JSON-LD `BlogPosting`. Pure
functions of the post, its cover image and its latest comments; the template
(cms/includes/share_meta.html) writes them out."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from functools import lru_cache

import nh3

from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext_noop

from cms.posts import Post, shorten
from infra.markup import render_comment
from media.library import Image
from media.render import rendition_url

# og:locale is a language and a territory: the one each of the site's languages is
# most read in.
OG_LOCALES = {"en": "en_US", "vi": "vi_VN", "hi": "hi_IN", "id": "id_ID"}
# The picture shared for a post without a cover (static/img/share.png).
DEFAULT_IMAGE = "img/share.png"
DEFAULT_IMAGE_SIZE = (1200, 630)
DESCRIPTION_LENGTH = 200
# Shared images: the fallback format (every crawler reads JPEG and PNG, not all
# WebP), at least this wide (large cards want 1200 px or so).
SHARE_WIDTH = 1200


def absolute(path: str) -> str:
    """`path` on the site's public address (SITE_URL)."""
    return settings.SITE_URL + path


@dataclass(frozen=True)
class SharedImage:
    url: str
    width: int
    height: int
    alt: str
    content_type: str


def shared_image(cover: Image | None) -> SharedImage:
    """The picture a post is shared with: its cover's, else the site's."""
    if cover is None:
        width, height = DEFAULT_IMAGE_SIZE
        return SharedImage(absolute(static(DEFAULT_IMAGE)), width, height, "Slugline", "image/png")
    rendition = cover.rendition(ext=cover.fallback, at_least=SHARE_WIDTH)
    return SharedImage(
        absolute(rendition_url(cover, rendition)), rendition.width, rendition.height,
        "" if cover.decorative else cover.alt, rendition.content_type,
    )


def description(post: Post) -> str:
    """The post's summary (its excerpt, else its first paragraph), shortened."""
    return shorten(post.summary, limit=DESCRIPTION_LENGTH)


@lru_cache(maxsize=1024)
def shown_text(text: str) -> str:
    """A comment's excerpt (its Markdown source) as readers see its words: rendered and
    sanitised as a comment is (links keep their words, not their addresses; raw HTML
    dropped), then tags gone and white space folded. Kept per text: a post's page asks
    for its latest comments' on every request, and rendering is most of what its
    sharing tags cost."""
    words = html.unescape(nh3.clean(render_comment(text), tags=set()))
    return " ".join(words.split())


def author_url(post: Post) -> str:
    return absolute(reverse("author", args=[post.author.username]))


def blog_posting(post: Post, *, image: SharedImage, url: str, summary: str, author_address: str) -> dict:
    """The schema.org BlogPosting of a post, with its latest comments as Comment items
    (`summary` and `author_address`: its `description` and `author_url`)."""
    author = {"@type": "Person", "name": post.author.name, "url": author_address}
    data: dict = {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "mainEntityOfPage": {"@type": "WebPage", "@id": url},
        "url": url,
        "headline": post.title,
        "description": summary,
        "image": {"@type": "ImageObject", "url": image.url, "width": image.width, "height": image.height},
        "author": author,
        "datePublished": post.published.isoformat() if post.published else None,
        "dateModified": (post.updated or post.published or post.created).isoformat(),
        "inLanguage": post.language,
        "keywords": list(post.tags),
        "commentCount": post.comment_count,
        "comment": [
            {
                "@type": "Comment",
                "url": absolute(reverse("comments:permalink", args=[post.slug, latest.slug])),
                "author": {"@type": "Person", "name": latest.author_name},
                "dateCreated": latest.posted.isoformat(),
                "text": shown_text(latest.excerpt),
            }
            for latest in post.latest_comments
        ],
    }
    return data


def json_for_script(data: dict) -> str:
    """JSON safe inside `<script>`: `<`, `>` and `&` escaped as \\u sequences, so no
    text a user wrote ("</script>", "<!--") can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True)
class PostSharing:
    canonical: str
    description: str
    image: SharedImage
    locale: str
    author_url: str
    large_card: bool
    json_ld: str


def post_sharing(post: Post, *, cover: Image | None) -> PostSharing:
    url = absolute(post.get_absolute_url())
    image = shared_image(cover)
    # Each once: the summary parses the post's HTML, the author's address is a reverse().
    summary, address = description(post), author_url(post)
    return PostSharing(
        canonical=url, description=summary, image=image,
        locale=OG_LOCALES.get(post.language, post.language), author_url=address,
        large_card=cover is not None,
        json_ld=json_for_script(blog_posting(post, image=image, url=url, summary=summary, author_address=address)),
    )


# --- Lists: a canonical address (with its page number past the first) and a description.
HOME_DESCRIPTION = gettext_noop("The latest posts published on Slugline.")
TAG_DESCRIPTION = gettext_noop("Posts tagged “%(tag)s” on Slugline.")


def list_canonical(path: str, page_number: int) -> str:
    return absolute(path + (f"?page={page_number}" if page_number > 1 else ""))


def author_description(name: str, bio: str) -> str:
    return shorten(bio, limit=DESCRIPTION_LENGTH) if bio.strip() else name
