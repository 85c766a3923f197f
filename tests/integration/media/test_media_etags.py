"""Revalidating a rendition (media/views.py): a 304 only for a rendition the image
has; an ETag sent for a width or a format it has none of, or for a deleted image,
answers 404 as the same address without it does."""

from django.test import Client

from media import library, services

from tests.pictures import picture


def test_an_etag_for_a_width_or_format_the_picture_lacks_answers_404():
    image = services.upload_image(data=picture(700, 500), name="wall.jpg", alt="A wall", decorative=False,
                                  uploaded_by="ada")
    client = Client()
    served = client.get(f"/media/{image.key}/640.webp")
    assert client.get(f"/media/{image.key}/640.webp", HTTP_IF_NONE_MATCH=served["ETag"]).status_code == 304
    for width, ext in ((1024, "webp"), (1600, "jpg"), (641, "webp"), (640, "png"), (640, "gif"), (640, "svg")):
        etag = f'"{image.key}-{width}-{ext}"'
        assert client.get(f"/media/{image.key}/{width}.{ext}", HTTP_IF_NONE_MATCH=etag).status_code == 404, etag
        assert client.head(f"/media/{image.key}/{width}.{ext}", HTTP_IF_NONE_MATCH=etag).status_code == 404, etag
    library.delete_image(key=image.key)
    assert client.get(f"/media/{image.key}/640.webp", HTTP_IF_NONE_MATCH=served["ETag"]).status_code == 404
