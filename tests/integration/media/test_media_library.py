"""The media library through the test client: uploads (and every refused input,
which stores nothing), renditions and their caching headers, EXIF removal, search,
editing texts, and who may upload and delete."""

import io
import re

import pytest
from django.test import Client
from PIL import Image

from media import images, library
from media.views import FOREVER
from tests.pictures import phone_photo, picture

def upload(client, data: bytes, *, name="photo.jpg", alt="A red square", **fields):
    return client.post("/dashboard/media/", {"file": _file(data, name), "alt": alt, **fields})


def _file(data: bytes, name: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data)


@pytest.fixture
def author_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("ada"))
    return client


@pytest.fixture
def editor_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


def stored_files(mongo_db) -> int:
    return mongo_db["media.files"].count_documents({}) + mongo_db["media.chunks"].count_documents({})


def only_image() -> library.Image:
    (image,) = library.find_images(limit=2)
    return image


def test_an_upload_is_stored_with_its_renditions_and_opens_its_page(author_client):
    response = upload(author_client, picture(1800, 1200))
    image = only_image()
    assert response.status_code == 303
    assert response["Location"] == f"/dashboard/media/{image.key}/"
    assert (image.width, image.height, image.alt, image.uploaded_by) == (1600, 1067, "A red square", "ada")
    assert [(r.width, r.ext) for r in image.renditions] == [
        (320, "jpg"), (320, "webp"), (640, "jpg"), (640, "webp"), (1024, "jpg"), (1024, "webp"),
        (1600, "jpg"), (1600, "webp"),
    ]
    page = author_client.get(response["Location"]).content.decode()
    assert f"![A red square](/media/{image.key}/)" in page


def test_a_small_picture_is_never_upscaled(author_client):
    upload(author_client, picture(500, 250, "PNG"), name="small.png")
    image = only_image()
    assert [(r.width, r.height, r.ext) for r in image.renditions] == [
        (320, 160, "png"), (320, 160, "webp"), (500, 250, "png"), (500, 250, "webp"),
    ]


def test_renditions_are_served_with_year_long_caching_an_etag_and_304s(author_client):
    upload(author_client, picture(700, 500))
    image = only_image()
    client = Client()
    for ext, content_type, magic in (("webp", "image/webp", b"RIFF"), ("jpg", "image/jpeg", b"\xff\xd8")):
        response = client.get(f"/media/{image.key}/640.{ext}")
        assert response.status_code == 200
        assert response["Content-Type"] == content_type
        assert response["Cache-Control"] == FOREVER == "public, max-age=31536000, immutable"
        assert response.content.startswith(magic)
        assert Image.open(io.BytesIO(response.content)).size == (640, 457)
        again = client.get(f"/media/{image.key}/640.{ext}", HTTP_IF_NONE_MATCH=response["ETag"])
        assert again.status_code == 304 and again.content == b""
        assert again["ETag"] == response["ETag"]
    assert client.get(f"/media/{image.key}/1024.webp").status_code == 404
    assert client.get(f"/media/{'0' * 32}/640.webp").status_code == 404
    assert client.get(f"/media/{image.key}/640.svg").status_code == 404
    largest = client.get(f"/media/{image.key}/")
    assert largest.status_code == 302 and largest["Location"] == f"/media/{image.key}/700.jpg"


def test_exif_and_gps_never_reach_readers_and_the_photo_is_upright(author_client):
    original = phone_photo()
    assert Image.open(io.BytesIO(original)).getexif().get_ifd(0x8825)  # the fixture has GPS
    upload(author_client, original)
    image = only_image()
    assert (image.width, image.height) == (600, 800)  # orientation applied
    for rendition in image.renditions:
        data = Client().get(f"/media/{image.key}/{rendition.width}.{rendition.ext}").content
        served = Image.open(io.BytesIO(data))
        assert not served.getexif() and "exif" not in served.info and "xmp" not in served.info
        assert b"PhoneCam" not in data and b"Exif" not in data
        assert served.size[0] < served.size[1]


def refused(response, message: str) -> None:
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page.replace("&#x27;", "'").replace("&quot;", '"')
    assert 'enctype="multipart/form-data"' in page


def svg() -> bytes:
    return b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(1)</script></svg>'


@pytest.mark.parametrize("data, name, message", [
    (svg(), "drawing.svg", images.NOT_AN_IMAGE),
    (b"%PDF-1.4\n1 0 obj<<>>endobj\n", "doc.pdf", images.NOT_AN_IMAGE),
    (b"<html><body>" + picture(100, 100) + b"</body></html>", "page.jpg", images.NOT_AN_IMAGE),
    (b"BM" + b"\0" * 200, "bitmap.bmp", images.NOT_AN_IMAGE),
    (picture(400, 300)[:-600], "cut.jpg", images.DAMAGED),
    (picture(400, 300, "PNG")[:300], "cut.png", images.DAMAGED),
    (picture(400, 300)[:20] + b"\x00garbage" * 100, "corrupt.jpg", images.NOT_AN_IMAGE),
])
def test_files_that_are_not_whole_accepted_pictures_are_refused_and_nothing_is_stored(
    author_client, mongo_db, data, name, message
):
    refused(upload(author_client, data, name=name), message)
    assert library.count_images() == 0 and stored_files(mongo_db) == 0


def test_a_one_pixel_picture_is_refused_as_too_small(author_client, mongo_db):
    refused(upload(author_client, picture(1, 1, "PNG"), name="pixel.png"),
            images.TOO_SMALL % {"width": 1, "height": 1, "limit": 16})
    assert stored_files(mongo_db) == 0


def test_a_picture_20000_pixels_wide_is_refused_before_it_is_decoded(author_client, mongo_db):
    wide = picture(20_000, 20, "PNG")
    refused(upload(author_client, wide, name="wide.png"),
            images.TOO_WIDE % {"width": 20_000, "height": 20, "limit": 12_000})
    assert stored_files(mongo_db) == 0


def test_a_decompression_bomb_is_refused_by_its_header(author_client, settings, mongo_db):
    settings.MEDIA_MAX_SIDE = 100_000
    bomb = picture(10_000, 10_000, "PNG", color=(0, 0, 0))  # 100 megapixels in 300 kB
    assert len(bomb) < 400_000
    refused(upload(author_client, bomb, name="bomb.png"),
            images.TOO_MANY_PIXELS % {"pixels": "100.0", "limit": "50"})
    assert stored_files(mongo_db) == 0


def test_a_file_over_the_size_limit_is_refused(author_client, settings, mongo_db):
    settings.MEDIA_UPLOAD_MAX_BYTES = 1000
    refused(upload(author_client, picture(400, 300)), images.TOO_LARGE_FILE.split("%")[0])
    assert stored_files(mongo_db) == 0


def test_a_polyglot_is_stored_as_pixels_only(author_client):
    """A JPEG with a ZIP (or a script) appended: the picture is kept, the payload not."""
    payload = b"PK\x03\x04<script>alert(1)</script>" * 10
    upload(author_client, picture(400, 300) + payload)
    image = only_image()
    for rendition in image.renditions:
        data = Client().get(f"/media/{image.key}/{rendition.width}.{rendition.ext}").content
        assert b"<script>" not in data and b"PK\x03\x04" not in data


def test_an_animated_gif_keeps_its_first_frame(author_client):
    frames = [Image.new("RGB", (64, 64), color) for color in ((0, 200, 0), (0, 0, 200))]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    upload(author_client, out.getvalue(), name="anim.gif")
    image = only_image()
    data = Client().get(f"/media/{image.key}/64.png").content
    assert Image.open(io.BytesIO(data)).convert("RGB").getpixel((5, 5)) == (0, 200, 0)


def test_alt_text_is_required_unless_the_picture_is_decorative(author_client, mongo_db):
    from dashboard.media_forms import ALT_REQUIRED

    refused(upload(author_client, picture(), alt="  "), str(ALT_REQUIRED))
    assert stored_files(mongo_db) == 0
    assert upload(author_client, picture(), alt="", decorative="on").status_code == 303
    assert only_image().alt == "" and only_image().decorative


def test_the_same_picture_twice_is_refused_with_the_name_it_has(author_client):
    upload(author_client, picture(), name="first.jpg")
    refused(upload(author_client, picture(), name="again.jpg"), "first.jpg")
    assert library.count_images() == 1


def test_search_matches_name_or_alt_text_literally(author_client):
    upload(author_client, picture(color=(1, 2, 3)), name="harbour.jpg", alt="Boats at dawn")
    upload(author_client, picture(color=(3, 2, 1)), name="cat.png", alt="A cat (asleep)")
    page = lambda q: author_client.get("/dashboard/media/", {"q": q}).content.decode()  # noqa: E731
    assert "harbour.jpg" in page("dawn") and "cat.png" not in page("dawn")
    assert "cat.png" in page("(asleep)") and "harbour.jpg" not in page("(asleep)")
    assert "No pictures match." in page(".*")
    assert "harbour.jpg" in page("HARBOUR")


def test_an_editor_edits_alt_text_and_caption(author_client):
    upload(author_client, picture())
    key = only_image().key
    response = author_client.post(f"/dashboard/media/{key}/", {"alt": "Sunset", "caption": "Taken in May"})
    assert response.status_code == 303
    assert (only_image().alt, only_image().caption) == ("Sunset", "Taken in May")
    assert author_client.post(f"/dashboard/media/{key}/", {"alt": ""}).status_code == 400


def test_readers_and_visitors_cannot_upload(make_user, mongo_db):
    reader = Client()
    reader.force_login(make_user("rosa", role="reader"))
    assert upload(reader, picture()).status_code == 403
    anonymous = upload(Client(), picture())
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert stored_files(mongo_db) == 0


def test_a_picture_in_use_cannot_be_deleted_and_its_posts_are_named(editor_client, make_post, mongo_db):
    upload(editor_client, picture())
    key = only_image().key
    post = make_post(title="Harbour walk", content=f"![Boats](/media/{key}/)")
    page = editor_client.get(f"/dashboard/media/{key}/").content.decode()
    assert "Harbour walk" in page and "Delete this picture" not in page
    assert editor_client.post(f"/dashboard/media/{key}/delete/").status_code == 303
    assert library.get_by_key(key) is not None
    from cms import posts
    posts.update_post(post_id=post.id, revision=post.revision, title=post.title, slug=post.slug, content="No pictures.",
                      tags=(), status=post.status, published=post.published)
    assert editor_client.post(f"/dashboard/media/{key}/delete/").status_code == 303
    assert library.get_by_key(key) is None and stored_files(mongo_db) == 0
    assert Client().get(f"/media/{key}/640.webp").status_code == 404


def test_an_author_cannot_delete_someone_elses_picture(editor_client, author_client):
    upload(editor_client, picture())
    key = only_image().key
    assert author_client.post(f"/dashboard/media/{key}/delete/").status_code == 403
    assert library.get_by_key(key) is not None


def test_the_library_lists_thumbnails_with_sizes(author_client):
    upload(author_client, picture(900, 600), name="wide.jpg")
    page = author_client.get("/dashboard/media/").content.decode()
    key = only_image().key
    assert re.search(rf'<img src="/media/{key}/900.jpg" srcset="[^"]*/320.jpg 320w', page)
    assert 'width="900" height="600"' in page


def test_a_picture_over_our_pixel_limit_but_under_pillows_is_refused(author_client, mongo_db):
    large = picture(8000, 7500, "PNG", color=(0, 0, 0))  # 60 megapixels: Pillow would open it
    refused(upload(author_client, large, name="large.png"),
            images.TOO_MANY_PIXELS % {"pixels": "60.0", "limit": "50"})
    assert stored_files(mongo_db) == 0


def test_the_same_picture_stored_at_once_is_stored_once_and_leaves_no_stray_files(mongo_db):
    """Three editors' uploads of the same file reach the library at the same moment (from
    three workers: one process decodes one upload at a time): the unique key decides;
    the others are told it is in the library, and the renditions they wrote are deleted."""
    from media import services
    from tests.threads import at_once, split

    processed = images.process(picture(1200, 800), limits=services.limits())
    stored, errors = split(at_once([
        lambda: library.add_image(processed=processed, name=f"copy-{n}.jpg", alt="Same", decorative=False,
                                  caption="", uploaded_by="ada")
        for n in range(3)
    ]))
    assert len(stored) == 1 and len(errors) == 2
    assert all(isinstance(error, library.AlreadyStored) for error in errors)
    assert library.count_images() == 1
    assert mongo_db["media.files"].count_documents({}) == len(stored[0].renditions) == 8
    assert mongo_db.media_pending.count_documents({}) == 0


def test_a_rendition_answers_head_and_refuses_other_methods(author_client):
    upload(author_client, picture(400, 300))
    key = only_image().key
    head = Client().head(f"/media/{key}/400.webp")
    assert head.status_code == 200 and head["Content-Type"] == "image/webp"
    assert Client().post(f"/media/{key}/400.webp").status_code == 405


def test_a_warm_rendition_is_served_without_a_query_and_a_deleted_one_not_at_all(editor_client, commands):
    upload(editor_client, picture(400, 300))
    key = only_image().key
    client = Client()
    first = client.get(f"/media/{key}/400.jpg")
    commands.reset()
    again = client.get(f"/media/{key}/400.jpg")
    assert again.content == first.content and commands.count == 0
    assert editor_client.post(f"/dashboard/media/{key}/delete/").status_code == 303
    assert client.get(f"/media/{key}/400.jpg").status_code == 404
