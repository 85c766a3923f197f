"""Compressing text responses: pages, feeds, JSON, problems (Django's GZipMiddleware,
for text only).

Pictures are never compressed here: JPEG, PNG and WebP are compressed already, and
gzip would make a rendition's strong ETag weak (and vary it by Accept-Encoding) for
nothing. Static files are served before this runs, compressed ahead of time by
WhiteNoise.

BREACH (guessing a secret in a compressed page from its length, over many requests
that reflect the attacker's text): Django masks the CSRF token anew in every
response, so no two pages carry the same token bytes; GZipMiddleware pads each
response by a random length (Heal The Breach); and the session and CSRF cookies are
SameSite=Lax, so the many cross-site requests such an attack needs arrive without
the reader's session and get anonymous pages, which hold no secret. API tokens are
shown once, on the page that made them, and travel in a header, never compressed.
"""

from django.middleware.gzip import GZipMiddleware

COMPRESSED_TYPES = frozenset({
    "application/atom+xml", "application/javascript", "application/json", "application/problem+json",
    "application/rss+xml", "application/xml", "image/svg+xml",
})


class TextGZipMiddleware(GZipMiddleware):
    """GZipMiddleware for text (`text/*` and COMPRESSED_TYPES) only."""

    def process_response(self, request, response):
        content_type = response.get("Content-Type", "").partition(";")[0].strip().lower()
        if not (content_type.startswith("text/") or content_type in COMPRESSED_TYPES):
            return response
        return super().process_response(request, response)
