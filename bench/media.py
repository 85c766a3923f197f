"""Media figures: serving a warm rendition from GridFS against WhiteNoise serving a
static file of the same size, in one run on one gunicorn site; and the peak memory of
processing uploads (a 40-megapixel photo, baseline and progressive; a 49-megapixel
PNG of about 200 kB, under the default MEDIA_DECODE_MAX_BYTES and with the bound
lifted), each in a fresh process.

    MONGODB_URI=mongodb://127.0.0.1:59333/ .venv/bin/python -m bench.media [--requests 400]
    .venv/bin/python -m bench.media --memory-only   # no database: the memory figures only

Every answer is checked: status 200, the right Content-Type, and the very bytes the
library stored (or the static file's). The site and its database are removed after.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.harness import PYTHON, REPO, Site, percentile

PROCESS = r"""
import json, sys, time
from media import images, services


def high_water_kb():
    # VmHWM, not getrusage's ru_maxrss: that one survives execve, so a child would
    # report the parent's peak (the parent made the pictures).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])


data = open(sys.argv[1], "rb").read()
limits = services.limits()  # from the environment: MEDIA_UPLOAD_MAX_BYTES, MEDIA_DECODE_MAX_BYTES
before = high_water_kb()
started = time.perf_counter()
try:
    processed = images.process(data, limits=limits)
    outcome = f"{len(processed.renditions)} renditions, {processed.width} px wide"
except images.ImageRefused as refused:
    outcome = f"refused ({refused.code})"
print(json.dumps({"seconds": time.perf_counter() - started, "bytes": len(data), "outcome": outcome,
                  "rss_before_kb": before, "peak_rss_kb": high_water_kb()}))
"""


def photo_like(width: int, height: int, **save) -> bytes:
    """A JPEG with gradients and noise (compresses like a photo, not like a flat colour)."""
    from PIL import Image

    base = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    picture = Image.merge("RGB", (base, noise, base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=80, **save)
    return out.getvalue()


def flat_png(width: int, height: int) -> bytes:
    """A see-through PNG of one colour: a few hundred kB for tens of megapixels."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA", (width, height), (200, 60, 40, 128)).save(out, "PNG")
    return out.getvalue()


def measure(url_host: str, port: int, path: str, expected: bytes, content_type: str, *, requests: int,
            threads: int) -> dict:
    """`requests` GETs of `path` over keep-alive connections from `threads` threads."""
    timings: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker(count: int) -> None:
        connection = http.client.HTTPConnection(url_host, port, timeout=30)
        for _ in range(count):
            started = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            elapsed = time.perf_counter() - started
            with lock:
                timings.append(elapsed)
                if response.status != 200 or body != expected or response.getheader("Content-Type") != content_type:
                    errors.append(f"{response.status} {response.getheader('Content-Type')} {len(body)}")
        connection.close()

    started = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(requests // threads,)) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    wall = time.perf_counter() - started
    if errors:
        raise SystemExit(f"{path}: wrong answers: {errors[:3]}")
    return {"req_s": len(timings) / wall, "p50_ms": percentile(timings, 0.5) * 1000,
            "p95_ms": percentile(timings, 0.95) * 1000}


def serving(args) -> None:
    site = Site(mongodb_uri=os.environ["MONGODB_URI"], workers=2)
    try:
        site.manage("migrate", "--noinput", "-v0")
        site.manage("ensure_indexes")
        upload = Path(site.workdir) / "upload.jpg"
        upload.write_bytes(photo_like(1800, 1200))
        code = (
            "import json, sys\nfrom media import services, library\n"
            f"image = services.upload_image(data=open({str(upload)!r}, 'rb').read(), name='bench.jpg', "
            "alt='Bench', decorative=False, uploaded_by='bench')\n"
            "print(json.dumps({'key': image.key}))\n"
        )
        done = subprocess.run([PYTHON, "manage.py", "shell", "-c", code], cwd=REPO, env=site.env(),
                              capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise SystemExit(done.stderr[-800:])
        key = json.loads(done.stdout.strip().splitlines()[-1])["key"]
        site.manage("collectstatic", "--noinput", "-v0")
        static_root = Path(site.env()["STATIC_ROOT"])
        site.start()
        rendition_path = f"/media/{key}/1024.webp"
        connection = http.client.HTTPConnection("127.0.0.1", site.port, timeout=30)
        connection.request("GET", rendition_path)
        rendition = connection.getresponse().read()
        # A static file of the same size, in STATIC_ROOT before gunicorn starts (WhiteNoise
        # indexes it at start): the site is restarted to pick it up.
        (static_root / "bench").mkdir(exist_ok=True)
        (static_root / "bench" / "same-size.webp").write_bytes(rendition)
        site.stop()
        site.start()
        static_path = "/static/bench/same-size.webp"
        print(f"rendition {rendition_path}: {len(rendition)} bytes; static file {static_path}: same bytes")
        for threads in (1, 4):
            for label, path in (("GridFS rendition", rendition_path), ("WhiteNoise static", static_path)):
                measure("127.0.0.1", site.port, path, rendition, "image/webp", requests=args.requests // 4,
                        threads=threads)  # warm-up
                figures = measure("127.0.0.1", site.port, path, rendition, "image/webp",
                                  requests=args.requests, threads=threads)
                print(f"{label:18} {threads} client(s): {figures['req_s']:7.0f} req/s  "
                      f"p50 {figures['p50_ms']:6.2f} ms  p95 {figures['p95_ms']:6.2f} ms")
    finally:
        site.stop()
        site.drop()
        shutil.rmtree(site.workdir, ignore_errors=True)


# What each memory figure decodes, and the settings it runs under (beside a 100 MB
# upload limit, which the 16.7 MB photos need).
UPLOADS = [
    ("40-megapixel JPEG, baseline (7728x5176)", lambda: photo_like(7728, 5176), {}),
    ("40-megapixel JPEG, progressive", lambda: photo_like(7728, 5176, progressive=True), {}),
    ("49-megapixel PNG, RGBA (7000x7000)", lambda: flat_png(7000, 7000), {}),
    ("the same PNG, bound lifted to 300 MB", lambda: flat_png(7000, 7000), {"MEDIA_DECODE_MAX_BYTES": "300000000"}),
]


def memory() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for label, make, extra in UPLOADS:
            path = Path(scratch) / "upload"
            path.write_bytes(make())
            env = {**os.environ, "DJANGO_SETTINGS_MODULE": "slugline.settings",
                   "MEDIA_UPLOAD_MAX_BYTES": str(100 * 2**20), **extra}
            code = "import django; django.setup()\n" + PROCESS
            done = subprocess.run([PYTHON, "-c", code, str(path)], cwd=REPO, env=env, capture_output=True,
                                  text=True, timeout=600)
            if done.returncode:
                raise SystemExit(done.stderr[-800:])
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            grown = (figures["peak_rss_kb"] - figures["rss_before_kb"]) / 1024
            print(f"{label} ({figures['bytes'] / 1e6:.2f} MB file): {figures['outcome']} in "
                  f"{figures['seconds']:.2f} s; peak RSS {figures['peak_rss_kb'] / 1024:.0f} MB, "
                  f"{grown:.0f} MB over the process before")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--memory-only", action="store_true", help="only the memory figures (no database)")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if not args.memory_only:
        serving(args)
    memory()


if __name__ == "__main__":
    main()
