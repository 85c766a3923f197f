"""A signed-in member's own pages (their comments, the replies to them, their
notification subscriptions, their public profile's switch) and every member's public
profile. The data download is accounts/export.py. Comments are read through the
comments app's API, a page at a time after its signed cursor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import avatars, member_data
from accounts.models import Profile
from accounts.names import display_name
from comments import api as comments_api
from infra import uploads
from media import images, services as media_services

# Comments a page of these lists shows.
PER_PAGE = 20
NO_SUCH_MEMBER = gettext_noop("No member has a public profile here.")
PROFILE_SAVED = gettext_noop("Your public profile is now on.")
PROFILE_HIDDEN = gettext_noop("Your public profile is now off.")
PICTURE_SAVED = gettext_noop("Your picture is saved: it is shown beside your comments.")
PICTURE_REMOVED = gettext_noop("Your picture is removed: your initials are shown again.")
STATUS_NAMES = {
    comments_api.APPROVED: gettext_noop("Approved"),
    comments_api.PENDING: gettext_noop("Waiting for a moderator"),
    comments_api.SPAM: gettext_noop("Held as spam"),
    comments_api.DELETED: gettext_noop("Deleted"),
}


@dataclass(frozen=True)
class Entry:
    """A comment as these pages list it: with its discussion (None: gone or hidden)."""

    comment: comments_api.Comment
    title: str
    url: str
    status: str


def entries(found: list[comments_api.Comment], *, published_only: bool) -> list[Entry]:
    """The comments with their discussions (one query for all of them); with
    `published_only`, those whose discussion readers cannot see are left out."""
    now = timezone.now()
    on = member_data.discussions(c.discussion_id for c in found)
    listed = []
    for comment in found:
        discussion = on.get(comment.discussion_id)
        if published_only and (discussion is None or not readable(discussion, now)):
            continue
        listed.append(Entry(
            comment=comment, title=discussion.title if discussion else "",
            url=comments_api.comment_permalink(discussion=discussion, comment=comment) if discussion else "",
            status=gettext(STATUS_NAMES.get(comment.status, comment.status))))
    return listed


def readable(discussion: comments_api.Discussion, now) -> bool:
    """Whether readers can see the discussion: published, not in the future."""
    return discussion.published is not None and discussion.published <= now


def _listing(request: HttpRequest, template: str, read: Callable[..., comments_api.MemberPage], context: dict,
             *, published_only: bool) -> HttpResponse:
    """A page of one member listing (`read(cursor=, limit=)` gives it); the site's 400
    page, saying why, for a damaged cursor."""
    cursor = request.GET.get("after") or None
    try:
        page = read(cursor=cursor, limit=PER_PAGE)
    except comments_api.BadPageCursor as error:
        raise BadRequest(str(error)) from None
    context = {**context, "entries": entries(page.comments, published_only=published_only),
               "next_cursor": page.next_cursor, "first_page": cursor is None}
    return render(request, template, context)


def own_page(view: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """A signed-in member's own page: GET only, never cached, strangers sent to sign in."""
    return never_cache(login_required(require_http_methods(["GET", "HEAD"])(view)))


@own_page
def my_comments(request: HttpRequest) -> HttpResponse:
    """Every comment of the signed-in member, newest first, with its status."""
    read = partial(comments_api.member_comments, author_id=request.user.pk, approved_only=False)
    return _listing(request, "account/my_comments.html", read, {}, published_only=False)


@own_page
def replies(request: HttpRequest) -> HttpResponse:
    """The approved replies others wrote to the member's comments, newest first."""
    read = partial(comments_api.replies_to_member, author_id=request.user.pk)
    return _listing(request, "account/replies.html", read, {}, published_only=True)


@own_page
def notifications(request: HttpRequest) -> HttpResponse:
    """The notification subscriptions of each of the member's verified addresses, each
    address with a link to the page that stops them."""
    found = member_data.verified_subscriptions(request.user)
    on = member_data.discussions(s.discussion_id for _, subscriptions in found for s in subscriptions)
    addresses = [{"email": email,
                  "manage_url": comments_api.subscriptions_manage_url(email=email) if subscriptions else None,
                  "subscriptions": [{"subscription": s, "post": on.get(s.discussion_id)} for s in subscriptions]}
                 for email, subscriptions in found]
    return render(request, "account/notifications.html", {"addresses": addresses})


def own_profile(user) -> Profile:
    """The member's Profile (made for an account from before profiles: an editor),
    through `user.account_profile`, so the page's header reads the same one."""
    try:
        return user.account_profile
    except Profile.DoesNotExist:
        return Profile.objects.create(user=user, display_name=display_name(user))


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@uploads.bounded(avatars.limit)
def profile_settings(request: HttpRequest) -> HttpResponse:
    """Turn the member's public profile page on or off; send or remove their picture
    (`action`: "picture", "remove_picture": a file past the size limit stops as it arrives)."""
    profile = own_profile(request.user)
    action = request.POST.get("action") if request.method == "POST" else None
    if action == "picture":
        return _new_picture(request, profile)
    if action == "remove_picture":
        if avatars.remove_picture(profile):
            messages.success(request, gettext(PICTURE_REMOVED))
        return redirect("account_profile_settings")
    if request.method == "POST":
        profile.public_profile = request.POST.get("public_profile") == "on"
        profile.save(update_fields=["public_profile"])
        messages.success(request, gettext(PROFILE_SAVED if profile.public_profile else PROFILE_HIDDEN))
        return redirect("account_profile_settings")
    return _profile_page(request, profile, avatars.PictureForm())


def _profile_page(request: HttpRequest, profile: Profile, form: avatars.PictureForm, *,
                  status: int = 200) -> HttpResponse:
    name = profile.display_name or request.user.get_username()
    avatar = comments_api.member_avatar(user_id=profile.user_id, name=name, picture=avatars.picture_of(profile))
    context = {"profile": profile, "form": form, "avatar": avatar}
    return render(request, "account/profile_settings.html", context, status=status)


def _new_picture(request: HttpRequest, profile: Profile) -> HttpResponse:
    """Store the picture sent, or show the page again saying why not (nothing stored):
    400, or 503 with Retry-After while this process decodes another picture."""
    form = avatars.PictureForm(request.POST, request.FILES, request=request)
    if form.is_valid():
        try:
            avatars.set_picture(profile, form.cleaned_data["picture"].read())
        except images.ImageRefused as exc:
            form.add_error("picture", ValidationError(gettext(exc.message), code=exc.code, params=exc.params))
        else:
            messages.success(request, gettext(PICTURE_SAVED))
            return redirect("account_profile_settings")
    busy = form.has_error("picture", "busy")
    response = _profile_page(request, profile, form, status=503 if busy else 400)
    if busy:
        response["Retry-After"] = str(media_services.RETRY_AFTER_SECONDS)
    return response


@require_http_methods(["GET", "HEAD"])
def member(request: HttpRequest, member: str) -> HttpResponse:
    """A member's public profile: their name, picture (or initials) and approved comments, newest
    first; 404 unless they turned it on (or it is their own)."""
    user = _member(member)
    profile = getattr(user, "account_profile", None)
    own = user is not None and request.user.is_authenticated and request.user.pk == user.pk
    if user is None or profile is None or not (profile.public_profile or own):
        raise Http404(gettext(NO_SUCH_MEMBER))
    name = profile.display_name or user.get_username()
    avatar = comments_api.member_avatar(user_id=user.pk, name=name, picture=avatars.picture_of(profile))
    context = {"member": user, "name": name, "avatar": avatar, "own": own, "public": profile.public_profile}
    read = partial(comments_api.member_comments, author_id=user.pk, approved_only=True)
    response = _listing(request, "account/member.html", read, context, published_only=True)
    response["Cache-Control"] = "private, no-cache"
    return response


def _member(key: str):
    """The account `key` names: a user id, else a username; None for neither. Its
    Profile comes with it, in the same query."""
    users = get_user_model().objects.filter(is_active=True).select_related("account_profile")
    if key.isdigit():
        return users.filter(pk=int(key)).first()
    return users.filter(username=key).first()

