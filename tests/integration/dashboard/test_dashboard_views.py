"""The dashboard's flows through the test client: log in, write, preview, schedule,
publish, edit, restore a version, edit profiles and rename authors; and bad input,
which gets form errors, keeps what the editor typed and writes nothing."""

import re
from datetime import datetime, timedelta, timezone
from html import escape

import pytest
from django.core.management import call_command
from django.test import Client

from cms import authors, posts, versions
from cms.authors import USERNAME_TAKEN
from cms.models import AuthorProfile
from dashboard import author_forms, form_limits, post_forms, services, views

FORMAT = "%Y-%m-%dT%H:%M:%S"


def form(**overrides) -> dict:
    """A post form as the browser sends it (Save pressed)."""
    data = {
        "title": "A new post",
        "slug": "",
        "content": "Some **bold** text.",
        "tags": "mongo, web",
        "status": "draft",
        "published": "",
        "action": "save",
    }
    data.update(overrides)
    return data


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def ada(make_user):
    return make_user("ada", display_name="Ada Lindqvist")


@pytest.fixture
def ada_client(ada) -> Client:
    client = Client()
    client.force_login(ada)
    return client


@pytest.fixture
def editor_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor", display_name="Bruno Okafor"))
    return client


def only_post() -> posts.Post:
    found = posts.dashboard_page(skip=0, limit=2)
    assert len(found) == 1
    return found[0]


# --- Logging in ----------------------------------------------------------------------


def test_login_page_is_in_the_site_layout_and_logs_in(make_user):
    """The one login page (allauth's view, our template); an editor goes to the dashboard."""
    user = make_user("ada")
    user.set_password("a long demo password")
    user.save()
    client = Client()
    page = client.get("/accounts/login/")
    assert (
        page.status_code == 200
        and 'class="site-header"' in text(page)
        and "csrfmiddlewaretoken" in text(page)
    )
    response = client.post("/accounts/login/", {"login": "ada", "password": "a long demo password"})
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    assert client.get("/dashboard/").status_code == 200


def test_a_wrong_password_is_a_form_error(make_user):
    """The login form says so and logs nobody in."""
    make_user("ada")
    response = Client().post("/accounts/login/", {"login": "ada", "password": "wrong"})
    assert response.status_code == 200 and "form-errors" in text(response)


def test_the_header_links_to_the_dashboard_or_the_login_page(ada_client):
    """Staff see Dashboard and Log out; anonymous readers see Log in."""
    mine = text(ada_client.get("/"))
    assert 'href="/dashboard/"' in mine and 'action="/accounts/logout/"' in mine
    theirs = text(Client().get("/"))
    assert 'href="/accounts/login/"' in theirs and 'href="/dashboard/"' not in theirs


def test_logging_out_is_a_post(ada_client):
    """POST /accounts/logout/ ends the session and goes home."""
    response = ada_client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert ada_client.get("/dashboard/").status_code == 302


# --- Writing ---------------------------------------------------------------------------


def test_create_a_draft_with_a_generated_slug(ada_client, ada):
    """Save stores a draft by the logged-in author and opens its editor (303)."""
    response = ada_client.post("/dashboard/posts/new/", form(title="Hello, Slugline!"))
    post = only_post()
    assert response.status_code == 303 and response["Location"] == f"/dashboard/posts/{post.id}/"
    assert (post.slug, post.status, post.tags) == ("hello-slugline", posts.DRAFT, ("mongo", "web"))
    assert post.author == authors.summary_for(ada)
    assert "<strong>bold</strong>" in post.content_html
    assert Client().get("/posts/hello-slugline/").status_code == 404
    assert views.CREATED in text(ada_client.get(response["Location"]))


def test_generated_slugs_are_made_unique(ada_client, make_post):
    """A title whose slug is taken gets -2."""
    make_post(slug="same-title")
    ada_client.post("/dashboard/posts/new/", form(title="Same title"))
    assert (
        posts.get_by_id(posts.dashboard_page(title="Same title", skip=0, limit=2)[0].id).slug
        == "same-title-2"
    )


def test_preview_renders_the_markdown_and_saves_nothing(ada_client, mongo_db):
    """Preview shows the sanitised HTML under the form, which keeps what was typed."""
    typed = "# Heading\n\n*soft* <script>alert(1)</script>"
    response = ada_client.post("/dashboard/posts/new/", form(content=typed, action="preview"))
    html = text(response)
    assert response.status_code == 200
    assert "<em>soft</em>" in html and "<script>alert(1)</script>" not in html
    assert escape(typed) in html  # the textarea keeps the Markdown
    assert mongo_db.posts.count_documents({}) == 0


def test_preview_of_an_existing_post_saves_nothing(ada_client, ada, make_post):
    """Previewing an edit leaves the stored post and its versions alone."""
    post = make_post(author=authors.summary_for(ada), content="before")
    response = ada_client.post(f"/dashboard/posts/{post.id}/", form(content="*after*", action="preview"))
    assert "<em>after</em>" in text(response)
    assert posts.get_by_id(post.id).content == "before" and versions.find_versions(post_id=post.id) == []


def test_schedule_then_publish_scheduled_makes_it_visible_everywhere(ada_client, mongo_db):
    """A future time schedules; once due, publish_scheduled publishes it on every reader page."""
    soon = datetime.now(timezone.utc) + timedelta(hours=2)
    ada_client.post(
        "/dashboard/posts/new/",
        form(title="Coming soon", status="published", published=soon.strftime(FORMAT), tags="launch"),
    )
    post = only_post()
    assert (post.status, post.state) == (posts.SCHEDULED, posts.SCHEDULED)
    reader = Client()
    assert reader.get("/posts/coming-soon/").status_code == 404
    assert "Coming soon" not in text(reader.get("/"))
    call_command("publish_scheduled")
    assert posts.get_by_id(post.id).status == posts.SCHEDULED  # not due yet
    # Time passes.
    mongo_db.posts.update_one(
        {"_id": post.id}, {"$set": {"published": datetime.now(timezone.utc) - timedelta(minutes=1)}}
    )
    call_command("publish_scheduled")
    for url in (
        "/",
        "/posts/coming-soon/",
        "/authors/ada/",
        "/tags/launch/",
        "/feeds/latest/atom/",
        "/feeds/latest/rss/",
        "/feeds/tags/launch/rss/",
        "/sitemap.xml",
    ):
        response = reader.get(url)
        assert response.status_code == 200 and "oming" in text(response), url


def test_publishing_a_draft_shows_it_on_the_home_page(ada_client, ada, make_post):
    """Edit a draft to Publish with no time: published now."""
    post = make_post(author=authors.summary_for(ada), status=posts.DRAFT, published=None, title="Draft one")
    response = ada_client.post(
        f"/dashboard/posts/{post.id}/",
        form(title="Draft one", slug=post.slug, status="published", revision=post.revision),
    )
    assert response.status_code == 303
    saved = posts.get_by_id(post.id)
    assert saved.state == posts.PUBLISHED and saved.published <= datetime.now(timezone.utc)
    assert "Draft one" in text(Client().get("/"))


def test_the_edit_form_shows_the_post_as_stored(ada_client, ada, make_post):
    """Title, slug, content, tags, status and publish time are filled in."""
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    post = make_post(
        author=authors.summary_for(ada),
        title="Shown",
        slug="shown",
        content="Body here",
        tags=["a b", "c"],
        published=when,
    )
    html = text(ada_client.get(f"/dashboard/posts/{post.id}/"))
    for value in (
        'value="Shown"',
        'value="shown"',
        "Body here",
        'value="a b, c"',
        'value="2026-01-02 03:04:05"',
        f'name="revision" value="{post.revision}"',
    ):
        assert value in html, value
    assert re.search(r'value="published"[^>]*checked', html)


# --- Versions ------------------------------------------------------------------------------


def test_an_edit_keeps_the_previous_version_and_it_can_be_restored(ada_client, ada, make_post):
    """Edit: the old text becomes a version with a diff; Restore puts it back and keeps the replaced text."""
    post = make_post(
        author=authors.summary_for(ada),
        title="First title",
        slug="first",
        content="line one\nline two",
        tags=["x"],
    )
    ada_client.post(
        f"/dashboard/posts/{post.id}/",
        form(
            title="Second title",
            slug="first",
            content="line one\nline 2",
            tags="x, y",
            status="published",
            revision=post.revision,
            published=post.published.strftime(FORMAT),
        ),
    )
    edited = posts.get_by_id(post.id)
    assert (edited.title, edited.content, edited.tags) == ("Second title", "line one\nline 2", ("x", "y"))
    [version] = versions.find_versions(post_id=post.id)
    assert (version.title, version.content, version.saved_by) == ("First title", "line one\nline two", "ada")
    listing = text(ada_client.get(f"/dashboard/posts/{post.id}/versions/"))
    assert f"/dashboard/posts/{post.id}/versions/{version.id}/" in listing
    diff = text(ada_client.get(f"/dashboard/posts/{post.id}/versions/{version.id}/"))
    assert (
        '<del class="diff-removed">- line two</del>' in diff
        and '<ins class="diff-added">+ line 2</ins>' in diff
    )
    assert "First title" in diff and "Second title" in diff

    response = ada_client.post(f"/dashboard/posts/{post.id}/versions/{version.id}/restore/")
    assert response.status_code == 303 and response["Location"] == f"/dashboard/posts/{post.id}/"
    restored = posts.get_by_id(post.id)
    assert (restored.title, restored.content, restored.tags) == ("First title", "line one\nline two", ("x",))
    assert restored.state == posts.PUBLISHED
    assert [v.title for v in versions.find_versions(post_id=post.id)] == ["Second title", "First title"]


def test_saving_an_unchanged_form_keeps_no_version(ada_client, ada, make_post):
    """Nothing changed: no version, no new revision."""
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    post = make_post(
        author=authors.summary_for(ada), title="Same", slug="same", content="c", tags=["t"], published=when
    )
    response = ada_client.post(
        f"/dashboard/posts/{post.id}/",
        form(
            title="Same",
            slug="same",
            content="c",
            tags="t",
            status="published",
            published=when.strftime(FORMAT),
            revision=post.revision,
        ),
    )
    assert response.status_code == 303
    assert (
        versions.find_versions(post_id=post.id) == [] and posts.get_by_id(post.id).revision == post.revision
    )


def test_restoring_a_slug_another_post_took_is_refused(ada_client, ada, make_post, mongo_db):
    """The restore says why, and nothing changes."""
    post = make_post(author=authors.summary_for(ada), slug="old-slug")
    version = versions.save_version(post=post, saved_by="ada")
    mongo_db.posts.update_one({"_id": post.id}, {"$set": {"slug": "new-slug"}})
    make_post(slug="old-slug")
    response = ada_client.post(f"/dashboard/posts/{post.id}/versions/{version.id}/restore/", follow=True)
    assert escape(services.RESTORE_SLUG_TAKEN) in text(response)
    assert posts.get_by_id(post.id).slug == "new-slug" and len(versions.find_versions(post_id=post.id)) == 1


@pytest.mark.parametrize(
    "url",
    [
        "/dashboard/posts/{post}/versions/{missing}/",
        "/dashboard/posts/{post}/versions/nope/",
        "/dashboard/posts/{missing}/",
        "/dashboard/posts/not-an-id/",
    ],
)
def test_unknown_posts_and_versions_are_404(editor_client, make_post, url):
    """Missing or malformed ids are the site's 404."""
    from bson import ObjectId

    response = editor_client.get(url.format(post=make_post().id, missing=ObjectId()))
    assert response.status_code == 404 and 'class="site-header"' in text(response)


# --- Bad input -------------------------------------------------------------------------------


def too_long(limit: int, length: int) -> str:
    return form_limits.TOO_LONG % {"limit_value": limit, "show_value": length}


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"title": "  "}, post_forms.EMPTY_TITLE),
        ({"title": "t" * 201}, too_long(200, 201)),
        ({"slug": "not a slug!"}, post_forms.BAD_SLUG),
        ({"slug": "s" * 81}, too_long(80, 81)),
        ({"published": "31/31/2026 25:00"}, post_forms.BAD_PUBLISH_TIME),
        ({"tags": "ok, bad/tag"}, post_forms.BAD_TAG % {"tag": "bad/tag"}),
        ({"tags": ",".join(f"t{n}" for n in range(11))}, post_forms.TOO_MANY_TAGS % {"limit": 10}),
        ({"content": "x" * 100_001}, too_long(100_000, 100_001)),
        ({"status": "live"}, post_forms.BAD_POST_STATUS),
        ({"excerpt": "e" * 301}, too_long(300, 301)),
        ({"published": "2026-05-01T09:30 pm"}, post_forms.BAD_PUBLISH_TIME),
    ],
)
def test_bad_input_is_a_form_error_that_keeps_what_was_typed(ada_client, mongo_db, overrides, message):
    """400, the message next to the field, the other values still filled in, nothing written."""
    data = form(**{"content": "Keep this text", **overrides})
    response = ada_client.post("/dashboard/posts/new/", data)
    html = text(response)
    assert response.status_code == 400
    assert escape(message) in html
    if "content" not in overrides:
        assert "Keep this text" in html
    assert mongo_db.posts.count_documents({}) == 0


def test_a_duplicate_slug_is_a_form_error(ada_client, make_post, mongo_db):
    """A slug the editor chose that another post has: error on the slug, nothing written."""
    make_post(slug="taken")
    response = ada_client.post("/dashboard/posts/new/", form(slug="taken", content="typed"))
    assert (
        response.status_code == 400
        and escape(services.SLUG_TAKEN) in text(response)
        and "typed" in text(response)
    )
    assert mongo_db.posts.count_documents({}) == 1


def test_editing_to_a_duplicate_slug_is_a_form_error(ada_client, ada, make_post):
    """The post keeps its slug and gets no version."""
    make_post(slug="taken")
    post = make_post(author=authors.summary_for(ada), slug="mine")
    response = ada_client.post(f"/dashboard/posts/{post.id}/", form(slug="taken", revision=post.revision))
    assert response.status_code == 400 and escape(services.SLUG_TAKEN) in text(response)
    assert posts.get_by_id(post.id).slug == "mine" and versions.find_versions(post_id=post.id) == []


def test_an_edit_over_someone_elses_save_is_refused(ada_client, ada, make_post):
    """The form's revision is older than the post's: 409, the typed text kept, nothing saved."""
    post = make_post(author=authors.summary_for(ada), title="Theirs")
    response = ada_client.post(
        f"/dashboard/posts/{post.id}/", form(title="Mine", content="my words", revision=post.revision - 1)
    )
    assert response.status_code == 409
    assert escape(services.STALE_EDIT) in text(response) and "my words" in text(response)
    assert posts.get_by_id(post.id).title == "Theirs"


# --- The posts list --------------------------------------------------------------------------


def test_the_list_filters_by_state_and_title_and_shows_comment_counts(editor_client, make_post, make_comment):
    """Editors see every post; ?status= and ?q= narrow it; each row has its comment count."""
    published = make_post(title="Published one")
    make_comment(published)
    make_comment(published)
    make_post(title="Draft one", status=posts.DRAFT, published=None)
    make_post(
        title="Scheduled one",
        status=posts.SCHEDULED,
        published=datetime.now(timezone.utc) + timedelta(days=1),
    )
    everything = text(editor_client.get("/dashboard/"))
    assert all(t in everything for t in ("Published one", "Draft one", "Scheduled one"))
    drafts = text(editor_client.get("/dashboard/", {"status": "draft"}))
    assert "Draft one" in drafts and "Published one" not in drafts
    scheduled = text(editor_client.get("/dashboard/", {"status": "scheduled"}))
    assert "Scheduled one" in scheduled and "Draft one" not in scheduled
    found = text(editor_client.get("/dashboard/", {"q": "PUBLISHED"}))
    assert "Published one" in found and "Draft one" not in found
    assert re.search(r'<td class="comment-count"[^>]*>2</td>', found)


def test_authors_see_only_their_own_posts(ada_client, ada, make_post):
    """An author's list holds their posts, not other authors'."""
    make_post(author=authors.summary_for(ada), title="Mine")
    make_post(title="Someone else's", author=posts.AuthorSummary(id=ada.pk + 100, username="zed", name="Zed"))
    html = text(ada_client.get("/dashboard/"))
    assert "Mine" in html and "Someone else" not in html


def test_the_list_paginates_keeping_the_filters(editor_client, make_post, settings):
    """Pages of DASHBOARD_POSTS_PER_PAGE; the links keep state and q."""
    settings.DASHBOARD_POSTS_PER_PAGE = 2
    for n in range(3):
        make_post(title=f"Paged {n}")
    first = text(editor_client.get("/dashboard/", {"status": "published", "q": "paged"}))
    assert 'href="?status=published&amp;q=paged&amp;page=2"' in first
    second = editor_client.get("/dashboard/", {"status": "published", "q": "paged", "page": "2"})
    assert second.status_code == 200 and text(second).count('class="post-row"') == 1


def test_a_bad_filter_is_a_400_with_the_form_error(editor_client):
    """An unknown state is refused, in the site's layout."""
    response = editor_client.get("/dashboard/", {"status": "deleted"})
    assert response.status_code == 400 and escape(post_forms.BAD_STATUS) in text(response)


# --- Profiles and renames ----------------------------------------------------------------------


def test_an_author_edits_their_profile_and_every_copy_follows(ada_client, ada, make_post, make_comment):
    """New display name, bio and picture: on the author page and every post and comment."""
    from comments.records import CommentAuthor

    post = make_post(author=authors.summary_for(ada), title="Ada writes")
    make_comment(post, author=CommentAuthor(id=ada.pk, name="Ada Lindqvist"))
    response = ada_client.post(
        "/dashboard/profile/",
        {"display_name": "Ada L.", "bio": "Databases.", "avatar_url": "https://example.com/ada.png"},
    )
    assert response.status_code == 303
    page = text(Client().get("/authors/ada/"))
    assert "Ada L." in page and "Databases." in page and "https://example.com/ada.png" in page
    assert "Ada Lindqvist" not in text(Client().get(f"/posts/{post.slug}/"))
    assert "Ada Lindqvist" not in text(Client().get("/"))


@pytest.mark.parametrize(
    "data,message",
    [
        ({"display_name": ""}, author_forms.DISPLAY_NAME_REQUIRED),
        ({"display_name": "x" * 101}, too_long(100, 101)),
        ({"display_name": "Ada", "avatar_url": "javascript:alert(1)"}, author_forms.BAD_AVATAR_URL),
        ({"display_name": "Ada", "bio": "b" * 2001}, too_long(2000, 2001)),
    ],
)
def test_bad_profile_input_is_a_form_error_and_writes_nothing(ada_client, ada, data, message):
    """400 with the message; the profile is unchanged."""
    response = ada_client.post("/dashboard/profile/", data)
    assert response.status_code == 400 and escape(message) in text(response)
    assert AuthorProfile.objects.get(user=ada).display_name == "Ada Lindqvist"


def test_an_editor_renames_an_author_and_the_old_address_redirects(
    editor_client, ada, make_post, make_comment
):
    """Username and display name change on every copy; /authors/<old>/ is a 301 to the new page."""
    from comments.records import CommentAuthor

    post = make_post(author=authors.summary_for(ada), title="By Ada")
    make_comment(post, author=CommentAuthor(id=ada.pk, name="Ada Lindqvist"), text="Ada's own comment")
    assert "ada" in text(editor_client.get("/dashboard/authors/"))
    response = editor_client.post(
        "/dashboard/authors/ada/",
        {"username": "ada_l", "display_name": "Ada Lind", "bio": "", "avatar_url": ""},
    )
    assert response.status_code == 303 and response["Location"] == "/dashboard/authors/ada_l/"
    reader = Client()
    old = reader.get("/authors/ada/")
    assert old.status_code == 301 and old["Location"] == "/authors/ada_l/"
    page = text(reader.get("/authors/ada_l/"))
    assert "By Ada" in page and "Ada Lind" in page and "Ada Lindqvist" not in page
    assert "Ada Lindqvist" not in text(reader.get(f"/posts/{post.slug}/"))
    assert "Ada Lindqvist" not in text(reader.get("/"))
    assert 'href="/authors/ada_l/"' in text(reader.get("/"))


def test_renaming_to_a_taken_username_is_a_form_error(editor_client, ada):
    """The username field says so; nothing is renamed."""
    response = editor_client.post("/dashboard/authors/ada/", {"username": "bruno", "display_name": "Ada"})
    assert response.status_code == 400 and escape(USERNAME_TAKEN) in text(response)
    ada.refresh_from_db()
    assert ada.username == "ada"


def test_an_unknown_author_in_the_dashboard_is_404(editor_client):
    """No such username: the site's 404."""
    assert editor_client.get("/dashboard/authors/nobody/").status_code == 404


# --- Preview placement, excerpt, publish time ------------------------------------------------------


def form_values(html: str) -> dict:
    """What the post form sends back as it is shown (inputs, textareas, the checked status)."""
    values = dict(re.findall(r'<input type="(?:text|hidden)" name="(\w+)" value="([^"]*)"', html))
    for name, value in re.findall(r'<textarea name="(\w+)"[^>]*>\n?(.*?)</textarea>', html, re.DOTALL):
        values[name] = value
    values["status"] = re.search(r'<input type="radio" name="status" value="(\w+)"[^>]*checked', html).group(1)
    values.pop("csrfmiddlewaretoken", None)
    return {name: value.replace("&amp;", "&").replace("&quot;", '"') for name, value in values.items()}


def test_the_preview_comes_before_the_form_which_keeps_everything_typed(ada_client):
    """The rendered preview is above the form in the page (beside it on wide screens),
    so pressing Preview shows it without scrolling; the form keeps every value."""
    typed = form(title="Seen first", content="*emphasis*", excerpt="A short summary.", tags="a, b",
                 published="2026-05-01 09:30", action="preview")
    html = text(ada_client.post("/dashboard/posts/new/", typed))
    assert html.index('class="preview"') < html.index('class="dashboard-form post-form"')
    assert "{#" not in html and "{%" not in html
    assert 'class="wrap wide' not in html and 'class="wrap wrap-wide"' in html
    shown = form_values(html)
    for name in ("title", "content", "excerpt", "tags", "published"):
        assert shown[name] == typed[name], name


def test_the_excerpt_is_saved_on_create_and_edit_and_kept_in_versions(ada_client, ada):
    """Optional; stored on create and on edit; an edit keeps the old one as a version,
    whose page shows it changed, and restoring puts it back."""
    ada_client.post("/dashboard/posts/new/", form(title="With excerpt", excerpt="  First summary. "))
    post = only_post()
    assert post.excerpt == "First summary."
    edit_page = text(ada_client.get(f"/dashboard/posts/{post.id}/"))
    assert form_values(edit_page)["excerpt"] == "First summary." and escape(post_forms.EXCERPT_HELP) in edit_page
    sent = {**form_values(edit_page), "excerpt": "Second summary.", "action": "save"}
    assert ada_client.post(f"/dashboard/posts/{post.id}/", sent).status_code == 303
    assert posts.get_by_id(post.id).excerpt == "Second summary."
    [version] = versions.find_versions(post_id=post.id)
    assert version.excerpt == "First summary."
    diff = text(ada_client.get(f"/dashboard/posts/{post.id}/versions/{version.id}/"))
    assert re.search(r'<th scope="row">Excerpt</th><td class="diff-removed"[^>]*>First summary\.</td>', diff)
    ada_client.post(f"/dashboard/posts/{post.id}/versions/{version.id}/restore/")
    assert posts.get_by_id(post.id).excerpt == "First summary."
    ada_client.post("/dashboard/posts/new/", form(title="Without excerpt"))
    assert posts.dashboard_page(title="Without excerpt", skip=0, limit=1)[0].excerpt == ""


def test_the_publish_time_is_shown_and_read_in_the_format_and_zone_its_help_states(ada_client, settings):
    """Typed as 2026-12-24 18:30 in the site's zone, stored in UTC, shown back the same way;
    the help text and placeholder state that format and name the zone."""
    settings.TIME_ZONE = "Europe/Paris"
    ada_client.post("/dashboard/posts/new/", form(title="Xmas", status="published", published="2099-12-24 18:30"))
    post = only_post()
    assert post.state == posts.SCHEDULED
    assert post.published == datetime(2099, 12, 24, 17, 30, tzinfo=timezone.utc)
    html = text(ada_client.get(f"/dashboard/posts/{post.id}/"))
    assert form_values(html)["published"] == "2099-12-24 18:30"
    assert 'placeholder="2026-05-01 09:30"' in html
    assert escape(post_forms.PUBLISH_TIME_HELP.format(zone="Europe/Paris")) in html
    assert "Publish time (Europe/Paris)" in text(ada_client.get("/dashboard/"))


def test_saving_an_untouched_form_of_a_post_published_just_now_keeps_no_version(ada_client, ada, make_post):
    """A publish time stored to the millisecond is shown to the second; sent back
    unchanged it is the stored time, not a change."""
    shortly_before = datetime.now(timezone.utc).replace(microsecond=987000) - timedelta(minutes=5)
    post = make_post(author=authors.summary_for(ada), published=shortly_before)
    html = text(ada_client.get(f"/dashboard/posts/{post.id}/"))
    response = ada_client.post(f"/dashboard/posts/{post.id}/", {**form_values(html), "action": "save"})
    assert response.status_code == 303
    assert versions.find_versions(post_id=post.id) == []
    assert posts.get_by_id(post.id).published == post.published
    assert views.UNCHANGED in text(ada_client.get(response["Location"]))
