"""What decoding an upload takes of a worker's memory (media/images.py), measured:
the peak resident memory (VmHWM) of a fresh process that decodes one file, against
what it had before. A small file of huge dimensions is refused by its header before
it costs anything, and a picture within MEDIA_DECODE_MAX_BYTES never takes more than
that bound. No database."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
MB = 1_000_000

DECODE = r"""
import json, sys
import django
django.setup()
from media import images, services
from tests.pictures import picture


def high_water():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024


for fmt in ("PNG", "WEBP", "JPEG"):  # every codec and lcms loaded before measuring
    images.process(picture(300, 200, fmt), limits=services.limits())
data = open(sys.argv[1], "rb").read()
before = high_water()
try:
    images.process(data, limits=services.limits())
    outcome = "processed"
except images.ImageRefused as refused:
    outcome = refused.code
print(json.dumps({"outcome": outcome, "growth": high_water() - before}))
"""


def decode_in_a_fresh_process(tmp_path, data: bytes, **environment: str) -> dict:
    path = tmp_path / "upload"
    path.write_bytes(data)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "slugline.settings", **environment}
    done = subprocess.run([sys.executable, "-c", DECODE, str(path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def flat_png(width: int, height: int) -> bytes:
    """A see-through PNG of one colour: a few hundred kB that decode to width x height x 4 bytes."""
    out = io.BytesIO()
    Image.new("RGBA", (width, height), (200, 60, 40, 128)).save(out, "PNG")
    return out.getvalue()


def test_a_small_file_of_huge_dimensions_is_refused_by_its_header_before_it_takes_memory(tmp_path):
    """49 megapixels (under MEDIA_MAX_PIXELS) in about 200 kB: 196 MB of pixels once
    decoded, more than the default bound (200 MB with the work around it), so refused; the process grows by nothing
    like that (before the bound it grew by about 800 MB)."""
    upload = flat_png(7000, 7000)
    assert len(upload) < 400_000
    measured = decode_in_a_fresh_process(tmp_path, upload)
    assert measured["outcome"] == "too_much_memory"
    assert measured["growth"] < 16 * MB, measured


def test_a_picture_within_the_bound_never_takes_more_than_it(tmp_path):
    """16 megapixels with transparency (64 MB decoded) under a bound of 160 MB: it is
    processed, and the process's peak grows by less than the bound (three or four
    full-size copies, over 200 MB, before)."""
    measured = decode_in_a_fresh_process(tmp_path, flat_png(4000, 4000), MEDIA_DECODE_MAX_BYTES=str(160 * MB))
    assert measured["outcome"] == "processed", measured
    assert measured["growth"] <= 160 * MB, measured
