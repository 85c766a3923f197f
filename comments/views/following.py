"""Following a branch: "Follow this thread" on a comment. A page with a form (GET),
then the follow (POST): a signed-in member follows with the address their host
vouches for (`BaseHost.member_address`), at once; a stranger gives an address,
which follows at once only from a browser that confirmed it before, and otherwise
waits for its owner, who gets a confirmation mail, as reply mail does
(comments/notifications/subscriptions.py). A member who follows it gets "Stop
following this thread" instead (`stop`). Counted against the posting rate limits.

Asked in place (the header `Slugline-In-Place: 1`, from comments/static/comments/js/
follow.js), the POST answers with a piece of HTML instead of a redirect or a page: 200
with `comments/followed.html` (what was done, and a member's form for the next toggle),
or the form alone with its errors and the typed address (400, 429 with Retry-After)."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, gettext_noop
from django.views.decorators.http import require_http_methods

from comments import addresses
from comments.host import Discussion, get_host
from comments.internal.rendering import render
from comments.notifications import notify, subscriptions
from comments.notifications.views import BAD_ADDRESS
from comments.posting import confirmations, ownership
from comments.posting.forms import AddressField
from comments.reading import listings
from comments.records import Comment, Viewer
from comments.views import in_place
from comments.views.common import client_ip, permalink_url, rate_limited, visible_comment
from infra.http import see_other

FOLLOWING = gettext_noop("You follow this thread: every new comment below this one is mailed to you.")
CONFIRM_BY_MAIL = gettext_noop(
    "Almost done: we sent a link to that address. This thread is followed once its owner confirms it."
)
NO_MEMBER_ADDRESS = gettext_noop("Your account has no verified e-mail address to send this thread's comments to.")
ADDRESS_NEEDED = gettext_noop("Enter the e-mail address to send this thread's new comments to.")
UNFOLLOWED = gettext_noop("You no longer follow this thread.")
FORM = "comments/includes/follow_form.html"


class FollowForm(forms.Form):
    """A stranger's address (a member's comes from their account)."""

    email = AddressField(label=gettext_lazy("E-mail address"), max_length=254, required=False,
                         error_messages={"invalid": gettext_lazy(BAD_ADDRESS)})
    # A member's "Stop following this thread" (a stranger stops from a mail's link).
    stop = forms.BooleanField(required=False)

    def __init__(self, *args: object, member: bool = False, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.member = member

    def clean_email(self) -> str:
        email = str(self.cleaned_data.get("email") or "")
        if not self.member and not email:
            raise forms.ValidationError(gettext(ADDRESS_NEEDED), code="required")
        return email


@require_http_methods(["GET", "HEAD", "POST"])
def follow(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """GET: the comment and the form; POST: follow the branch below it."""
    post = get_host().published_or_404(discussion)
    viewer = ownership.viewer_for(request)
    comment = visible_comment(request, post, comment_path, viewer)
    member = request.user.is_authenticated
    address = get_host().member_address(request.user) if member else ""
    if request.method != "POST":
        form = FollowForm(member=member)
        return _page(request, post, comment, form, viewer=viewer, following=_follows(comment, address))
    form = FollowForm(request.POST, member=member)
    refusal = rate_limited(request, action="follow", viewer=viewer)
    if refusal is not None:
        form.is_valid()
        form.add_error(None, forms.ValidationError(str(refusal), code="rate_limited"))
        response = _page(request, post, comment, form, viewer=viewer, status=429)
        response["Retry-After"] = str(refusal.retry_after)
        return response
    if not form.is_valid():
        return _page(request, post, comment, form, viewer=viewer, status=400)
    email = address if member else form.cleaned_data["email"]
    if not email:
        form.add_error(None, forms.ValidationError(gettext(NO_MEMBER_ADDRESS), code="no_address"))
        return _page(request, post, comment, form, viewer=viewer, status=400)
    email = addresses.normalise(email)
    owner = member or email in {addresses.normalise(address) for address in viewer.confirmed}
    if member and form.cleaned_data["stop"]:
        subscriptions.unsubscribe(subscriptions.subscription_id(kind=subscriptions.BRANCH, target=comment.id,
                                                                email=email))
        said = UNFOLLOWED
    else:
        subscriptions.subscribe(kind=subscriptions.BRANCH, target=comment.id, discussion_id=comment.discussion_id,
                                email=email, user_id=request.user.pk if member else None, owner=owner,
                                language=translation.get_language() or "", full_slug=comment.full_slug)
        if not owner:
            notify.request_address_mail(kind=notify.CONFIRM, email=email, ip=client_ip(request))
        said = FOLLOWING if owner else CONFIRM_BY_MAIL
    if in_place.wanted(request):
        following = said != UNFOLLOWED and owner
        context = {"post": post, "comment": comment, "said": gettext(said), "member": member,
                   "following": following, "form": FollowForm(member=member)}
        return render(request, "comments/followed.html", context)
    messages.success(request, gettext(said), extra_tags=confirmations.tag(confirmations.SECTION))
    return see_other(permalink_url(post.slug, comment) + "#" + comment.anchor)


def _follows(comment: Comment, address: str) -> bool:
    """Whether mail about this branch goes to `address` (a member's) now."""
    if not address:
        return False
    found = subscriptions.find(subscriptions.subscription_id(kind=subscriptions.BRANCH, target=comment.id,
                                                             email=address))
    return found is not None and subscriptions.deliverable(found)


def _page(request: HttpRequest, post: Discussion, comment: Comment, form: FollowForm, *, viewer: Viewer,
          status: int = 200, following: bool = False) -> HttpResponse:
    """The follow page, or (asked in place) its form alone, with its errors."""
    # A member's refused "Stop following" stays one.
    following = following or (form.member and form.is_bound and bool(form.data.get("stop")))
    context = {"post": post, "focus": listings.present(comment, viewer), "comment": comment, "form": form,
               "member": form.member, "following": following}
    template = FORM if in_place.wanted(request) and request.method == "POST" else "comments/follow.html"
    return render(request, template, context, status=status)
