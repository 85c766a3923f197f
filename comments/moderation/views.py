"""The moderation pages (for whom the host's `can_moderate` admits): the comment queue
with its bulk actions, bans and picks, and the blocklist. Thin: form ->
comments.moderation -> redirect (POST/redirect/GET). GET never changes anything;
every change is a POST with Django's CSRF check.

A host mounts them with `include("comments.moderation.urls")` (docs/moderation.md);
the pages extend the layout named by COMMENTS_MODERATION_BASE_TEMPLATE, and reverse
their own URLs in the namespace they are mounted in."""

from urllib.parse import urlencode

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from bson import ObjectId
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop, ngettext_lazy, pgettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from comments import conf
from comments.host import Discussion, get_host
from comments.moderation import bans as member_bans, blocklist, branches, changes, confirmations, picks, undo
from comments.moderation import queue as moderation
from comments.moderation.forms import BanForm, BlocklistForm, ModerationForm, QueueFilterForm
from comments.records import QueueFilter
from comments.stores import get_store
from infra.http import see_other
from infra.pagination import get_page

# Marked for translation here, translated where they are shown (gettext); the
# plurals below are lazy, translated when filled in.
NOT_A_MODERATOR = gettext_noop("Only the site's moderators can do that.")
# The context variable naming the layout the moderation pages extend (its blocks:
# `moderation_title` and `moderation`).
BASE = "comments_moderation_base"
# MODERATED, BANNED and BAN_LIFTED_RESTORED are plurals by {count}, filled with
# str.format after translation: MODERATED["spam"].format(count=2). Their English
# plurals say "comments".
MODERATED = {
    "approve": ngettext_lazy("Approved {count} comment.", "Approved {count} comments.", "count"),
    "spam": ngettext_lazy("Marked {count} comment as spam.", "Marked {count} comments as spam.", "count"),
    "delete": ngettext_lazy(
        "Deleted {count} comment; replies to it stay, under “[deleted]”.",
        "Deleted {count} comments; replies to them stay, under “[deleted]”.",
        "count",
    ),
    "thread": ngettext_lazy(
        "Removed the thread: {count} comment.", "Removed the thread: {count} comments.", "count"
    ),
}
FLAGS_DISMISSED = ngettext_lazy(
    "Dismissed the flags on {count} comment.", "Dismissed the flags on {count} comments.", "count"
)
BANNED = ngettext_lazy(
    "Banned {who} and marked {count} comment as spam.",
    "Banned {who} and marked {count} comments as spam.",
    "count",
)
BANNED_NOBODY = gettext_noop("This comment had no account or IP address to ban by; it was marked as spam.")
GONE = gettext_noop("That comment no longer exists.")
STILL_APPLYING = gettext_noop(
    "It is recorded and partly applied; the rest (and the posts' comment counts) is being "
    "finished in the background within a minute."
)
NOTHING_TO_CHANGE = gettext_noop("The chosen comments are already so; nothing was changed.")
TERM_ADDED = gettext_noop("Added “%(value)s” to the blocklist.")
TERM_THERE = gettext_noop("“%(value)s” is on the blocklist already.")
ENTRY_REMOVED = gettext_noop("Removed from the blocklist.")
ENTRY_GONE = gettext_noop("That blocklist entry no longer exists.")
BAN_LIFTED = gettext_noop("The ban is lifted.")
BAN_LIFTED_RESTORED = ngettext_lazy(
    "The ban is lifted, and {count} comment it had marked as spam is back as it was.",
    "The ban is lifted, and {count} comments it had marked as spam are back as they were.",
    "count",
)
PICKED = gettext_noop("The comment is an editor's pick: it carries the badge and leads the best order.")
# Only a top-level pick leads the best order (comments/moderation/picks.py); a reply keeps its place in its thread.
PICKED_REPLY = gettext_noop("The reply is an editor's pick: it carries the badge and keeps its place in its thread.")
UNPICKED = gettext_noop("The comment is no longer an editor's pick.")
# What each branch action did (comments/moderation/branches.py); "slow" is a plural by seconds.
BRANCH_DONE: dict[str, Any] = {
    "lock": gettext_noop("Replies are closed in this thread: nothing below the comment takes a new reply."),
    "unlock": gettext_noop("Replies are open again in this thread."),
    "slow": ngettext_lazy("Slow mode is on in this thread: one comment each per {count} second.",
                          "Slow mode is on in this thread: one comment each per {count} seconds.", "count"),
    "unslow": gettext_noop("Slow mode is off in this thread."),
}
COMMENTS_CLOSED = gettext_noop("Comments on this post are closed.")
COMMENTS_OPENED = gettext_noop("Comments on this post are open.")
# What a blocklist entry is, or what a ban is by, in words.
KIND_LABELS = {
    blocklist.WORD: pgettext_lazy("blocklist entry", "word"),
    blocklist.DOMAIN: pgettext_lazy("blocklist entry", "domain"),
    blocklist.BAN_USER: pgettext_lazy("blocklist entry", "member"),
    blocklist.BAN_EMAIL: pgettext_lazy("blocklist entry", "e-mail"),
    blocklist.BAN_IP: pgettext_lazy("blocklist entry", "IP"),
}
View = Callable[..., HttpResponse]
QUEUE_FILTERS = ("tab", "post", "name", "email", "ip")


def moderator_required(view: View) -> View:
    """Anonymous: to the login page. Logged in but not a moderator (the host's
    `can_moderate`): 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not get_host().can_moderate(request.user):
            raise PermissionDenied(gettext(NOT_A_MODERATOR))
        return view(request, *args, **kwargs)

    return wrapper


def _prefix(request: HttpRequest) -> str:
    """The namespace these pages are mounted in, as a prefix of their URL names
    ("dashboard:" in Slugline; "" when mounted without one)."""
    namespace = request.resolver_match.namespace if request.resolver_match else ""
    return f"{namespace}:" if namespace else ""


def _url(request: HttpRequest, name: str, *args: object) -> str:
    """The address of one of these pages, in the namespace they are mounted in."""
    return reverse(_prefix(request) + name, args=args)


def _render(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """A moderation page in the host's moderation layout; its templates reverse the
    pages' addresses with `{% url moderation_ns|add:"blocklist" %}`."""
    full = {BASE: conf.get().moderation_base_template, "moderation_ns": _prefix(request), **context}
    return render(request, template, full, status=status)


@moderator_required
@require_http_methods(["GET", "HEAD"])
def queue(request: HttpRequest) -> HttpResponse:
    """Pending, flagged, spam and recent comments, filtered, with a count on each tab."""
    form = QueueFilterForm(request.GET)
    valid = form.is_valid()
    data = form.cleaned_data if valid else {}
    tab = data.get("tab") or "pending"
    post = data.get("post")
    filters = QueueFilter(
        discussion_id=post.id if post else None,
        name=data.get("name", ""), email=data.get("email", ""), ip=data.get("ip") or "",
    )
    counts = moderation.tab_counts(filters=filters) if valid else {}
    page = get_page(
        total=counts.get(tab, 0),
        fetch=lambda skip, limit: moderation.queue_page(tab=tab, filters=filters, skip=skip, limit=limit),
        raw_number=request.GET.get("page"),
        per_page=conf.get().queue_per_page,
    )
    chosen = {key: request.GET[key] for key in QUEUE_FILTERS if key != "tab" and request.GET.get(key)}
    chosen = chosen if valid else {}
    tabs = [
        (key, label, counts.get(key, 0), urlencode({**chosen, "tab": key}))
        for key, label in form.fields["tab"].choices
    ]
    context = {
        "form": form, "tab": tab, "tabs": tabs, "page": page, "rows": _with_posts(page.object_list),
        "query": urlencode({**chosen, "tab": tab}), "filtered_post": post,
    }
    return _render(request, "comments/moderation/queue.html", context, status=200 if valid else 400)


def _with_posts(
    entries: list[moderation.QueueEntry],
) -> list[tuple[moderation.QueueEntry, Discussion | None]]:
    """Each queue entry with the discussion it is on (one query for the page's)."""
    found = {post.id: post for post in get_host().get_many({e.comment.discussion_id for e in entries})}
    return [(entry, found.get(entry.comment.discussion_id)) for entry in entries]


def _back(request: HttpRequest, raw_next: str | None) -> str:
    """Where to go after an action: the page of this site it came from (the queue, or
    a comment's page for its branch actions), or the queue."""
    queue_url = _url(request, "moderation")
    if raw_next and raw_next.startswith("/") and url_has_allowed_host_and_scheme(
        raw_next, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return raw_next
    return queue_url


@moderator_required
@require_POST
def moderate(request: HttpRequest) -> HttpResponse:
    """Approve, spam or delete the chosen comments, remove one's thread, or ban one's author."""
    form = ModerationForm(request.POST)
    if not form.is_valid():
        for error in form.non_field_errors():
            messages.error(request, error)
        return see_other(_back(request, request.POST.get("next")))
    action, ids = form.cleaned_data["action"], form.cleaned_data["ids"]
    terms: dict[str, Any] = {}
    if action == "ban" and (comment := get_store().find_by_id(ids[0])) is not None:
        if (refused := moderation.ban_refusal(comment, editor_id=request.user.pk)) is not None:
            messages.error(request, refused.message)
            return see_other(_back(request, form.cleaned_data.get("next")))
        if comment.author.id is not None and form.cleaned_data["confirmed"]:
            # A member's ban says why and until when (comments/moderation/bans.py).
            ban_form = BanForm(request.POST)
            if not ban_form.is_valid():
                return _confirm(request, form, ban_form=ban_form)
            terms = {"reason": ban_form.cleaned_data["reason"], "ends": ban_form.cleaned_data["ends"]}
    if action in confirmations.ASKED and not form.cleaned_data["confirmed"]:
        return _confirm(request, form)
    try:
        done = _apply(request, action=action, ids=ids, terms=terms, seconds=form.cleaned_data.get("seconds") or 0)
    except (changes.TooMany, moderation.BanRefused) as exc:
        messages.error(request, exc.message)
        return see_other(_back(request, form.cleaned_data.get("next")))
    if not done:
        messages.info(request, gettext(STILL_APPLYING))
    return see_other(_back(request, form.cleaned_data.get("next")))


def _apply(request: HttpRequest, *, action: str, ids: list[ObjectId], terms: dict[str, Any],
           seconds: int = 0) -> bool:
    """Carry out a confirmed action and say what it did; whether it is all applied
    (False: the rest is being finished in the background). `terms`: a member's ban's
    reason and end."""
    editor = request.user.get_username()
    if action == "ban":
        banned = moderation.ban_commenter(comment_id=ids[0], editor=editor, editor_id=request.user.pk, **terms)
        if banned is None:
            messages.error(request, gettext(GONE))
            return True
        if not banned.keys:
            messages.success(request, gettext(BANNED_NOBODY))
        else:
            who = confirmations.banned_who(banned.keys)
            messages.success(request, BANNED.format(who=who, count=banned.marked))
        return banned.done
    if action in ("pick", "unpick"):
        return _pick(request, comment_id=ids[0], picked=action == "pick")
    if action in branches.ACTIONS:
        return _branch(request, action=action, comment_id=ids[0], seconds=seconds)
    if action == "thread":
        progress, token = moderation.remove_subthread(comment_id=ids[0], editor=editor), None
    else:
        progress, token = undo.act(action=action, comment_ids=ids, editor=editor, editor_id=request.user.pk)
    said = [MODERATED[action].format(count=progress.total)] if progress.total or not progress.dismissed \
        else []
    said += [FLAGS_DISMISSED.format(count=progress.dismissed)] if progress.dismissed else []
    for text in said:
        messages.success(request, _with_undo(request, text, token) if token else text)
        token = None  # The first message carries the button.
    return progress.done


def _with_undo(request: HttpRequest, text: str, token: str) -> str:
    """A message with the button that undoes the action (a form: no JavaScript needed;
    comments/moderation/undo_views.py); the message keeps it as HTML, escaped within."""
    context = {"text": text, "token": token, "action": _url(request, "moderation_undo"),
               "next": _back(request, request.POST.get("next"))}
    return render_to_string("comments/moderation/includes/undo_offer.html", context, request=request)


def _branch(request: HttpRequest, *, action: str, comment_id: ObjectId, seconds: int) -> bool:
    """Lock or unlock the branch below a comment, or set or end its slow mode."""
    rule = branches.act(action=action, comment_id=comment_id, seconds=seconds, editor=request.user.get_username())
    if rule is None:
        messages.error(request, gettext(GONE))
    elif action == "slow":
        messages.success(request, BRANCH_DONE["slow"].format(count=seconds))
    else:
        messages.success(request, gettext(str(BRANCH_DONE[action])))
    return True


def _pick(request: HttpRequest, *, comment_id: ObjectId, picked: bool) -> bool:
    """Feature a comment as an editor's pick, or stop featuring it."""
    try:
        comment = picks.feature(comment_id=comment_id, picked=picked)
    except picks.PickRefused as exc:
        messages.error(request, exc.message)
        return True
    if comment is None:
        messages.error(request, gettext(GONE))
    else:
        said = (PICKED_REPLY if comment.parent_id else PICKED) if picked else UNPICKED
        messages.success(request, gettext(said))
    return True


def _confirm(request: HttpRequest, form: ModerationForm, *, ban_form: BanForm | None = None) -> HttpResponse:
    """The confirmation page of a destructive action: what it will change, a button
    that sends the same action again, confirmed, and a way back. Nothing changes yet.
    A member's ban asks its reason and length there (`ban_form`: as sent, refused)."""
    data = form.cleaned_data
    back = _back(request, data.get("next"))
    impact = confirmations.impact_of(action=data["action"], comment_ids=data["ids"])
    if not impact.changes_something:
        messages.error(request, gettext(NOTHING_TO_CHANGE if impact.found else GONE))
        return see_other(back)
    context = {
        "impact": impact, "summary": impact.summary(), "back": back,
        "title": impact.title, "button": impact.button,
        "one": data.get("one") or "", "action": data["action"], "ids": data["ids"],
        "ban_form": ban_form or (BanForm() if impact.bans_member else None),
    }
    return _render(request, "comments/moderation/confirm.html", context, status=400 if ban_form else 200)


@moderator_required
@require_http_methods(["GET", "HEAD", "POST"])
def blocklist_page(request: HttpRequest) -> HttpResponse:
    """The blocked words and e-mail domains (comments with them wait for an editor),
    and the banned commenters."""
    form = BlocklistForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        added = blocklist.add_entry(
            kind=data["kind"], value=data["value"], added_by=request.user.get_username()
        )
        template = TERM_ADDED if added else TERM_THERE
        messages.success(request, gettext(template) % {"value": blocklist.normalise(data["kind"], data["value"])})
        return see_other(_url(request, "blocklist"))
    entries = blocklist.find_entries()
    bans = [e for e in entries if e.kind in blocklist.BANS]
    members = member_bans.banned_now()
    names = confirmations.member_names([e.value for e in bans if e.kind == blocklist.BAN_USER]
                                       + [str(ban.user_id) for ban in members])
    context = {
        "form": form,
        "terms": [(e, _kind_label(e.kind)) for e in entries if e.kind in blocklist.TERMS],
        "bans": [(e, _kind_label(e.kind), _banned_value(e, names)) for e in bans],
        "member_bans": [(ban, _member_name(str(ban.user_id), names)) for ban in members],
    }
    return _render(request, "comments/moderation/blocklist.html", context, status=400 if form.is_bound else 200)


@moderator_required
@require_http_methods(["GET", "HEAD", "POST"])
def blocklist_remove(request: HttpRequest, entry_id: str) -> HttpResponse:
    """Take a word or domain off the blocklist; lift a ban. Lifting a ban asks first
    (GET, or a POST without `confirmed`), saying how many comments its ban marked as
    spam are still spam and offering to restore them to what they were."""
    entry = blocklist.find_entry(entry_id=entry_id)
    if entry is None:
        raise Http404(gettext(ENTRY_GONE))
    if entry.kind in blocklist.TERMS:
        if request.method != "POST":
            return see_other(_url(request, "blocklist"))
        blocklist.remove_entry(entry_id=entry.id)
        messages.success(request, gettext(ENTRY_REMOVED))
        return see_other(_url(request, "blocklist"))
    if request.method != "POST" or request.POST.get("confirmed") != "yes":
        restorable = moderation.restorable_for(entry=entry)
        shown = confirmations.SHOWN
        names = confirmations.member_names([entry.value] if entry.kind == blocklist.BAN_USER else [])
        context = {"entry": entry, "kind_label": _kind_label(entry.kind),
                   "value": _banned_value(entry, names),
                   "restorable": restorable[:shown], "count": len(restorable),
                   "more": max(0, len(restorable) - shown)}
        return _render(request, "comments/moderation/blocklist_lift.html", context)
    lifted = moderation.lift_ban(entry_id=entry.id, restore=request.POST.get("restore") == "yes",
                                 editor=request.user.get_username())
    messages.success(request, BAN_LIFTED_RESTORED.format(count=lifted.restored) if lifted.restored else gettext(BAN_LIFTED))
    return see_other(_url(request, "blocklist"))


def _kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind)


def _banned_value(entry: blocklist.Entry, names: dict[str, str]) -> str:
    """What a ban is on, as the blocklist shows it: a member by the name they comment
    under (not their user id), an address as it is."""
    if entry.kind != blocklist.BAN_USER:
        return entry.value
    return _member_name(entry.value, names)


def _member_name(user_id: str, names: dict[str, str]) -> str:
    if user_id in names:
        return gettext("“%(name)s”") % {"name": names[user_id]}
    return confirmations.ACCOUNT_GONE % {"id": user_id}
