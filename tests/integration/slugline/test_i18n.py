"""The site in English, Vietnamese, Hindi and Indonesian (issue 20): choosing a
language, pages and forms in it, relative times and plurals, and caches that never
serve one language's page to another. HTTP through Django's test client against the
real MongoDB-compatible server; the catalogs are compiled first (make does it too)."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import translation
from django.utils.translation import trans_real

from comments.posting import forms as comment_forms
from slugline import languages
from tests.page_reading import page, post_url, submit

LOCALE = Path(django_settings.BASE_DIR) / "locale"
APP_LOCALE = Path(django_settings.BASE_DIR) / "comments" / "locale"
COOKIE = django_settings.LANGUAGE_COOKIE_NAME


@pytest.fixture(scope="module", autouse=True)
def _compiled_catalogs():
    """Each catalog's .mo as `make` builds it (msgfmt, when the .po is newer), and
    Django's per-language catalog cache emptied so the fresh ones are read."""
    for po in [*LOCALE.glob("*/LC_MESSAGES/django.po"), *APP_LOCALE.glob("*/LC_MESSAGES/django.po")]:
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            subprocess.run(["msgfmt", "--check", "-o", str(mo), str(po)], check=True)
    trans_real._translations = {}
    trans_real._active = trans_real.Local()
    yield


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]*)"', response.content.decode()).group(1)


def reading_in(client, language: str):
    """The client as a reader who chose `language` with the switcher (its cookie)."""
    client.cookies[COOKIE] = language
    return client


# --- Choosing a language ---------------------------------------------------------------


@pytest.mark.parametrize("language, words", [
    ("vi", "Bài viết mới nhất"), ("hi", "नई पोस्टें"), ("id", "Tulisan terbaru"), ("en", "Latest posts"),
])
def test_the_browsers_language_gives_the_page_in_it(client, language, words):
    """Accept-Language picks the language: <html lang> says it and the page speaks it."""
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")
    assert response.status_code == 200
    assert html_lang(response) == language
    assert words in response.content.decode()


def test_pages_say_they_vary_by_language(client):
    """A shared cache in front of the site must keep one copy per language and chooser."""
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="vi")
    vary = {value.strip().lower() for value in response["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary


def test_every_page_has_the_switcher_back_to_itself(client):
    """The switcher posts to set_language with this page (and its query) as `next`,
    offers each language in its own name, labelled, and works without JavaScript."""
    shown = client.get("/search/?q=mongo&page=1", HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    form = re.search(r'<form class="language-switcher" method="post" action="/i18n/setlang/">(.*?)</form>',
                     shown, re.S)
    assert form, "no language switcher"
    body = form.group(1)
    assert 'name="csrfmiddlewaretoken"' in body
    assert '<input type="hidden" name="next" value="/search/?q=mongo&amp;page=1">' in body
    assert '<label for="language-select">भाषा</label>' in body
    for code, name in languages.LANGUAGES:
        assert f'<option value="{code}" lang="{code}"' in body and f">{name}</option>" in body
    assert '<option value="hi" lang="hi" selected>' in body
    assert '<button type="submit">' in body


def test_the_switcher_sets_the_cookie_and_goes_back(client):
    """POST /i18n/setlang/ remembers the choice in a cookie (a year, SameSite=Lax) and
    redirects to `next`, where the page is in the chosen language."""
    response = client.post("/i18n/setlang/", {"language": "id", "next": "/search/?q=kopi"})
    assert response.status_code == 302 and response["Location"] == "/search/?q=kopi"
    cookie = response.cookies[COOKIE]
    assert cookie.value == "id"
    assert cookie["samesite"] == "Lax" and int(cookie["max-age"]) == 365 * 24 * 3600
    assert html_lang(client.get(response["Location"])) == "id"


@pytest.mark.parametrize("unsafe", ["https://elsewhere.example/", "//elsewhere.example/", "javascript:alert(1)"])
def test_the_switcher_never_sends_readers_to_another_site(client, unsafe):
    """An unsafe `next` is ignored: the reader lands on this site's home page."""
    response = client.post("/i18n/setlang/", {"language": "vi", "next": unsafe})
    assert response.status_code == 302 and response["Location"] == "/"
    assert response.cookies[COOKIE].value == "vi"


def test_the_chosen_language_wins_over_the_browsers(client):
    """The switcher's cookie beats Accept-Language."""
    response = reading_in(client, "id").get("/", HTTP_ACCEPT_LANGUAGE="vi")
    assert html_lang(response) == "id"


@pytest.mark.parametrize("default", ["en", "vi"])
def test_an_unknown_language_falls_back_to_the_sites_default(client, settings, default):
    """A browser asking only for a language the site lacks gets LANGUAGE_CODE, and so
    does a reader whose switcher post named one."""
    settings.LANGUAGE_CODE = default
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="fr")) == default
    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="fr")) == default


def test_the_default_language_must_be_one_of_the_sites():
    """LANGUAGE_CODE from the environment: forgiving of case, refusing the unknown."""
    assert languages.default_language("VI") == "vi"
    assert languages.default_language(" id ") == "id"
    with pytest.raises(ImproperlyConfigured, match=r"LANGUAGE_CODE is 'fr'; the site's languages are: en, vi, hi, id"):
        languages.default_language("fr")
    assert django_settings.LANGUAGE_CODE in {code for code, _name in languages.LANGUAGES}


def test_error_pages_are_in_the_readers_language(client):
    """A 404 is in the site's layout with the reader's <html lang> and switcher."""
    response = reading_in(client, "vi").get("/posts/no-such-post/")
    assert response.status_code == 404
    assert html_lang(response) == "vi" and 'class="language-switcher"' in response.content.decode()


# --- Forms ------------------------------------------------------------------------------


def test_a_refused_comment_comes_back_translated_with_the_text_kept(client, make_post):
    """A Vietnamese reader who forgot their name reads why in Vietnamese, and finds
    what they wrote still in the form."""
    post = make_post()
    reading_in(client, "vi")
    response = submit(client, post_url(post), name="", text="Bài viết rất hay, cảm ơn bạn!")
    shown = page(response)
    assert response.status_code == 400
    with translation.override("vi"):
        expected = translation.gettext(comment_forms.NAME_REQUIRED)
    assert expected != comment_forms.NAME_REQUIRED
    assert expected in shown.text_of("field-error")
    assert shown.textareas["text"] == "Bài viết rất hay, cảm ơn bạn!"


def test_english_readers_still_get_the_english_messages(client, make_post):
    """The message constants tests compare are what English readers see."""
    post = make_post()
    response = submit(reading_in(client, "en"), post_url(post), name="")
    assert comment_forms.NAME_REQUIRED in page(response).text_of("field-error")


# --- Relative times, dates and plurals -------------------------------------------------


@pytest.mark.parametrize("language, words", [
    ("en", "3\xa0minutes ago"), ("vi", "3\xa0phút trước"), ("hi", "3\xa0मिनट पहले"), ("id", "3\xa0menit yang lalu"),
])
def test_comments_say_when_in_the_readers_language(client, make_post, make_comment, language, words):
    """A comment posted three minutes ago says so in each language (Django's humanize
    catalogs, completed for Hindi by ours)."""
    post = make_post()
    make_comment(post, at=datetime.now(timezone.utc) - timedelta(minutes=3, seconds=5))
    html = reading_in(client, language).get(post_url(post)).content.decode()
    assert re.search(rf'<time datetime="[^"]+" title="[^"]+">{words}</time>', html), words


@pytest.mark.parametrize("language, words", [
    ("en", "2\xa0days ago"), ("vi", "2\xa0ngày trước"), ("hi", "2\xa0दिन पहले"), ("id", "2\xa0hari yang lalu"),
])
def test_times_over_a_day_are_in_the_readers_language_too(language, words):
    """Past a day humanize names the units itself ("2 days"): our catalogs complete
    Django's for Hindi and Vietnamese, which leave them English."""
    from django.contrib.humanize.templatetags.humanize import naturaltime

    with translation.override(language):
        assert naturaltime(datetime.now(timezone.utc) - timedelta(days=2, minutes=1)) == words


@pytest.mark.parametrize("language, date", [
    ("en", ">5 November 2025</time>"), ("vi", ">5 tháng 11 năm 2025</time>"), ("hi", ">5 नवंबर 2025</time>"),
])
def test_dates_are_written_the_readers_way(client, make_post, language, date):
    """Bylines use the language's DATE_FORMAT; English keeps the site's "5 November
    2025"; Vietnamese reads mid-line without a capital "Ngày"; Hindi month names are
    spelt right (not Django's "नवमबर")."""
    post = make_post(published=datetime(2025, 11, 5, 12, tzinfo=timezone.utc))
    assert date in reading_in(client, language).get(post_url(post)).content.decode()


@pytest.mark.parametrize("language, one, two", [
    ("en", "1 comment", "2 comments"),
    ("hi", "1 टिप्पणी", "2 टिप्पणियाँ"),
    ("vi", "1 bình luận", "2 bình luận"),
])
def test_comment_counts_use_each_languages_plural(client, make_post, make_comment, language, one, two):
    """Plural forms come from the catalog's Plural-Forms (Hindi has two, Vietnamese one)."""
    single, double = make_post(title="Single"), make_post(title="Double")
    make_comment(single)
    make_comment(double), make_comment(double)
    reading_in(client, language)
    assert page(client.get(post_url(single))).by_id["comments-title"] == one
    assert page(client.get(post_url(double))).by_id["comments-title"] == two
    home = client.get("/").content.decode()
    assert f">{one}</a>" in home and f">{two}</a>" in home


# --- Caches -----------------------------------------------------------------------------


def test_cached_comments_never_cross_languages(client, settings, make_post, make_comment):
    """The rendered comments a page shares through the cache are kept per language: a
    Vietnamese reader first, then an English one, then the Vietnamese again (from the
    cache) each get their own words."""
    settings.COMMENTS_CACHE_SECONDS = 300
    post = make_post()
    make_comment(post, at=datetime.now(timezone.utc) - timedelta(hours=2))
    vietnamese = client.get(post_url(post), HTTP_ACCEPT_LANGUAGE="vi").content.decode()
    english = client.get(post_url(post), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    again = client.get(post_url(post), HTTP_ACCEPT_LANGUAGE="vi").content.decode()
    assert page(client.get(post_url(post), HTTP_ACCEPT_LANGUAGE="en")).by_id["comments-title"] == "1 comment"
    assert "1 bình luận" in vietnamese and "1 bình luận" in again
    assert "bình luận" not in english and "trước" not in english
    assert "2\xa0hours ago" in english and "2\xa0giờ trước" in vietnamese


def test_the_load_more_button_is_labelled_in_the_readers_language(client, settings, make_post, make_comment):
    """The script that adds "Load more comments" takes its label from the page."""
    settings.COMMENTS_PER_PAGE = 2
    post = make_post()
    for n in range(3):
        make_comment(post, text=f"Bình luận {n}")
    html = reading_in(client, "vi").get(post_url(post)).content.decode()
    assert 'data-load-more="Tải thêm bình luận"' in html
