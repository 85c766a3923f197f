"""The pages behind the links in notification mail: confirming what was asked for
with an address, one-click unsubscribe (RFC 8058: a POST with no login and no form
token), and the list of an address's subscriptions. Thin: token ->
comments/notifications/subscriptions.py -> page.

They answer under every discussion's prefix (comments/urls.py) and at a host's
site-wide mount alike: the discussion in the address (`discussion`) only places the
page, the token alone says what it is about, so a link keeps working after its
discussion is renamed. Each page links to its neighbours on the mount it was opened
on (comments/notifications/links.py).

Each names someone's address and subscriptions, so none may be kept by a browser's
or a proxy's cache (`Cache-Control: private, no-store`)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext
from django.views.decorators.cache import cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from comments import conf, slugs
from comments.host import Discussion, get_host
from comments.internal import rendering
from comments.notifications import links, notify, subscriptions
from comments.posting import confirmed, ownership
from comments.posting.forms import AddressField
from infra import clients
from infra.http import see_other

BROKEN_LINK = gettext_noop("This link is broken or too old. Tick \"E-mail me replies\" on your next comment to get a new one.")
NO_SUCH_SUBSCRIPTION = gettext_noop("This unsubscribe link names no subscription.")
BAD_MANAGE_LINK = gettext_noop("This link is broken or too old. Ask for a new one below.")
CONFIRMED_ADDRESS = gettext_noop("Your address is confirmed. Nothing new was started.")
ASKED = gettext_noop(
    "If this address has comment notifications, a mail with a link to them is on its way. "
    "It may take a few minutes."
)
ADDRESS_REQUIRED = gettext_noop("Enter the e-mail address you get notifications at.")
BAD_ADDRESS = gettext_noop("Enter a whole e-mail address, such as name@example.com.")

# None of these pages may be kept by a cache: each names an address and its subscriptions.
private_page = cache_control(private=True, no_store=True)


class AddressForm(forms.Form):
    email = AddressField(label=gettext_lazy("E-mail address"), max_length=254,
                         error_messages={"required": gettext_lazy(ADDRESS_REQUIRED),
                                         "invalid": gettext_lazy(BAD_ADDRESS)})


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request: HttpRequest, token: str, discussion: str = "") -> HttpResponse:
    """GET lists what was asked for with the address until its mail was written, each
    ticked (a mail program's link checker must not confirm); POST confirms the ticked
    ones, marks this browser as the address's owner, and redirects (303) to the
    address's subscriptions."""
    found = subscriptions.read_confirm_token(token, max_age=conf.get().notifications_confirm_max_age)
    if found is None:
        return _page(request, "comments/subscriptions/broken.html", {"message": gettext(BROKEN_LINK)}, status=400)
    email, issued = found
    if request.method != "POST":
        waiting = _described(subscriptions.pending(email=email, before=issued))
        return _page(request, "comments/subscriptions/confirm.html", {"email": email, "waiting": waiting})
    count = subscriptions.confirm_requests(email=email, ids=request.POST.getlist("subscription"), before=issued)
    confirmed.confirm(email=email)
    if count:
        messages.success(request, ngettext("Confirmed: %(count)d subscription now sends you mail.",
                                           "Confirmed: %(count)d subscriptions now send you mail.", count)
                         % {"count": count})
    else:
        messages.info(request, gettext(CONFIRMED_ADDRESS))
    response = see_other(links.here(request, "manage", token=subscriptions.manage_token(email)))
    # This browser followed the address's link: it may now vouch for the address.
    ownership.remember_confirmed(request, response, email)
    return response


@private_page
@csrf_exempt  # RFC 8058: mail programs POST `List-Unsubscribe=One-Click` with no form token.
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str, discussion: str = "") -> HttpResponse:
    """GET: a page with a button; POST (the button, or a mail program's one click): done."""
    subscription_id = subscriptions.read_unsubscribe_token(token)
    subscription = subscriptions.find(subscription_id) if subscription_id else None
    if subscription is None:
        raise Http404(gettext(NO_SUCH_SUBSCRIPTION))
    if request.method == "POST":
        subscription = subscriptions.unsubscribe(subscription.id)
        if subscription is None:
            raise Http404(gettext(NO_SUCH_SUBSCRIPTION))
    # No link to the address's other subscriptions: this link never expires and may be
    # in a forwarded mail; the page links to the ask page, which mails the owner one.
    context = {"subscription": _described([subscription])[0], "done": not subscription.active}
    return _page(request, "comments/subscriptions/unsubscribe.html", context)


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def manage(request: HttpRequest, token: str, discussion: str = "") -> HttpResponse:
    """Every active subscription of the address the link names, each with a Stop button,
    and one to stop them all; the link works for NOTIFICATIONS_MANAGE_MAX_AGE."""
    email = subscriptions.read_manage_token(token, max_age=conf.get().notifications_manage_max_age)
    if email is None:
        return _page(request, "comments/subscriptions/ask.html",
                     {"form": AddressForm(), "message": gettext(BAD_MANAGE_LINK)}, status=400)
    stopped = 0
    if request.method == "POST":
        chosen = str(request.POST.get("subscription", ""))
        if chosen == "all":
            stopped = subscriptions.unsubscribe_all(email=email)
        elif chosen in {s.id for s in subscriptions.of_address(email=email)}:
            stopped_one = subscriptions.unsubscribe(chosen)
            stopped = int(stopped_one is not None and not stopped_one.active)
    context = {"email": email, "subscriptions": _described(subscriptions.of_address(email=email)),
               "stopped": stopped, "posted": request.method == "POST"}
    return _page(request, "comments/subscriptions/manage.html", context)


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def ask(request: HttpRequest, discussion: str = "") -> HttpResponse:
    """Ask for a link to one's subscriptions by mail: the same answer for any address."""
    if request.method != "POST":
        return _page(request, "comments/subscriptions/ask.html", {"form": AddressForm()})
    form = AddressForm(request.POST)
    if not form.is_valid():
        return _page(request, "comments/subscriptions/ask.html", {"form": form}, status=400)
    notify.request_address_mail(kind=notify.MANAGE, email=form.cleaned_data["email"],
                                ip=clients.client_ip(request))
    return _page(request, "comments/subscriptions/ask.html", {"form": form, "asked": gettext(ASKED)})


def _described(found: list[subscriptions.Subscription]) -> list[dict]:
    """Each subscription with the discussion it is about (for its page)."""
    titles = {p.id: p for p in get_host().get_many(list({s.discussion_id for s in found}))}
    return [{"subscription": s, "post": titles.get(s.discussion_id),
             "replies": s.kind == subscriptions.REPLIES, "branch": s.kind == subscriptions.BRANCH,
             "thread_url": _thread_url(s, titles.get(s.discussion_id))} for s in found]


def _thread_url(subscription: subscriptions.Subscription, post: Discussion | None) -> str:
    """A followed branch's page (its root comment's permalink); "" for other kinds."""
    if subscription.kind != subscriptions.BRANCH or post is None or not subscription.full_slug:
        return ""
    return reverse("comments:permalink", args=[post.slug, slugs.slug_of(subscription.full_slug)])


def _page(request: HttpRequest, template_name: str, context: dict, *, status: int = 200) -> HttpResponse:
    """The app's `render`, with the link to the ask page on this page's mount (`ask_url`)."""
    return rendering.render(request, template_name, {**context, "ask_url": links.here(request, "ask")},
                            status=status)
