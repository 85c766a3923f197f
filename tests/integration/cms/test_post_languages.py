"""Posts in any language: the dashboard's language field and slugs from any script,
`lang` on the post's text wherever it is shown, the language in feeds, and search
that ignores case and diacritics (with the release step's backfill of older posts)."""

import re
from urllib.parse import unquote

import pytest
from django.test import Client
from django.urls import reverse

from cms import posts
from cms.posts import search
from dashboard import post_forms
from infra.mongo import ensure_all_indexes

VI_TITLE, VI_SLUG = "Đường về Hà Nội", "duong-ve-ha-noi"
HI_TITLE, HI_SLUG = "हिन्दी में टिप्पणियाँ", "हिन्दी-में-टिप्पणियाँ"


def form(**overrides) -> dict:
    """A post form as the browser sends it (Save pressed), to be published now."""
    data = {
        "title": "A post",
        "slug": "",
        "content": "Some text.",
        "excerpt": "",
        "tags": "",
        "status": "published",
        "published": "",
        "language": "en",
        "action": "save",
    }
    data.update(overrides)
    return data


@pytest.fixture
def ada_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("ada", display_name="Ada Lindqvist"))
    return client


def create(client: Client, **overrides) -> posts.Post:
    response = client.post("/dashboard/posts/new/", form(**overrides))
    assert response.status_code == 303, response.content.decode()[:2000]
    return posts.get_by_id(response["Location"].rstrip("/").rsplit("/", 1)[1])


def html(client: Client, url: str, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, url
    return response.content.decode()


# --- Language and slugs through the dashboard ------------------------------------------


def test_a_vietnamese_post_gets_a_folded_slug_its_language_and_lang_on_its_text(ada_client):
    post = create(ada_client, title=VI_TITLE, content="Phố cổ **Hà Nội**.", language="vi")
    assert (post.slug, post.language) == (VI_SLUG, "vi")
    page = html(Client(), f"/posts/{VI_SLUG}/")
    assert f'<h1 id="post-title" lang="vi">{VI_TITLE}</h1>' in page
    assert '<div class="post-body" lang="vi"><p>Phố cổ <strong>Hà Nội</strong>.</p>' in page


def test_a_hindi_post_gets_a_unicode_slug_that_reverses_percent_encoded(ada_client):
    post = create(ada_client, title=HI_TITLE, language="hi")
    assert (post.slug, post.language) == (HI_SLUG, "hi")
    assert posts.get_published(HI_SLUG) == post


def test_a_hindi_post_is_reachable_at_its_url(ada_client):
    create(ada_client, title=HI_TITLE, content="नमस्ते", language="hi")
    url = reverse("post", args=[HI_SLUG])
    assert url.isascii() and unquote(url) == f"/posts/{HI_SLUG}/"
    page = html(Client(), url)
    assert f'<h1 id="post-title" lang="hi">{HI_TITLE}</h1>' in page
    assert Client().get(f"/posts/{HI_SLUG}/comments/").status_code == 200
    assert Client().get("/posts/a.b/").status_code == 404


def test_the_sitemap_lists_a_hindi_post_percent_encoded(ada_client):
    create(ada_client, title=HI_TITLE, language="hi")
    assert reverse("post", args=[HI_SLUG]) in html(Client(), "/sitemap.xml")


def test_an_editor_may_type_a_slug_in_any_script(ada_client):
    post = create(ada_client, title="Anything", slug="đường-phố", language="vi")
    assert post.slug == "đường-phố"


def test_a_language_left_out_is_the_sites_and_the_form_offers_it_first(ada_client, settings):
    settings.LANGUAGE_CODE = "id"
    post = create(ada_client, title="Menulis komentar", language="")
    assert post.language == "id"
    page = html(ada_client, "/dashboard/posts/new/")
    assert re.search(r'<option value="id" selected>', page)


def test_an_unknown_language_is_a_form_error_that_keeps_what_was_typed(ada_client, mongo_db):
    response = ada_client.post("/dashboard/posts/new/", form(title="Tiêu đề giữ nguyên", language="xx"))
    page = response.content.decode()
    assert response.status_code == 400 and str(post_forms.BAD_LANGUAGE).replace("'", "&#x27;") in page
    assert 'value="Tiêu đề giữ nguyên"' in page and mongo_db.posts.count_documents({}) == 0


def test_an_edit_changes_the_language_and_an_older_post_reads_as_the_sites(ada_client, make_post, mongo_db):
    post = create(ada_client, title="Bahasa", language="en")
    edited = form(title="Bahasa", slug=post.slug, language="id", revision=post.revision)
    assert ada_client.post(f"/dashboard/posts/{post.id}/", edited).status_code == 303
    assert posts.get_by_id(post.id).language == "id"
    older = make_post()
    mongo_db.posts.update_one({"_id": older.id}, {"$unset": {"language": ""}})
    assert posts.get_by_id(older.id).language == "en"
    assert 'lang="en"' in html(Client(), f"/posts/{older.slug}/")


def test_every_list_marks_the_posts_text_with_its_language(client, make_post, make_user):
    """Home, tag, author and search: the post's title and excerpt carry its `lang`."""
    make_user("ada")
    make_post(title="Đà Lạt", excerpt="Sương mù buổi sáng.", language="vi", tags=["t"])
    for url in ["/", "/tags/t/", "/authors/ada/", "/search/?q=da+lat"]:
        assert '<p class="post-excerpt" lang="vi">Sương mù buổi sáng.</p>' in html(client, url), url
    for url in ["/", "/tags/t/", "/search/?q=da+lat"]:
        assert re.search(r'<h2 id="post-[0-9a-f]+" lang="vi">', html(client, url)), url
    assert re.search(r'<h3 id="post-[0-9a-f]+" lang="vi">', html(client, "/authors/ada/"))


# --- Feeds -------------------------------------------------------------------------------


def test_feeds_say_each_posts_language(client, make_post):
    make_post(title="Xin chào", language="vi", tags=["t"])
    make_post(title="नमस्ते", language="hi", tags=["t"])
    for url in ["/feeds/latest/atom/", "/feeds/tags/t/atom/"]:
        atom = html(client, url)
        assert '<entry xml:lang="vi"><title>Xin chào</title>' in atom, url
        assert '<entry xml:lang="hi"><title>नमस्ते</title>' in atom, url
    rss = html(client, "/feeds/latest/rss/")
    assert 'xmlns:dc="http://purl.org/dc/elements/1.1/"' in rss
    assert re.search(r"<item><title>Xin chào</title>.*?<dc:language>vi</dc:language></item>", rss)


# --- Search ------------------------------------------------------------------------------


def found(text: str) -> list[str]:
    return [p.title for p in posts.search_published_page(text=text, skip=0, limit=20)]


@pytest.mark.parametrize("query", ["duong", "ĐƯỜNG", "Đường về", "duong ve ha noi", "HA NOI", "Hà Nội"])
def test_search_ignores_case_and_diacritics_both_ways(make_post, query):
    """ "duong" finds "Đường", and "Hà Nội" finds a post that wrote "Ha Noi"."""
    make_post(title=VI_TITLE, language="vi")
    make_post(title="Flights", content="Cheap flights to Ha Noi.")
    make_post(title="Other")
    expected = {VI_TITLE} if "uong" in query.lower() or "ường" in query.lower() else {VI_TITLE, "Flights"}
    assert set(found(query)) == expected
    assert posts.count_search_published(text=query) == len(expected)


def test_search_finds_words_of_the_excerpt_and_the_text_not_the_markup(make_post):
    make_post(title="One", excerpt="Về bình luận lồng nhau")
    make_post(title="Two", content="Một [liên kết](https://example.test/binh) ở đây.")
    assert found("binh luan") == ["One"]
    assert found("lien ket") == ["Two"] and found("example.test") == []


def test_search_matches_devanagari_after_nfc_and_ignores_nukta_and_joiners(make_post):
    make_post(title="क़लम और काग़ज़", language="hi")
    assert found("कलम") == found("क\u093cलम") == found("\u0958लम") == ["क़लम और काग़ज़"]
    assert found("कागज") == ["क़लम और काग़ज़"]
    assert found("कल्म") == []


def test_search_takes_the_query_literally(make_post):
    """ "a.*" matches only those three characters, never as a pattern."""
    make_post(title="Globs like a.* and more")
    make_post(title="abc")
    assert found("a.*") == ["Globs like a.* and more"]
    assert found("A.*") == ["Globs like a.* and more"]
    assert found(".*") == ["Globs like a.* and more"] and found("\u200d") == []


def test_the_search_page_finds_posts_typed_without_diacritics(client, make_post):
    make_post(title=VI_TITLE, language="vi")
    page = html(client, "/search/", q="duong ve")
    assert VI_TITLE in page and "1 post found" in page


def test_edits_refold_the_text(make_post):
    post = make_post(title="Phở bò")
    posts.update_post(
        post_id=post.id,
        revision=post.revision,
        title="Bún chả",
        slug=post.slug,
        content="",
        tags=(),
        status=post.status,
        published=post.published,
    )
    assert found("pho") == [] and found("bun cha") == ["Bún chả"]


# --- The release step's backfill ---------------------------------------------------------


def test_the_release_step_folds_older_posts_once(make_post, mongo_db):
    """Posts stored before `search_text` are found after ensure_indexes; rerunning
    writes nothing, and a copy an edit wrote meanwhile is not overwritten."""
    older = [make_post(title=f"Ngày {n}") for n in range(3)]
    mongo_db.posts.update_many({}, {"$unset": {"search_text": "", "search_version": ""}})
    assert found("ngay") == []
    ensure_all_indexes(mongo_db)
    assert sorted(found("ngay")) == sorted(p.title for p in older)
    assert posts.backfill_search_text(mongo_db) == 0


def test_the_backfill_is_bounded_and_carries_on_where_it_stopped(make_post, mongo_db):
    for n in range(5):
        make_post(title=f"Tết {n}")
    mongo_db.posts.update_many({}, {"$set": {"search_version": 0}})
    assert posts.backfill_search_text(mongo_db, limit=3) == 3
    assert posts.backfill_search_text(mongo_db, limit=3) == 2
    assert posts.backfill_search_text(mongo_db, limit=3) == 0
    assert len(found("tet")) == 5


def test_the_backfill_does_not_overwrite_a_post_edited_since_it_was_read(make_post, mongo_db, monkeypatch):
    post = make_post(title="Cũ")
    mongo_db.posts.update_one({"_id": post.id}, {"$unset": {"search_version": ""}})
    real_fields = search.search_fields

    edited = []

    def edit_meanwhile(**fields):
        if not edited:  # once: the edit folds its own text through here too
            edited.append(True)
            posts.update_post(
                post_id=post.id,
                revision=post.revision,
                title="Mới",
                slug=post.slug,
                content="",
                tags=(),
                status=post.status,
                published=post.published,
            )
        return real_fields(**fields)

    monkeypatch.setattr(search, "search_fields", edit_meanwhile)
    assert posts.backfill_search_text(mongo_db) == 0
    assert found("moi") == ["Mới"] and found("cu") == []
