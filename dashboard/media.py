"""The dashboard's media library pages: upload, list and search, edit an image's
texts, delete one no post uses. Thin: form -> service -> redirect."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from cms import posts
from dashboard.media_forms import ImageTextsForm, MediaSearchForm, UploadForm
from dashboard.rendering import render_page
from dashboard.permissions import is_editor, staff_required
from infra.http import see_other
from infra.pagination import get_page
from media import images, library, pending, services

NO_SUCH_IMAGE = gettext_noop("There is no image with this key in the library.")
UPLOADED = gettext_noop("Picture added to the library.")
TEXTS_SAVED = gettext_noop("Picture saved.")
DELETED = gettext_noop("Picture deleted.")
IN_USE = gettext_noop("This picture is used by a post, so it cannot be deleted. Remove it from those posts first.")
NOT_YOURS = gettext_noop("Only editors and whoever uploaded a picture can delete it.")


def _library_page(request, upload_form: UploadForm, *, status: int = 200):
    search = MediaSearchForm(request.GET)
    text = search.cleaned_data["q"] if search.is_valid() else ""
    page = get_page(
        total=library.count_images(text=text),
        fetch=lambda skip, limit: library.find_images(text=text, skip=skip, limit=limit),
        raw_number=request.GET.get("page"),
        per_page=settings.MEDIA_PER_PAGE,
    )
    context = {"form": upload_form, "search": search, "page": page, "images": page.object_list,
               "query": urlencode({"q": text}) if text else ""}
    return render_page(request, "dashboard/media_library.html", context,
                       status=status if search.is_valid() else 400)


@staff_required
@require_http_methods(["GET", "HEAD", "POST"])
def media_library(request):
    """The library: the upload form, then the images, newest first (searchable).
    A refused upload comes back as the form with its error (400; 503 with Retry-After
    while this process decodes another picture) and nothing is stored in the library;
    a file refused for another field (no alt text) is kept for the next try, so it is
    not chosen again (media/pending.py)."""
    if request.method != "POST":
        return _library_page(request, UploadForm())
    user = request.user.get_username()
    kept = pending.find(token=request.POST.get("kept", ""), user=user)
    form = UploadForm(request.POST, request.FILES, kept=kept)
    if not form.is_valid():
        form.show_kept(_kept_for_another_try(form, user=user))
        return _library_page(request, form, status=400)
    data, name = form.picture()
    try:
        image = services.upload_image(
            data=data, name=name, alt=form.cleaned_data["alt"], decorative=form.cleaned_data["decorative"],
            caption=form.cleaned_data["caption"], uploaded_by=user,
        )
    except services.Busy as exc:
        # Busy is not the file's fault: keep it for the next try.
        form.add_error("file", ValidationError(gettext(exc.message), code=exc.code, params=exc.params))
        form.show_kept(form.kept or _keep(data=data, name=name, user=user))
        response = _library_page(request, form, status=503)
        response["Retry-After"] = str(services.RETRY_AFTER_SECONDS)
        return response
    except images.ImageRefused as exc:
        form.add_error("file", ValidationError(gettext(exc.message), code=exc.code, params=exc.params))
        _forget(form.kept)
        form.show_kept(None)
        return _library_page(request, form, status=400)
    _forget(form.kept)
    messages.success(request, gettext(UPLOADED))
    return see_other(reverse("dashboard:media_image", args=[image.key]))


def _kept_for_another_try(form: UploadForm, *, user: str) -> pending.Pending | None:
    """The picture a form refused for another field comes back with it: the file
    sent (kept now, media/pending.py), else the one kept before. A refused file is not."""
    if "file" in form.errors:
        _forget(form.kept)
        return None
    upload = form.cleaned_data.get("file")
    if not upload:
        return form.kept
    return _keep(data=upload.read(), name=upload.name or "", user=user)


def _keep(*, data: bytes, name: str, user: str) -> pending.Pending | None:
    token = pending.keep(user=user, name=name, data=data)
    return pending.Pending(token=token, name=name, data=data) if token else None


def _forget(kept: pending.Pending | None) -> None:
    if kept is not None:
        pending.forget(token=kept.token)


def _image_or_404(key: str) -> library.Image:
    image = library.get_by_key(key)
    if image is None or image.kind:  # a member's picture is theirs, not the library's
        raise Http404(gettext(NO_SUCH_IMAGE))
    return image


def _image_page(request, image: library.Image, form: ImageTextsForm, *, status: int = 200):
    context = {"image": image, "form": form, "used_by": posts.using_media(key=image.key),
               "can_delete": _can_delete(request.user, image)}
    return render_page(request, "dashboard/media_image.html", context, status=status)


def _can_delete(user, image: library.Image) -> bool:
    return is_editor(user) or image.uploaded_by == user.get_username()


@staff_required
@require_http_methods(["GET", "HEAD", "POST"])
def media_image(request, key):
    """One image: its renditions, the posts that use it, its texts to edit."""
    image = _image_or_404(key)
    if request.method != "POST":
        initial = {"alt": image.alt, "decorative": image.decorative, "caption": image.caption}
        return _image_page(request, image, ImageTextsForm(initial=initial))
    form = ImageTextsForm(request.POST)
    if not form.is_valid():
        return _image_page(request, image, form, status=400)
    library.update_text(key=image.key, **form.cleaned_data)
    messages.success(request, gettext(TEXTS_SAVED))
    return see_other(reverse("dashboard:media_image", args=[image.key]))


@staff_required
@require_POST
def media_delete(request, key):
    """Delete an image that no post uses (in any state)."""
    image = _image_or_404(key)
    if not _can_delete(request.user, image):
        raise PermissionDenied(gettext(NOT_YOURS))
    if posts.using_media(key=image.key):
        messages.error(request, gettext(IN_USE))
        return see_other(reverse("dashboard:media_image", args=[image.key]))
    library.delete_image(key=image.key)
    messages.success(request, gettext(DELETED))
    return see_other(reverse("dashboard:media"))
