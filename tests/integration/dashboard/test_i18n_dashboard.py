"""The dashboard, its messages and the notification mail in the reader's language
(issue 20), through Django's test client against the real MongoDB-compatible server.

The translations these tests look for come from a small catalog of their own,
compiled with msgfmt into a temporary directory put first on LOCALE_PATHS: what is
tested is that the dashboard and the mail use the catalog of the right language, not
what the translators wrote (tests/integration/slugline/test_i18n.py checks the catalogs themselves)."""

from __future__ import annotations

import re
import subprocess

import pytest
from comments.records import CommentAuthor
from django.test import Client
from django.utils import translation

from comments.notifications import mail, notify, outbox, subscriptions
from comments.moderation import confirmations
from tests.page_reading import page, post_url, submit

HEADERS = {
    "vi": "nplurals=1; plural=0;",
    "hi": "nplurals=2; plural=(n > 1);",
    "id": "nplurals=1; plural=0;",
}
# msgid -> each language's msgstr (a tuple for a plural: msgid_plural, then the forms).
CATALOG = {
    "All posts": {"vi": "Tất cả bài viết", "hi": "सभी पोस्ट", "id": "Semua tulisan"},
    "Post created.": {"vi": "Đã tạo bài viết.", "hi": "पोस्ट बन गई।", "id": "Tulisan sudah dibuat."},
    "Confirm your e-mail address for comment notifications": {
        "vi": "Xác nhận địa chỉ e-mail để nhận thông báo về bình luận",
    },
    "%(name)s replied to your comment on “%(title)s”": {
        "vi": "%(name)s đã trả lời bình luận của bạn trong “%(title)s”",
    },
    "This will mark %(comments)s by %(names)s as spam.": {
        "hi": "यह %(names)s की %(comments)s को स्पैम चिह्नित करेगा।",
    },
    "%(count)d comment": {"hi": ("%(count)d comments", "%(count)d टिप्पणी", "%(count)d टिप्पणियाँ")},
    "%(count)d name": {"hi": ("%(count)d names", "%(count)d नाम", "%(count)d नामों")},
}
SITE = "http://blog.example.test"
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")
OTTO = CommentAuthor(id=None, name="Otto", email="otto@example.com")


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _po(language: str) -> str:
    lines = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"',
             f'"Plural-Forms: {HEADERS[language]}\\n"', ""]
    for msgid, translated in CATALOG.items():
        if language not in translated:
            continue
        lines.append(f"msgid {_quoted(msgid)}")
        value = translated[language]
        if isinstance(value, tuple):
            plural, *forms = value
            lines.append(f"msgid_plural {_quoted(plural)}")
            lines += [f"msgstr[{n}] {_quoted(form)}" for n, form in enumerate(forms)]
        else:
            lines.append(f"msgstr {_quoted(value)}")
        lines.append("")
    return "\n".join(lines)


@pytest.fixture(autouse=True)
def test_catalog(settings, tmp_path):
    """CATALOG compiled per language and put first on LOCALE_PATHS (changing the
    setting empties Django's cache of catalogs, before and after each test)."""
    for language in HEADERS:
        folder = tmp_path / language / "LC_MESSAGES"
        folder.mkdir(parents=True)
        (folder / "django.po").write_text(_po(language), encoding="utf-8")
        subprocess.run(["msgfmt", "--check", "-o", str(folder / "django.mo"), str(folder / "django.po")],
                       check=True)
    settings.LOCALE_PATHS = [tmp_path, *settings.LOCALE_PATHS]
    settings.LANGUAGE_CODE = "en"
    settings.SITE_URL = SITE
    settings.NOTIFICATIONS_BATCH_SECONDS = 0
    settings.NOTIFICATIONS_AUTHOR_DIGEST_MINUTES = 0
    settings.NOTIFICATIONS_QUEUE_DIGEST_MINUTES = 0


def editor(make_user, language: str | None = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language) if language else Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode()).group(1)


def heading(response) -> list[str]:
    return page(response).text_of("page-title")


# --- Dashboard pages ------------------------------------------------------------------


@pytest.mark.parametrize("language", ["vi", "hi", "id"])
def test_the_dashboard_answers_in_the_browsers_language(make_user, language):
    """Accept-Language picks the catalog: the post list's heading is the language's,
    and the page says which language it is in."""
    response = editor(make_user, language).get("/dashboard/")
    assert response.status_code == 200 and html_lang(response) == language
    assert heading(response) == [CATALOG["All posts"][language]]


def test_the_dashboard_stays_english_for_an_english_browser(make_user):
    response = editor(make_user, "en").get("/dashboard/")
    assert html_lang(response) == "en" and heading(response) == ["All posts"]


@pytest.mark.parametrize("language", ["vi", "id"])
def test_a_dashboard_message_is_translated_when_it_is_shown(make_user, language):
    """"Post created." is a plain constant (tests compare it in English); the page that
    shows it after the redirect translates it for the editor."""
    client = editor(make_user, language)
    created = client.post("/dashboard/posts/new/", {"title": "Xin chào", "content": "Nội dung", "status": "draft",
                                                   "action": "save"})
    assert created.status_code == 303
    shown = page(client.get(created["Location"]))
    assert shown.text_of("message") == [CATALOG["Post created."][language]]


# --- Plurals in the moderation confirmation -----------------------------------------


def test_the_confirmation_counts_one_comment_and_two_comments_in_english(make_user, make_post, make_comment):
    """English has a singular: "1 comment", then "2 comments" by "2 names"."""
    post = make_post()
    first = make_comment(post, author=ROSA, text="One")
    second = make_comment(post, author=OTTO, text="Two")
    client = editor(make_user, "en")
    one = client.post("/dashboard/moderation/actions/", {"action": "spam", "ids": [str(first.id)]})
    both = client.post("/dashboard/moderation/actions/", {"action": "spam", "ids": [str(first.id), str(second.id)]})
    assert page(one).text_of("confirm-summary") == ["This will mark 1 comment by “Rosa” as spam."]
    assert page(both).text_of("confirm-summary") == ["This will mark 2 comments by 2 names as spam."]


def test_the_confirmation_uses_the_languages_plural_forms(make_user, make_post, make_comment):
    """Hindi's catalog has two forms; the summary takes the one for each count."""
    post = make_post()
    first = make_comment(post, author=ROSA, text="One")
    second = make_comment(post, author=OTTO, text="Two")
    client = editor(make_user, "hi")
    one = client.post("/dashboard/moderation/actions/", {"action": "spam", "ids": [str(first.id)]})
    both = client.post("/dashboard/moderation/actions/", {"action": "spam", "ids": [str(first.id), str(second.id)]})
    assert page(one).text_of("confirm-summary") == ["यह “Rosa” की 1 टिप्पणी को स्पैम चिह्नित करेगा।"]
    assert page(both).text_of("confirm-summary") == ["यह 2 नामों की 2 टिप्पणियाँ को स्पैम चिह्नित करेगा।"]


def test_the_summary_is_written_in_the_language_active_when_it_is_asked_for(make_post, make_comment):
    """Impact.summary translates when called, not when the module was imported."""
    post = make_post()
    impact = confirmations.impact_of(action="spam", comment_ids=[make_comment(post, author=ROSA).id])
    with translation.override("hi"):
        assert impact.summary() == "यह “Rosa” की 1 टिप्पणी को स्पैम चिह्नित करेगा।"
    with translation.override("en"):
        assert impact.summary() == "This will mark 1 comment by “Rosa” as spam."


# --- Mail in the recipient's language -------------------------------------------------


def claimed_mail():
    claimed = outbox.claim_next()
    assert claimed is not None, "nothing was enqueued"
    return mail.compose(claimed.items)


def html_part(message) -> str:
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return html


def test_a_confirmation_asked_for_in_vietnamese_is_written_in_vietnamese(make_post):
    """The reader opts in from a Vietnamese page; the sender, later and with no
    request, writes the confirmation in Vietnamese all the same."""
    post = make_post()
    reader = Client(HTTP_ACCEPT_LANGUAGE="vi")
    assert submit(reader, post_url(post), notify_replies="on", text="Báo cho tôi").status_code == 303
    with translation.override("hi"):  # whatever the sending process has active
        message = claimed_mail()
    expected = CATALOG["Confirm your e-mail address for comment notifications"]["vi"]
    assert message.subject == expected
    assert '<html lang="vi">' in html_part(message)


@pytest.mark.parametrize("default", ["en", "hi"])
def test_a_confirmation_asked_for_in_another_language_is_in_the_sites_default(make_post, settings, default):
    """A language the site does not offer (or none recorded): the site's LANGUAGE_CODE."""
    settings.LANGUAGE_CODE = default
    post = make_post()
    reader = Client(HTTP_ACCEPT_LANGUAGE="fr")
    assert submit(reader, post_url(post), notify_replies="on", text="Tell me").status_code == 303
    with translation.override("vi"):
        message = claimed_mail()
    assert message.subject == mail.CONFIRM_SUBJECT  # no hi entry in the test catalog: English text
    assert f'<html lang="{default}">' in html_part(message)


def test_a_reply_mail_is_in_the_sites_default_not_the_senders_active_language(make_post, make_comment, settings):
    """A subscription that recorded no language gets its reply mail in LANGUAGE_CODE,
    whatever language the process that sends it has active (the subject, its HTML)."""
    settings.LANGUAGE_CODE = "vi"
    post = make_post(title="Phở")
    parent = make_comment(post, author=ROSA, text="Ngon")
    subscriptions.subscribe(kind=subscriptions.REPLIES, target=parent.id, discussion_id=post.id,
                            email=ROSA.email, owner=True)
    reply = make_comment(post, author=OTTO, text="Đúng vậy", parent_slug=parent.slug)
    notify.after_posting(reply, post_author_id=post.author.id)
    with translation.override("en"):
        message = claimed_mail()
    assert message.subject == "Otto đã trả lời bình luận của bạn trong “Phở”"
    assert '<html lang="vi">' in html_part(message)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_reply_mail_is_in_the_language_the_subscriber_used(make_post, make_comment, settings):
    """A subscription records the language its reader used the site in; their reply
    mails are written in it, not in the site's default or the sender's."""
    settings.LANGUAGE_CODE = "en"
    post = make_post(title="Phở")
    parent = make_comment(post, author=ROSA, text="Ngon")
    subscriptions.subscribe(kind=subscriptions.REPLIES, target=parent.id, discussion_id=post.id,
                            email=ROSA.email, owner=True, language="vi")
    reply = make_comment(post, author=OTTO, text="Đúng vậy", parent_slug=parent.slug)
    notify.after_posting(reply, post_author_id=post.author.id)
    with translation.override("hi"):
        message = claimed_mail()
    assert message.subject == "Otto đã trả lời bình luận của bạn trong “Phở”"
    assert '<html lang="vi">' in html_part(message)


def test_opting_in_records_the_language_of_the_page(make_post, make_comment):
    """Asking for reply mails from a page in Hindi records Hindi with the subscription."""
    post = make_post()
    comment = make_comment(post, author=ROSA, text="नमस्ते")
    with translation.override("hi"):
        notify.subscribe_after_posting(comment=comment, replies=True, follow=True, email=ROSA.email,
                                       user_id=None, ip="192.0.2.1")
    found = subscriptions.find(subscriptions.subscription_id(
        kind=subscriptions.REPLIES, target=comment.id, email=ROSA.email))
    assert found.language == "hi"
    followed = subscriptions.find(subscriptions.subscription_id(
        kind=subscriptions.DISCUSSION, target=post.id, email=ROSA.email))
    assert followed.language == "hi"
