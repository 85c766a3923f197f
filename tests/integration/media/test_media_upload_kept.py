"""A picture sent with an upload form refused for another field is kept
(media/pending.py): the form comes back naming it, and sending the form again with
alt text and no file stores that picture. Only for its uploader, only for a while,
and never a refused file."""

import re
from datetime import datetime, timedelta, timezone

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from dashboard.media_forms import ALT_REQUIRED, NO_FILE
from media import images, library

from tests.pictures import picture


@pytest.fixture
def author_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("ada"))
    return client


def kept_token(page: str) -> str:
    return re.search(r'<input type="hidden" name="kept" value="([^"]+)">', page).group(1)


def test_an_upload_without_alt_text_keeps_the_file_for_the_next_try(author_client, mongo_db):
    data = picture(900, 600)
    first = author_client.post("/dashboard/media/", {"file": SimpleUploadedFile("harbour.jpg", data), "alt": ""})
    page = first.content.decode()
    assert first.status_code == 400 and str(ALT_REQUIRED) in page
    assert "Kept from your last try: “harbour.jpg”" in page and library.count_images() == 0
    again = author_client.post("/dashboard/media/", {"kept": kept_token(page), "alt": "The harbour"})
    assert again.status_code == 303
    (image,) = library.find_images(limit=2)
    assert (image.key, image.name, image.alt) == (images.content_key(data), "harbour.jpg", "The harbour")
    assert mongo_db.media_kept.count_documents({}) == 0


def test_a_kept_file_carries_over_another_refusal_and_a_new_file_replaces_it(author_client, mongo_db):
    first = author_client.post("/dashboard/media/", {"file": SimpleUploadedFile("a.jpg", picture(400, 300)), "alt": ""})
    token = kept_token(first.content.decode())
    second = author_client.post("/dashboard/media/", {"kept": token, "alt": " ", "caption": "x"})
    assert second.status_code == 400 and kept_token(second.content.decode()) == token
    newer = picture(500, 300, color=(1, 2, 3))
    third = author_client.post("/dashboard/media/", {"kept": token, "file": SimpleUploadedFile("b.jpg", newer), "alt": ""})
    assert "“b.jpg”" in third.content.decode() and mongo_db.media_kept.count_documents({}) == 1
    author_client.post("/dashboard/media/", {"kept": kept_token(third.content.decode()), "alt": "B"})
    assert [image.key for image in library.find_images(limit=2)] == [images.content_key(newer)]


def test_a_kept_file_is_its_uploaders_only_and_expires(author_client, make_user, mongo_db):
    first = author_client.post("/dashboard/media/", {"file": SimpleUploadedFile("a.jpg", picture()), "alt": ""})
    token = kept_token(first.content.decode())
    other = Client()
    other.force_login(make_user("bruno", role="editor"))
    stolen = other.post("/dashboard/media/", {"kept": token, "alt": "Mine now"})
    assert stolen.status_code == 400 and str(NO_FILE) in stolen.content.decode()
    mongo_db.media_kept.update_one({"_id": token}, {"$set": {"expires": datetime.now(timezone.utc) - timedelta(seconds=1)}})
    late = author_client.post("/dashboard/media/", {"kept": token, "alt": "Late"})
    assert late.status_code == 400 and str(NO_FILE) in late.content.decode() and library.count_images() == 0


def test_a_refused_file_is_not_kept(author_client, mongo_db):
    response = author_client.post("/dashboard/media/", {"file": SimpleUploadedFile("a.txt", b"not a picture"), "alt": ""})
    assert response.status_code == 400 and 'name="kept"' not in response.content.decode()
    assert mongo_db.media_kept.count_documents({}) == 0
