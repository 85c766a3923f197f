"""Who may do what in the dashboard.

Staff users are authors: they write posts and edit their own. Editors (members of
the "Editors" group, or superusers) edit every post, moderate and rename authors.
Anyone else who is logged in gets a 403 in the site's layout; anonymous visitors
are sent to the login page.
"""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext, gettext_noop

from cms.posts import Post
from cms.roles import EDITORS_GROUP, is_editor  # noqa: F401 (the dashboard's vocabulary)

# Marked for translation; translated as they are raised, in the visitor's language.
NOT_STAFF = gettext_noop("The dashboard is for the site's authors and editors.")
NOT_YOUR_POST = gettext_noop("Authors can edit only their own posts; editors can edit every post.")
EDITORS_ONLY = gettext_noop("Only editors can do that.")


def can_edit_post(user, post: Post) -> bool:
    return is_editor(user) or (user.is_staff and post.author.id == user.pk)


def staff_required(view):
    """Anonymous: to the login page. Logged in but not staff: 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied(gettext(NOT_STAFF))
        return view(request, *args, **kwargs)

    return wrapper


def editor_required(view):
    """As `staff_required`, and 403 for authors who are not editors."""

    @staff_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not is_editor(request.user):
            raise PermissionDenied(gettext(EDITORS_ONLY))
        return view(request, *args, **kwargs)

    return wrapper


def check_can_edit(user, post: Post) -> None:
    if not can_edit_post(user, post):
        raise PermissionDenied(gettext(NOT_YOUR_POST))
