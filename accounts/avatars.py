"""A member's picture: sent on /accounts/profile/ (accounts/views.py), made into squares
and stored by the media pipeline (media/avatars.py), named by their Profile
(`avatar_key`, `avatar_format`), and drawn in place of their initials beside their
comments (the blog's host, cms/comments_host.py) and on their public profile.

Pages of comments ask for the pictures of their authors in one query of Django's
database (`pictures`). Cached pages of comments carry a version of the members'
pictures in their key (`version`, kept in Django's cache): every change gives it a new
value, so no page cached before shows a picture that is gone (in this process at once;
in the others at once with a shared cache, CACHE_URL, else within
COMMENTS_CACHE_SECONDS)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django import forms
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile
from infra import uploads
from comments import api as comments_api
from media import avatars, images

VERSION_KEY = "accounts:pictures-version"
NO_FILE = _("Choose a picture to upload.")
EMPTY_FILE = _("This file is empty.")
PICTURE_HELP = _("A JPEG, PNG, WebP or GIF of at most %(size)s MB, at least %(side)d pixels wide and high. "
                 "Its middle square is shown.")
ACCEPT = "image/jpeg,image/png,image/webp,image/gif"


class PictureForm(forms.Form):
    """A member's new picture: its size is checked as it arrives (infra/uploads.py: the
    view is bounded by `limit`), the rest by the media pipeline when it is stored
    (`set_picture`)."""

    picture = forms.FileField(label=_("Picture"), error_messages={"required": NO_FILE, "empty": EMPTY_FILE},
                              widget=forms.FileInput(attrs={"accept": ACCEPT}))

    def __init__(self, *args, request: HttpRequest | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request
        help_text = PICTURE_HELP % {"size": _megabytes(avatars.limits().max_bytes), "side": avatars.SIDES[-1]}
        self.fields["picture"].help_text = help_text

    def clean(self) -> dict:
        if self.request is not None and uploads.too_large(self.request):  # the file was dropped as it came
            self.errors.pop("picture", None)
            self.add_error("picture", _size_error(int(self.request.META.get("CONTENT_LENGTH") or 0)))
        return super().clean()

    def clean_picture(self) -> UploadedFile:
        upload = self.cleaned_data["picture"]
        if (upload.size or 0) > avatars.limits().max_bytes:
            raise _size_error(upload.size or 0)
        return upload


def limit() -> int:
    """The largest picture file a member may send, in bytes."""
    return avatars.limits().max_bytes


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f}".removesuffix(".0")


def _size_error(size: int) -> forms.ValidationError:
    """The error of a file of `size` bytes, over the limit (as the media library says it)."""
    limit = avatars.limits().max_bytes
    return forms.ValidationError(gettext(images.TOO_LARGE_FILE), code="file_too_large",
                                 params={"size": _megabytes(max(size, limit + 1)), "limit": _megabytes(limit)})


def set_picture(profile: Profile, data: bytes) -> None:
    """Make `data` the member's picture (their previous one is deleted);
    images.ImageRefused says why not, and then nothing is stored or changed."""
    image = avatars.upload(data=data, user_id=profile.user_id)
    previous = profile.avatar_key
    profile.avatar_key, profile.avatar_format = image.key, image.fallback
    profile.save(update_fields=["avatar_key", "avatar_format"])
    if previous and previous != image.key:
        avatars.delete(previous)
    _new_version()


def remove_picture(profile: Profile) -> bool:
    """Delete the member's picture (their initials are drawn again); whether they had one."""
    key = profile.avatar_key
    if not key:
        return False
    profile.avatar_key = profile.avatar_format = ""
    profile.save(update_fields=["avatar_key", "avatar_format"])
    avatars.delete(key)
    _new_version()
    return True


def picture_of(profile: Profile | None) -> comments_api.MemberPicture | None:
    """The picture a Profile names, or None."""
    if profile is None or not profile.avatar_key:
        return None
    return _picture(profile.avatar_key, profile.avatar_format)


def _picture(key: str, fallback: str) -> comments_api.MemberPicture:
    found = avatars.urls(key, fallback)
    return comments_api.MemberPicture(src=found.src, srcset=found.srcset, webp_srcset=found.webp_srcset)


def pictures(user_ids: Iterable[int]) -> dict[int, comments_api.MemberPicture]:
    """The pictures of these members that have one, by user id, in one query."""
    ids = sorted({int(user_id) for user_id in user_ids})
    if not ids:
        return {}
    rows = Profile.objects.filter(user_id__in=ids).exclude(avatar_key="").values_list(
        "user_id", "avatar_key", "avatar_format")
    return {user_id: _picture(key, fallback) for user_id, key, fallback in rows}


def exported(profile: Profile | None) -> dict | None:
    """The picture as the member's data download names it: its addresses (None: none)."""
    picture = picture_of(profile)
    if picture is None:
        return None
    return {"url": picture.src, "srcset": picture.srcset, "webp_srcset": picture.webp_srcset}


def version() -> str:
    """The members' pictures' version (new after every change)."""
    found = cache.get(VERSION_KEY)
    if found is None:
        cache.add(VERSION_KEY, uuid.uuid4().hex, None)
        found = cache.get(VERSION_KEY)
    return str(found or "")


def _new_version() -> None:
    cache.set(VERSION_KEY, uuid.uuid4().hex, None)
