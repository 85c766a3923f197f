"""A member's picture (/accounts/profile/): sent through the media pipeline, drawn beside
their comments and on their public profile in place of their initials, asked for once
a page; removed, replaced, refused (nothing stored), erased with the account, named
in their data download."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from PIL import Image

from accounts.models import Profile
from infra import uploads
from comments.records import CommentAuthor
from media import images, library
from media.views import FOREVER
from slugline.middleware import receive_body
from tests.pictures import picture

pytestmark = pytest.mark.stores("documents")
PASSWORD = "a long enough passphrase 7"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def send(client: Client, data: bytes, name: str = "me.jpg"):
    return client.post("/accounts/profile/", {"action": "picture", "picture": SimpleUploadedFile(name, data)})


def stored(mongo_db) -> int:
    """Everything a picture leaves in MongoDB."""
    return sum(mongo_db[name].count_documents({}) for name in ("media_images", "media.files", "media.chunks",
                                                               "media_pending"))


def picture_key(user) -> str:
    return Profile.objects.get(user=user).avatar_key


def drawn_pictures(html: str) -> list[str]:
    """The `src` of every member's picture the page draws."""
    return re.findall(r'<picture class="avatar avatar-picture"[^>]*>.*?<img src="([^"]+)"', html)


def initials(html: str) -> list[str]:
    return re.findall(r'<span class="avatar avatar-\d" aria-hidden="true">([^<]*)</span>', html)


@pytest.fixture
def rosa(make_verified_reader):
    user = make_verified_reader("rosa@example.org", name="Rosa Park")
    Profile.objects.filter(user=user).update(public_profile=True)
    return user


@pytest.fixture
def commented(rosa, make_post, make_comment):
    """A post with a comment of Rosa's."""
    post = make_post()
    make_comment(post, text="rosa says", author=CommentAuthor(id=rosa.pk, name="Rosa Park", email="rosa@example.org"))
    return post


def test_a_picture_sent_is_drawn_beside_the_comments_and_on_the_profile_then_removed(rosa, commented, mongo_db):
    client = signed_in(rosa)
    page = client.get("/accounts/profile/")
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.content.decode()
    response = send(client, picture(300, 200))
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    key = picture_key(rosa)
    image = library.get_by_key(key)
    assert image is not None and sorted((r.width, r.height, r.ext) for r in image.renditions) == [
        (48, 48, "jpg"), (48, 48, "webp"), (96, 96, "jpg"), (96, 96, "webp")]
    assert library.find_images(limit=5) == []  # never in the editors' library
    src = f"/media/{key}/48.jpg"
    reader = Client()
    post_page = reader.get(f"/posts/{commented.slug}/").content.decode()
    assert drawn_pictures(post_page) == [src] and initials(post_page) == []
    assert f"/media/{key}/96.webp 2x" in post_page
    permalink = re.search(r'class="comment-permalink" href="([^"#]+)', post_page).group(1)
    assert drawn_pictures(reader.get(permalink).content.decode()) == [src]
    assert drawn_pictures(reader.get(f"/members/{rosa.pk}/").content.decode()) == [src]
    served = reader.get(src)
    assert served.status_code == 200 and served["Content-Type"] == "image/jpeg"
    assert served["Cache-Control"] == FOREVER
    assert Image.open(io.BytesIO(served.content)).size == (48, 48)

    response = client.post("/accounts/profile/", {"action": "remove_picture"})
    assert response.status_code == 302 and picture_key(rosa) == ""
    assert stored(mongo_db) == 0 and reader.get(src).status_code == 404
    post_page = reader.get(f"/posts/{commented.slug}/").content.decode()  # its cached copy is not read again
    assert drawn_pictures(post_page) == [] and initials(post_page) == ["RP"]
    assert initials(reader.get(f"/members/{rosa.pk}/").content.decode()) == ["RP"]


def test_the_editors_library_neither_lists_nor_opens_a_members_picture(rosa, make_user):
    send(signed_in(rosa), picture(100, 100))
    editor = signed_in(make_user("bruno", role="editor"))
    key = picture_key(rosa)
    assert key not in editor.get("/dashboard/media/").content.decode()
    assert editor.get(f"/dashboard/media/{key}/").status_code == 404
    assert editor.post(f"/dashboard/media/{key}/delete/").status_code == 404
    assert library.get_by_key(key) is not None


def test_a_new_picture_replaces_the_last_one(rosa, mongo_db):
    client = signed_in(rosa)
    send(client, picture(120, 120, color=(10, 200, 10)))
    first = picture_key(rosa)
    send(client, picture(120, 120, color=(10, 10, 200), fmt="PNG"), name="me.png")
    second = picture_key(rosa)
    assert second != first and library.get_by_key(first) is None
    assert Profile.objects.get(user=rosa).avatar_format == "png"
    assert mongo_db.media_images.count_documents({}) == 1 and mongo_db["media.files"].count_documents({}) == 4


def _bomb() -> bytes:
    """A small PNG of a hundred million pixels."""
    out = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize(("data", "name", "message"), [
    (b"plain words, not a picture", "me.jpg", images.NOT_AN_IMAGE),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>', "me.svg", images.NOT_AN_IMAGE),
    (picture(200, 200, fmt="BMP"), "me.bmp", images.NOT_AN_IMAGE),
    (_bomb(), "me.png", "This picture has 100.0 megapixels; pictures can have at most 50 megapixels."),
    (picture(60, 200), "me.jpg", "This picture is 60 × 200 pixels; both sides must be at least 96 pixels."),
    (picture(200, 200)[:300], "me.jpg", images.DAMAGED),
], ids=["words", "svg", "bmp", "bomb", "too-small", "truncated"])
def test_a_refused_file_is_a_form_error_in_the_layout_and_nothing_is_stored(rosa, mongo_db, data, name, message):
    response = send(signed_in(rosa), data, name)
    html = response.content.decode()
    assert response.status_code == 400 and "<main" in html and 'class="field-error"' in html
    assert message.replace("“", "&ldquo;") in html or message in html
    assert picture_key(rosa) == "" and stored(mongo_db) == 0


def test_a_file_over_the_size_limit_stops_as_it_arrives(rosa, mongo_db, settings):
    settings.AVATAR_UPLOAD_MAX_BYTES = 200_000
    response = send(signed_in(rosa), picture(400, 400, fmt="PNG") + b"\0" * 1_200_000, "me.png")
    assert response.status_code == 400
    assert "This file is 1.2 MB; pictures can be at most 0.2 MB." in response.content.decode()
    assert stored(mongo_db) == 0


@pytest.mark.parametrize(("size", "dropped"), [(300_000, True), (100_000, False)])
def test_a_file_past_the_limit_is_dropped_before_the_view_runs(settings, size, dropped):
    settings.AVATAR_UPLOAD_MAX_BYTES = 200_000
    request = RequestFactory().post("/accounts/profile/", {
        "action": "picture", "picture": SimpleUploadedFile("me.png", b"\0" * size)})
    receive_body(request)
    assert uploads.too_large(request) is dropped and ("picture" not in request.FILES) is dropped
    assert request.POST["action"] == "picture"


def test_the_form_is_still_checked_against_cross_site_requests(rosa, mongo_db):
    client = Client(enforce_csrf_checks=True)
    client.force_login(rosa)
    assert send(client, picture(100, 100)).status_code == 403
    assert client.post("/accounts/profile/", {"public_profile": "on"}).status_code == 403
    assert picture_key(rosa) == "" and stored(mongo_db) == 0


def test_no_file_is_a_form_error(rosa):
    response = signed_in(rosa).post("/accounts/profile/", {"action": "picture"})
    assert response.status_code == 400 and "Choose a picture to upload." in response.content.decode()


def test_a_page_of_comments_asks_for_its_members_pictures_once(make_verified_reader, make_post, make_comment):
    post = make_post()
    members = [make_verified_reader(f"m{n}@example.org", name=f"Member {n}") for n in range(4)]
    for n, member in enumerate(members):
        if n % 2 == 0:
            send(signed_in(member), picture(100, 100, color=(n * 40, 20, 20)))
        make_comment(post, author=CommentAuthor(id=member.pk, name=f"Member {n}", email=f"m{n}@example.org"))
        make_comment(post, author=CommentAuthor(id=member.pk, name=f"Member {n}", email=f"m{n}@example.org"))
    make_comment(post)  # a stranger's
    with CaptureQueriesContext(connection) as queries:
        html = Client().get(f"/posts/{post.slug}/").content.decode()
    assert len([q for q in queries.captured_queries if "avatar_key" in q["sql"]]) == 1
    assert len(drawn_pictures(html)) == 4 and initials(html) == ["M1", "M1", "M3", "M3"]


def test_closing_the_account_erases_the_picture(rosa, commented, mongo_db):
    client = signed_in(rosa)
    send(client, picture(100, 100))
    assert stored(mongo_db) > 0
    response = client.post("/accounts/delete/", {"action": "erase", "password": PASSWORD})
    assert response.status_code == 302
    assert stored(mongo_db) == 0 and not Profile.objects.filter(user=rosa).exists()


def test_the_data_download_names_the_picture(rosa):
    client = signed_in(rosa)
    assert json.loads(b"".join(client.get("/accounts/export/").streaming_content))["account"]["avatar"] is None
    send(client, picture(100, 100))
    key = picture_key(rosa)
    account = json.loads(b"".join(client.get("/accounts/export/").streaming_content))["account"]
    assert account["avatar"]["url"] == f"/media/{key}/48.jpg"
    assert account["avatar"]["srcset"] == f"/media/{key}/48.jpg 1x, /media/{key}/96.jpg 2x"
