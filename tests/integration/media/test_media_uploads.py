"""Uploads under stress, against the development database: one decode per process at
a time (a second upload meanwhile is told 503 with Retry-After, in the form), a body
that arrives slower than the request's database budget, and a worker killed in the
middle of storing one (nothing of it is ever served, and what it left is cleaned)."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, FakePayload, encode_multipart

from media import images, library, services
from tests.integration.media.test_media_library import (  # noqa: F401 - fixtures
    author_client, editor_client, refused, stored_files, upload,
)
from tests.pictures import noisy, picture

ROOT = Path(__file__).resolve().parents[3]
WIDTHS = (320, 640, 1024, 1600)


def test_a_picture_that_would_take_too_much_memory_is_refused_in_the_form(author_client, settings, mongo_db):
    """Its header says what decoding it would take; past MEDIA_DECODE_MAX_BYTES the form
    says so, and nothing was decoded or stored."""
    settings.MEDIA_DECODE_MAX_BYTES = 50_000_000
    response = upload(author_client, picture(5000, 4000, "PNG", color=(0, 0, 0)), name="huge.png")
    refused(response, images.TOO_MUCH_MEMORY.split(":")[0] % {"width": 5000, "height": 4000})
    assert "more than the 50 MB a picture may take" in response.content.decode()
    assert stored_files(mongo_db) == 0


def test_a_second_upload_while_one_is_decoded_is_refused_with_503_and_retry_after(author_client, mongo_db):
    """A thread of this process decodes a large picture; an upload that arrives
    meanwhile is refused at once, in the form with its texts, and stores nothing;
    once the first is done, the same upload goes through."""
    first: list = []
    decoding = threading.Thread(target=lambda: first.append(services.upload_image(
        data=noisy(3000, 2000), name="big.png", alt="Big", decorative=False, uploaded_by="ada")))
    decoding.start()
    deadline = time.monotonic() + 30
    while not services.DECODING.locked():
        assert decoding.is_alive() and time.monotonic() < deadline, "the first upload never decoded"
        time.sleep(0.002)
    response = upload(author_client, picture(400, 300), alt="Waiting kept")
    decoding.join(timeout=120)

    assert response.status_code == 503
    assert response["Retry-After"] == str(services.RETRY_AFTER_SECONDS)
    page = response.content.decode()
    assert services.BUSY in page and 'enctype="multipart/form-data"' in page and 'class="site-header"' in page
    assert 'value="Waiting kept"' in page
    assert [image.name for image in first] == ["big.png"] and library.count_images() == 1
    assert upload(author_client, picture(400, 300)).status_code == 303
    assert library.count_images() == 2


class SlowBody(FakePayload):
    """A request body that arrives in small pieces over `seconds`, as from a slow link."""

    def __init__(self, data: bytes, *, seconds: float):
        super().__init__(data)
        self.pause = seconds / (len(data) / 4096)

    def read(self, size=-1, /):
        time.sleep(self.pause)
        return super().read(4096 if size is None or size < 0 else min(size, 4096))


def test_an_upload_slower_than_the_database_budget_is_stored(author_client, settings, mongo_db):
    """The body takes twice the request's MongoDB budget to arrive: the budget counts
    the database's work once it has, so the picture is stored (it answered 503)."""
    settings.MONGODB_REQUEST_BUDGET_MS = 300
    body = encode_multipart(BOUNDARY, {"file": SimpleUploadedFile("slow.png", noisy(300, 200)), "alt": "Slow"})
    started = time.monotonic()
    response = author_client.generic("POST", "/dashboard/media/", body, MULTIPART_CONTENT,
                                     **{"wsgi.input": SlowBody(body, seconds=0.6)})
    assert time.monotonic() - started >= 0.6
    assert response.status_code == 303, response.content.decode()[:500]
    assert [image.name for image in library.find_images(limit=2)] == ["slow.png"]


KILLED_UPLOAD = r"""
import os, signal, sys
import django
django.setup()
from pymongo import monitoring


class KillOnThirdFile(monitoring.CommandListener):
    # SIGKILL this process as it is about to write its third rendition's files
    # document: two renditions whole, the third's chunks written, no image document.
    files = 0

    def started(self, event):
        if event.command_name == "insert" and event.command.get("insert") == "media.files":
            self.files += 1
            if self.files == 3:
                os.kill(os.getpid(), signal.SIGKILL)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


monitoring.register(KillOnThirdFile())
from media import services
services.upload_image(data=open(sys.argv[1], "rb").read(), name="cut.png", alt="Cut", decorative=False,
                      uploaded_by="ada")
print("not killed")
"""


def upload_killed_midway(tmp_path, data: bytes) -> None:
    path = tmp_path / "upload.png"
    path.write_bytes(data)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "slugline.settings", "MONGODB_URI": django_settings.MONGODB_URI,
           "MONGODB_NAME": django_settings.MONGODB_NAME, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    done = subprocess.run([sys.executable, "-c", KILLED_UPLOAD, str(path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr[-3000:]


# The killed upload: a photo-like picture (its third file, the 640-pixel PNG, takes
# two GridFS chunks) with three widths (320, 640 and its own), whose renditions encode
# in about a second; at 1800 x 1200 (all four standard widths) they took five.
KILLED_SIZE = (700, 470)


def served(key: str) -> list[str]:
    """The addresses of the killed upload's renditions that are served."""
    client = Client()
    widths = {*WIDTHS, *images.rendition_widths(KILLED_SIZE[0])}
    addresses = [f"/media/{key}/{width}.{ext}" for width in sorted(widths) for ext in ("webp", "png")]
    return [address for address in addresses if client.get(address).status_code != 404]


def test_an_upload_killed_midway_is_never_served_and_what_it_left_is_cleaned(
        tmp_path, editor_client, settings, mongo_db):
    data = noisy(*KILLED_SIZE)
    key = images.content_key(data)
    upload_killed_midway(tmp_path, data)
    assert mongo_db["media.files"].count_documents({}) == 2  # two renditions were written whole
    assert mongo_db["media.chunks"].count_documents({}) > 3  # and the third's chunks (more than one)
    assert library.get_by_key(key) is None and served(key) == []

    # Uploaded again, then deleted: nothing of either upload is served.
    assert upload(editor_client, data, name="again.png").status_code == 303
    assert len(served(key)) == 2 * len(images.rendition_widths(KILLED_SIZE[0])) == 6
    assert editor_client.post(f"/dashboard/media/{key}/delete/").status_code == 303
    assert served(key) == []

    # What the killed upload left stays while it may be an upload under way...
    call_command("clean_media")
    assert mongo_db["media.files"].count_documents({}) == 2 and mongo_db.media_pending.count_documents({}) == 1
    # ...and the next upload, once it is older than MEDIA_PENDING_SECONDS, deletes it all.
    settings.MEDIA_PENDING_SECONDS = 0
    assert upload(editor_client, picture(400, 300), name="next.jpg").status_code == 303
    assert mongo_db["media.files"].count_documents({}) == 4  # next.jpg's own renditions
    assert mongo_db["media.chunks"].count_documents({}) == 4
    assert mongo_db.media_pending.count_documents({}) == 0


def test_clean_media_deletes_what_a_killed_upload_left(tmp_path, mongo_db, capsys):
    upload_killed_midway(tmp_path, noisy(*KILLED_SIZE))
    assert stored_files(mongo_db) > 0
    call_command("clean_media", "--older-than", "0")
    assert stored_files(mongo_db) == 0 and mongo_db.media_pending.count_documents({}) == 0
    assert "Cleaned up after 1 interrupted upload(s) or deletion(s)." in capsys.readouterr().out
