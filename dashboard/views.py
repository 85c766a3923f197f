"""The dashboard's pages. Thin: form -> service -> redirect (POST/redirect/GET).
GET never changes anything; every change is a POST with Django's CSRF check."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop, ngettext_lazy, pgettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from cms import authors, diffs, posts, versions
from dashboard import moderation, services
from dashboard.author_forms import AuthorForm, ProfileForm
from dashboard.rendering import render_page
from dashboard.permissions import check_can_edit, editor_required, is_editor, staff_required
from dashboard.post_forms import PostFilterForm, PostForm, cover_choices
from infra.http import see_other
from infra.markup import render_post
from infra.pagination import get_page
from media import library

# Marked for translation here, translated where they are shown (gettext): the tests
# compare them as plain English strings.
NO_SUCH_POST = gettext_noop("There is no post at this address.")
NO_SUCH_VERSION = gettext_noop("This post has no such version.")
NO_SUCH_AUTHOR = gettext_noop("There is no author with this username.")
CREATED = gettext_noop("Post created.")
SAVED = gettext_noop("Post saved. The previous version is kept under Versions.")
UNCHANGED = gettext_noop("Nothing had changed, so nothing was saved.")
RESTORED = gettext_noop("Version restored. The text it replaced is kept as a version.")
PROFILE_SAVED = ngettext_lazy(
    "Profile saved; %(count)d copy on posts and comments was brought up to date.",
    "Profile saved; %(count)d copies on posts and comments were brought up to date.",
    "count",
)

FORM_METHODS = require_http_methods(["GET", "HEAD", "POST"])
# The editor's "Insert a picture" panel lists the library's newest pictures.
PICKER_IMAGES = 24




def _editable_post(request, post_id: str) -> posts.Post:
    post = posts.get_by_id(post_id)
    if post is None:
        raise Http404(gettext(NO_SUCH_POST))
    check_can_edit(request.user, post)
    return post


@staff_required
@require_http_methods(["GET", "HEAD"])
def post_list(request):
    """Posts in every state (an author's own, or all for editors), filtered and paged."""
    form = PostFilterForm(request.GET)
    valid = form.is_valid()
    chosen = {key: value for key, value in form.cleaned_data.items() if value} if valid else {}
    filters = {
        "state": chosen.get("status"),
        "title": chosen.get("q"),
        "author_id": None if is_editor(request.user) else request.user.pk,
    }
    page = get_page(
        total=posts.count_dashboard(**filters),
        fetch=lambda skip, limit: posts.dashboard_page(**filters, skip=skip, limit=limit),
        raw_number=request.GET.get("page"),
        per_page=settings.DASHBOARD_POSTS_PER_PAGE,
    )
    context = {"form": form, "page": page, "posts": page.object_list, "query": urlencode(chosen)}
    return render_page(request, "dashboard/post_list.html", context, status=200 if valid else 400)


def _post_form_page(request, form: PostForm, *, post: posts.Post | None = None, status: int = 200):
    """The editor page; on a Preview press, with the Markdown rendered as readers will see it."""
    preview = None
    if request.method == "POST" and _previewing(request):
        form.is_valid()
        if "content" in form.cleaned_data:
            preview = render_post(form.cleaned_data["content"])
    context = {"form": form, "post": post, "preview": preview,
               "comments": moderation.comments_state(post) if post else None,
               "library": library.find_images(limit=PICKER_IMAGES)}
    return render_page(request, "dashboard/post_form.html", context, status=status)


def _previewing(request) -> bool:
    return request.POST.get("action") == "preview"


def _add_error(form, exc: services.PostError) -> None:
    form.add_error(exc.field, ValidationError(gettext(exc.message), code=exc.code))


@staff_required
@FORM_METHODS
def post_create(request):
    """A new post: Preview shows it rendered, Save stores it and opens the editor."""
    if request.method != "POST":
        return _post_form_page(request, PostForm(covers=cover_choices()))
    form = PostForm(request.POST, covers=cover_choices(request.POST.get("cover", "")))
    if _previewing(request) or not form.is_valid():
        return _post_form_page(request, form, status=200 if _previewing(request) else 400)
    try:
        post = services.create_post(author=authors.summary_for(request.user), **form.post_fields())
    except services.PostError as exc:
        _add_error(form, exc)
        return _post_form_page(request, form, status=400)
    messages.success(request, gettext(CREATED))
    return see_other(reverse("dashboard:post_edit", args=[post.id]))


@staff_required
@FORM_METHODS
def post_edit(request, post_id):
    """Edit a post; saving keeps the previous version."""
    post = _editable_post(request, post_id)
    if request.method != "POST":
        form = PostForm(initial=PostForm.initial_for(post), covers=cover_choices(post.cover))
        return _post_form_page(request, form, post=post)
    form = PostForm(request.POST, stored=post.published, covers=cover_choices(request.POST.get("cover", "")))
    if _previewing(request) or not form.is_valid():
        return _post_form_page(request, form, post=post, status=200 if _previewing(request) else 400)
    revision = form.cleaned_data["revision"]
    try:
        saved = services.edit_post(
            post=post,
            revision=post.revision if revision is None else revision,
            editor=request.user.get_username(),
            **form.post_fields(),
        )
    except services.PostError as exc:
        _add_error(form, exc)
        return _post_form_page(request, form, post=post, status=409 if exc.code == "stale" else 400)
    messages.success(request, gettext(SAVED if saved.revision != post.revision else UNCHANGED))
    return see_other(reverse("dashboard:post_edit", args=[post.id]))


@staff_required
@require_http_methods(["GET", "HEAD"])
def version_list(request, post_id):
    post = _editable_post(request, post_id)
    context = {"post": post, "versions": versions.find_versions(post_id=post.id)}
    return render_page(request, "dashboard/version_list.html", context)


def _version(request, post_id, version_id) -> tuple[posts.Post, versions.Version]:
    post = _editable_post(request, post_id)
    version = versions.get_version(post_id=post.id, version_id=version_id)
    if version is None:
        raise Http404(gettext(NO_SUCH_VERSION))
    return post, version


def _one_line_fields(item) -> dict[str, str]:
    return {
        pgettext_lazy("post field", "Title"): item.title,
        pgettext_lazy("post field", "Slug"): item.slug,
        pgettext_lazy("post field", "Excerpt"): item.excerpt,
        pgettext_lazy("post field", "Tags"): ", ".join(item.tags),
    }


@staff_required
@require_http_methods(["GET", "HEAD"])
def version_detail(request, post_id, version_id):
    """What changed from this version to the post as it is now."""
    post, version = _version(request, post_id, version_id)
    context = {
        "post": post,
        "version": version,
        "changes": diffs.field_changes(_one_line_fields(version), _one_line_fields(post)),
        "lines": diffs.diff_lines(version.content, post.content),
    }
    return render_page(request, "dashboard/version_detail.html", context)


@staff_required
@require_POST
def version_restore(request, post_id, version_id):
    post, version = _version(request, post_id, version_id)
    try:
        services.restore_version(post=post, version=version, editor=request.user.get_username())
    except services.PostError as exc:
        messages.error(request, gettext(exc.message))
        return see_other(reverse("dashboard:version", args=[post.id, version.id]))
    messages.success(request, gettext(RESTORED))
    return see_other(reverse("dashboard:post_edit", args=[post.id]))


def _profile_initial(user) -> dict:
    profile = authors.public_profile(user)
    return {
        "username": profile.username,
        "display_name": profile.name,
        "bio": profile.bio,
        "avatar_url": profile.avatar_url,
    }


@staff_required
@FORM_METHODS
def profile(request):
    """The logged-in author's public profile; a new display name reaches every copy."""
    if request.method != "POST":
        return render_page(
            request,
            "dashboard/profile_form.html",
            {"form": ProfileForm(initial=_profile_initial(request.user))},
        )
    form = ProfileForm(request.POST)
    if not form.is_valid():
        return render_page(request, "dashboard/profile_form.html", {"form": form}, status=400)
    repaired = authors.update_author(user=request.user, **form.cleaned_data)
    messages.success(request, PROFILE_SAVED % {"count": repaired.total})
    return see_other(reverse("dashboard:profile"))


@editor_required
@require_http_methods(["GET", "HEAD"])
def author_list(request):
    return render_page(request, "dashboard/author_list.html", {"authors": authors.staff_profiles()})


@editor_required
@FORM_METHODS
def author_edit(request, username):
    """An editor renames an author (username and/or display name) or edits their profile."""
    user = authors.find_author(username=username)
    if user is None:
        raise Http404(gettext(NO_SUCH_AUTHOR))
    context = {"author": authors.public_profile(user)}
    if request.method != "POST":
        form = AuthorForm(initial=_profile_initial(user), user=user)
        return render_page(request, "dashboard/profile_form.html", {**context, "form": form})
    form = AuthorForm(request.POST, user=user)
    if form.is_valid():
        try:
            repaired = authors.update_author(user=user, **form.cleaned_data)
        except authors.AuthorError as exc:
            form.add_error("username", ValidationError(gettext(exc.message), code=exc.code))
        else:
            messages.success(request, PROFILE_SAVED % {"count": repaired.total})
            return see_other(reverse("dashboard:author_edit", args=[user.get_username()]))
    return render_page(request, "dashboard/profile_form.html", {**context, "form": form}, status=400)
