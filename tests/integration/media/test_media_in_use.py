"""A picture that a post shows cannot be deleted, whichever way the post's Markdown
spells it (media/references.py reads what the post renders), and posts counted by the
older count are recounted by the release step (cms/posts/pictures.py)."""

import pytest
from django.test import Client

from cms import posts
from media import library, services

from tests.pictures import picture
from tests.unit.test_media_references import SHOWN


@pytest.fixture
def editor_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


def add_image() -> library.Image:
    return services.upload_image(data=picture(400, 300), name="boats.jpg", alt="Boats", decorative=False,
                                 uploaded_by="bruno")


@pytest.mark.parametrize("spelling", SHOWN.values(), ids=SHOWN.keys())
def test_a_picture_a_post_shows_in_any_spelling_is_not_deleted(editor_client, make_post, spelling):
    image = add_image()
    make_post(title="Harbour walk", content=spelling.replace("0123456789abcdef" * 2, image.key), status=posts.DRAFT)
    page = editor_client.get(f"/dashboard/media/{image.key}/").content.decode()
    assert "Harbour walk" in page and "Delete this picture" not in page
    assert editor_client.post(f"/dashboard/media/{image.key}/delete/").status_code == 303
    assert library.get_by_key(image.key) is not None


def test_the_release_step_recounts_posts_counted_by_the_older_count(mongo_db, make_post):
    image = add_image()
    post = make_post(content=f"<img src=\"/media/{image.key}/\" alt=\"Boats\">\n\n![Again](/media/{image.key}/ 'x')")
    mongo_db.posts.update_one({"_id": post.id}, {"$set": {"media": []}, "$unset": {"media_version": ""}})
    assert posts.using_media(key=image.key) == []
    posts.ensure_indexes(mongo_db)
    assert [p.slug for p in posts.using_media(key=image.key)] == [post.slug]
    assert mongo_db.posts.find_one({"_id": post.id})["media_version"] == posts.MEDIA_VERSION
    assert posts.backfill_media(mongo_db) == 0
