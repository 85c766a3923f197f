"""Composing notification mail from a claimed outbox batch (comments/notifications/outbox.py): plain
text and HTML from comments/templates/comments/mail/, absolute links on SITE_URL, and the standard
headers (List-Unsubscribe with its https link and RFC 8058's one-click
List-Unsubscribe-Post, Auto-Submitted, a Message-ID). No `mailto:` unsubscribe: no
one reads the sending mailbox, and RFC 8058's POST works without one.

`compose` checks again, at sending time, what the mail may say: replies deleted,
held or marked as spam since they were enqueued are left out, a subscription ended
or never confirmed by its owner sends nothing, and a confirmation mail goes only
while something waits for the address's owner (None: drop the batch).

A mail is written in its recipient's language (`recipient_language`): the one they
used the site in when they asked for it, else the site's LANGUAGE_CODE. `compose`
runs in the sender's loop, where no reader's request is active, so it switches
the language itself around everything it renders.
"""

from __future__ import annotations

import hashlib
import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from comments import conf, records
from comments.host import Discussion, get_host
from comments.notifications import links, mail_moderation, moderation_links, notify, subscriptions
from comments.notifications.outbox import Item
from comments.records import Comment
from comments.stores import get_store

logger = logging.getLogger(__name__)

# Each kind's subject for one comment (naming its author) and for several (counting them).
SUBJECTS = {
    notify.REPLY: (
        _("%(name)s replied to your comment on “%(title)s”"),
        ngettext_lazy("%(count)d reply to your comment on “%(title)s”",
                      "%(count)d replies to your comment on “%(title)s”", "count"),
    ),
    notify.FOLLOW: (
        _("%(name)s commented on “%(title)s”"),
        ngettext_lazy("%(count)d new comment on “%(title)s”", "%(count)d new comments on “%(title)s”", "count"),
    ),
    notify.THREAD: (
        _("%(name)s commented in a thread you follow on “%(title)s”"),
        ngettext_lazy("%(count)d new comment in a thread you follow on “%(title)s”",
                      "%(count)d new comments in a thread you follow on “%(title)s”", "count"),
    ),
    notify.AUTHOR: (
        _("%(name)s commented on “%(title)s”"),
        ngettext_lazy("%(count)d new comment on your posts", "%(count)d new comments on your posts", "count"),
    ),
    notify.QUEUE: (
        _("A comment waits for moderation"),
        ngettext_lazy("%(count)d comment waits for moderation", "%(count)d comments wait for moderation", "count"),
    ),
}
CONFIRM_SUBJECT = _("Confirm your e-mail address for comment notifications")
MANAGE_SUBJECT = _("Your comment notifications")


# The site's address in mails' links when the project sets no SITE_URL.
DEFAULT_SITE_URL = "http://localhost:8000"


def site_url() -> str:
    """SITE_URL (the site's own setting: where mails' links point), or DEFAULT_SITE_URL."""
    return (getattr(settings, "SITE_URL", "") or DEFAULT_SITE_URL).rstrip("/")


def absolute(path: str) -> str:
    return site_url() + path


def _domain() -> str:
    return urlsplit(site_url()).hostname or "localhost"


def message_id(items: list[Item]) -> str:
    """The same for a batch sent again after a killed sender: receivers see one mail."""
    digest = hashlib.sha256("\n".join(sorted(item.key for item in items)).encode()).hexdigest()[:32]
    return f"<{digest}@{_domain()}>"


def _message(*, to: str, subject: str, template: str, context: dict, items: list[Item],
             unsubscribe: str | None = None) -> EmailMultiAlternatives:
    context = {**context, "site_url": site_url(), "unsubscribe_url": unsubscribe}
    headers = {"Auto-Submitted": "auto-generated", "Message-ID": message_id(items)}
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message = EmailMultiAlternatives(
        subject=str(subject), body=render_to_string(f"comments/mail/{template}.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL, to=[to], headers=headers,
    )
    message.attach_alternative(render_to_string(f"comments/mail/{template}.html", context), "text/html")
    return message


def comment_url(post: Discussion, comment: Comment) -> str:
    return absolute(reverse("comments:permalink", args=[post.slug, comment.slug]) + "#" + comment.anchor)


def _entries(items: list[Item], *, status: str) -> list[dict]:
    """The comments the items name that still have `status`, each with its discussion and
    link, oldest first."""
    comments = [c for c in get_store().find_by_ids(ids=[item.data["comment"] for item in items]) if c.status == status]
    found = {p.id: p for p in get_host().get_many(list({c.discussion_id for c in comments}))}
    entries = [{"comment": c, "post": found[c.discussion_id], "url": comment_url(found[c.discussion_id], c)}
               for c in comments if c.discussion_id in found]
    return sorted(entries, key=lambda entry: entry["comment"].posted)


def _subject(kind: str, entries: list[dict]) -> str:
    one, many = SUBJECTS[kind]
    first = entries[0]
    return (one if len(entries) == 1 else many) % {
        "name": first["comment"].author.name, "title": first["post"].title, "count": len(entries)}


def recipient_language(items: list[Item], subscription: subscriptions.Subscription | None = None) -> str:
    """The language to write a batch's mail in: the one recorded with the request for
    it (the item's `lang`) or with the subscription, when the site still offers it;
    otherwise the site's LANGUAGE_CODE."""
    offered = {code for code, _name in settings.LANGUAGES}
    for language in (items[0].data.get("lang"), subscription.language if subscription else None):
        if isinstance(language, str) and language in offered:
            return language
    return settings.LANGUAGE_CODE


def compose(items: list[Item]) -> EmailMultiAlternatives | None:
    """The mail for a claimed batch, or None when nothing of it is to be sent any more."""
    if items[0].kind in (notify.REPLY, notify.FOLLOW, notify.THREAD):
        return _subscription_mail(items[0].kind, items)
    with translation.override(recipient_language(items)):
        return _address_or_digest_mail(items)


def _address_or_digest_mail(items: list[Item]) -> EmailMultiAlternatives | None:
    kind, to = items[0].kind, items[0].to
    if kind == notify.CONFIRM:
        waiting = subscriptions.pending(email=to)
        url = _address_link("confirm", subscriptions.confirm_token(to), waiting) if waiting else None
        if url is None:
            return None
        days = max(1, conf.get().notifications_confirm_max_age // 86400)
        return _message(to=to, subject=CONFIRM_SUBJECT, template="confirm", items=items,
                        context={"confirm_url": url, "days": days})
    if kind == notify.MANAGE:
        found = subscriptions.of_address(email=to)
        url = _address_link("manage", subscriptions.manage_token(to), found) if found else None
        if url is None:
            return None
        return _message(to=to, subject=MANAGE_SUBJECT, template="manage", items=items,
                        context={"manage_url": url})
    entries = _entries(items, status=records.PENDING if kind == notify.QUEUE else records.APPROVED)
    if not entries:
        return None
    # A host may have no moderation page to link (BaseHost's moderation_url): no link then.
    moderation = get_host().moderation_url()
    days = 0
    if kind == notify.QUEUE and _add_moderation_links(items, entries):
        days = max(1, mail_moderation.max_age() // 86400)
    return _message(to=to, subject=_subject(kind, entries), template="digest", items=items,
                    context={"entries": entries, "queue": kind == notify.QUEUE, "link_days": days,
                             "queue_url": absolute(moderation) if moderation else ""})


def _add_moderation_links(items: list[Item], entries: list[dict]) -> bool:
    """Give each entry of a queue mail its signed Approve, Spam and Delete links
    (`moderate`: the URL of each action), when the links are on and the editor the
    batch is for still moderates; whether it did. Items enqueued before they named
    their editor name them in their batch (`queue:<user id>`)."""
    if mail_moderation.max_age() <= 0:
        return False
    editor = mail_moderation.moderator(items[0].data.get("editor", items[0].batch.partition(":")[2]))
    if editor is None:
        return False
    for entry in entries:
        tokens = moderation_links.make_tokens(editor_id=editor.pk, comment_id=entry["comment"].id)
        entry["moderate"] = {action: _discussion_link("moderate", token, entry["post"])
                             for action, token in tokens.items()}
    return True


def _address_link(name: str, token: str, about: list[subscriptions.Subscription]) -> str | None:
    """The link in a mail about an address (`about`: the subscriptions it concerns):
    None, and the mail not sent, when the host mounts the subscription pages nowhere
    for the whole site and none of their discussions is left to link under."""
    path = links.for_address(name, token=token, about=about)
    if path is None:
        logger.warning("A %s mail was not sent: the subscription pages have no site-wide mount and "
                       "none of the address's discussions is left to link under.", name)
        return None
    return absolute(path)


def _discussion_link(name: str, token: str, post: Discussion) -> str:
    """The link in a mail about discussion `post`: at the site-wide mount, or under its prefix."""
    return absolute(links.in_discussion(name, token=token, discussion_slug=post.slug))


def _subscription_mail(kind: str, items: list[Item]) -> EmailMultiAlternatives | None:
    subscription = subscriptions.find(items[0].data["subscription"])
    if subscription is None or not subscriptions.deliverable(subscription):
        return None
    entries = [e for e in _entries(items, status=records.APPROVED) if not notify.is_authors(subscription, e["comment"])]
    if not entries:
        return None
    parent = get_store().find_by_id(subscription.target) if kind in (notify.REPLY, notify.THREAD) else None
    post = entries[0]["post"]
    unsubscribe = _discussion_link("unsubscribe", subscriptions.unsubscribe_token(subscription.id), post)
    manage = _discussion_link("manage", subscriptions.manage_token(subscription.email), post)
    with translation.override(recipient_language(items, subscription)):
        return _message(
            to=subscription.email, subject=_subject(kind, entries), template="replies", items=items,
            unsubscribe=unsubscribe,
            context={"entries": entries, "post": post, "parent": parent,
                     "replies": kind == notify.REPLY, "thread": kind == notify.THREAD, "manage_url": manage},
        )
