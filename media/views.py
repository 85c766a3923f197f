"""Serving library images: renditions under content-addressed URLs that never
change, so browsers and proxies keep them for a year and revalidate by ETag."""

from django.http import Http404, HttpResponse, HttpResponseNotModified, HttpResponseRedirect
from django.utils.http import parse_etags
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods

from media import library
from media.render import rendition_url

NO_SUCH_IMAGE = gettext_noop("There is no image at this address.")
FOREVER = "public, max-age=31536000, immutable"


@require_http_methods(["GET", "HEAD"])
def rendition(request, key: str, width: int, ext: str):
    """One rendition's bytes; 304 when the browser has them (its ETag) and the image
    still has that rendition (an ETag sent for a width or format it has none of is a 404)."""
    etag = f'"{key}-{width}-{ext}"'
    if etag in parse_etags(request.headers.get("If-None-Match", "")) and _has_rendition(key, width, ext):
        response = HttpResponseNotModified()
    else:
        found = library.read_rendition(key=key, width=width, ext=ext)
        if found is None:
            raise Http404(gettext(NO_SUCH_IMAGE))
        response = HttpResponse(found.data, content_type=found.content_type)
    response["ETag"] = etag
    response["Cache-Control"] = FOREVER
    return response


def _has_rendition(key: str, width: int, ext: str) -> bool:
    found = library.get_by_key(key)
    return found is not None and any(r.width == width and r.ext == ext for r in found.renditions)


@require_http_methods(["GET", "HEAD"])
def image(request, key: str):
    """The library address Markdown names: the image's largest fallback rendition."""
    found = library.get_by_key(key)
    if found is None:
        raise Http404(gettext(NO_SUCH_IMAGE))
    return HttpResponseRedirect(rendition_url(found, found.rendition(ext=found.fallback, at_least=found.width)))
