"""Pages when MongoDB is unreachable: the article still reads, comments say they are
unavailable, posting answers 503 with the text kept, and nothing answers 500."""

import pytest

from comments.posting import tokens
from comments.views.posting import CANNOT_POST_NOW
from tests.page_reading import page, post_url

pytestmark = pytest.mark.usefixtures("each_store")

UNAVAILABLE_NOTICE = b"Comments are unavailable right now"


def test_a_post_read_before_still_shows_with_a_notice(client, make_post, make_comment, mongodb_outage, settings):
    """The article comes from its last copy; without a cached page of comments, the
    comments part says they are unavailable."""
    settings.COMMENTS_CACHE_SECONDS = 0
    post = make_post(title="Still readable")
    make_comment(post)
    assert client.get(post_url(post)).status_code == 200
    mongodb_outage()
    response = client.get(post_url(post))
    assert response.status_code == 200
    assert b"Still readable" in response.content
    assert UNAVAILABLE_NOTICE in response.content
    assert b'name="text"' in response.content


def test_a_post_read_before_shows_its_cached_comments_during_an_outage(
    client, make_post, make_comment, mongodb_outage
):
    """The last copies of the post and of its discussion's state (which carries the
    version its cached comments were rendered under): readers still see them while
    MongoDB is unreachable."""
    post = make_post(title="Still readable")
    make_comment(post, text="Kept in the cache")
    assert client.get(post_url(post)).status_code == 200
    mongodb_outage()
    response = client.get(post_url(post))
    assert response.status_code == 200
    assert [c["text"] for c in page(response).comments] == ["Kept in the cache"]
    assert UNAVAILABLE_NOTICE not in response.content and b'name="text"' in response.content


def test_the_home_page_read_before_still_shows(client, make_post, mongodb_outage):
    """The home page's last copy is served during an outage."""
    make_post(title="On the front page")
    assert client.get("/").status_code == 200
    mongodb_outage()
    response = client.get("/")
    assert response.status_code == 200 and b"On the front page" in response.content


def test_a_post_never_read_is_a_503_in_the_site_layout(client, mongodb_down):
    """Without a copy, the reader gets the site's 503 page with Retry-After."""
    response = client.get("/posts/never-read/")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert b'class="site-header"' in response.content
    assert b"not answering right now" in response.content


@pytest.mark.parametrize("url", ["/?page=7", "/posts/p/comments/?view=newest", "/posts/p/comments/abcdefgh/"])
def test_pages_without_a_copy_answer_503_not_500(client, mongodb_down, url):
    """Lists, comment pages and permalinks degrade to the 503 page."""
    assert client.get(url).status_code == 503


def test_posting_while_down_answers_503_and_keeps_the_text(client, make_post, mongodb_outage, mongo_db):
    """The reader's text comes back in the form with a message that says why."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    mongodb_outage()
    response = client.post(shown.form_action, {**shown.inputs, "text": "Do not lose me", "name": "Rosa"})
    assert response.status_code == 503
    body = page(response)
    assert body.textareas["text"].strip() == "Do not lose me"
    assert CANNOT_POST_NOW.split(":")[0] in response.content.decode().replace("&#x27;", "'")


def test_posting_in_place_while_down_answers_503_with_the_form_and_the_text(client, make_post, mongodb_outage):
    """The page's script gets the form alone, its text kept, with the message."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    mongodb_outage()
    response = client.post(shown.form_action, {**shown.inputs, "text": "Do not lose me", "name": "Rosa"},
                           headers={"Slugline-In-Place": "1", "Slugline-Page": post_url(post)})
    assert response.status_code == 503
    html = response.content.decode()
    assert html.lstrip().startswith("<form") and 'class="site-header"' not in html
    assert page(response).textareas["text"].strip() == "Do not lose me"
    assert CANNOT_POST_NOW.split(":")[0] in html.replace("&#x27;", "'")


@pytest.mark.stores("documents")
def test_the_same_form_posts_once_the_database_is_back(client, make_post, mongodb_outage, mongo_db, monkeypatch):
    """The refused form, sent again after the outage, stores its comment once."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    data = {**shown.inputs, "text": "Second try", "name": "Rosa"}
    mongodb_outage()
    assert client.post(shown.form_action, data).status_code == 503
    monkeypatch.undo()
    assert client.post(shown.form_action, data).status_code == 303
    assert client.post(shown.form_action, data).status_code == 303
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 1


@pytest.mark.parametrize("how", ["altered", "other post", "expired"])
def test_a_bad_form_token_is_refused_with_the_text_kept(client, make_post, mongo_db, settings, how):
    """Tampered, misplaced and expired forms write nothing, say why, keep the text and
    come back with a fresh token."""
    post, other = make_post(), make_post()
    token = tokens.issue(discussion_id=other.id if how == "other post" else post.id)
    if how == "altered":
        token = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    if how == "expired":
        settings.COMMENTS_FORM_MAX_AGE = -1
    response = client.post(f"/posts/{post.slug}/comments/", {"text": "Keep me", "name": "Rosa", "token": token})
    assert response.status_code == 400
    shown = page(response)
    assert shown.textareas["text"].strip() == "Keep me"
    message = tokens.EXPIRED if how == "expired" else tokens.TAMPERED
    assert message.split(" (")[0] in response.content.decode().replace("&#x27;", "'")
    assert mongo_db.comments.count_documents({}) == 0
    assert shown.inputs["token"] != token


def test_addresses_of_no_post_leave_nothing_in_the_cache(client, make_post):
    """Asking for made-up posts fills no cache: only what was found is kept for an outage."""
    from django.core.cache import cache

    from infra import stale

    for n in range(20):
        assert client.get(f"/posts/made-up-{n}/").status_code == 404
    assert all(cache.get(f"{stale.PREFIX}post:made-up-{n}", "absent") == "absent" for n in range(20))
    post = make_post()
    client.get(f"/posts/{post.slug}/")
    assert cache.get(f"{stale.PREFIX}post:{post.slug}") is not None


def test_a_path_longer_than_any_slug_is_not_found_without_a_lookup(client, commands):
    """A post address longer than a slug may be is a 404 before MongoDB is asked."""
    commands.reset()
    assert client.get("/posts/" + "x" * 81 + "/").status_code == 404
    assert "find" not in commands.names
