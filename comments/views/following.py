"""Following a branch: "Follow this thread" on a comment. A page with a form (GET),
then the follow (POST): a signed-in member follows with the address their host
vouches for (`BaseHost.member_address`), at once; a stranger gives an address,
which follows at once only from a browser that confirmed it before, and otherwise
waits for its owner, who gets a confirmation mail, as reply mail does
(comments/notifications/subscriptions.py). Counted against the posting rate limits."""

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
from comments.views.common import client_ip, permalink_url, rate_limited, visible_comment
from infra.http import see_other

FOLLOWING = gettext_noop("You follow this thread: every new comment below this one is mailed to you.")
CONFIRM_BY_MAIL = gettext_noop(
    "Almost done: we sent a link to that address. This thread is followed once its owner confirms it."
)
NO_MEMBER_ADDRESS = gettext_noop("Your account has no verified e-mail address to send this thread's comments to.")
ADDRESS_NEEDED = gettext_noop("Enter the e-mail address to send this thread's new comments to.")


class FollowForm(forms.Form):
    """A stranger's address (a member's comes from their account)."""

    email = AddressField(label=gettext_lazy("E-mail address"), max_length=254, required=False,
                         error_messages={"invalid": gettext_lazy(BAD_ADDRESS)})

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
    if request.method != "POST":
        return _page(request, post, comment, FollowForm(member=member), viewer=viewer)
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
    email = get_host().member_address(request.user) if member else form.cleaned_data["email"]
    if not email:
        form.add_error(None, forms.ValidationError(gettext(NO_MEMBER_ADDRESS), code="no_address"))
        return _page(request, post, comment, form, viewer=viewer, status=400)
    email = addresses.normalise(email)
    owner = member or email in {addresses.normalise(address) for address in viewer.confirmed}
    subscriptions.subscribe(kind=subscriptions.BRANCH, target=comment.id, discussion_id=comment.discussion_id,
                            email=email, user_id=request.user.pk if member else None, owner=owner,
                            language=translation.get_language() or "", full_slug=comment.full_slug)
    if not owner:
        notify.request_address_mail(kind=notify.CONFIRM, email=email, ip=client_ip(request))
    messages.success(request, gettext(FOLLOWING if owner else CONFIRM_BY_MAIL),
                     extra_tags=confirmations.tag(confirmations.SECTION))
    return see_other(permalink_url(post.slug, comment) + "#" + comment.anchor)


def _page(request: HttpRequest, post: Discussion, comment: Comment, form: FollowForm, *, viewer: Viewer,
          status: int = 200) -> HttpResponse:
    context = {"post": post, "focus": listings.present(comment, viewer), "form": form, "member": form.member}
    return render(request, "comments/follow.html", context, status=status)
