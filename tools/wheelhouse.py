"""Installs requirements.txt into the virtualenv whose Python runs this (make's
virtualenv step), through a wheelhouse kept outside the checkout.

pip spends most of a fresh install resolving the pins against the package index and
its own cache (the install took 17.6 s here, 66 packages), every time a new clone or a
new virtualenv installs the same requirements. The first install builds every
requirement into a folder of wheels (`pip wheel`: what it fetches is listed, as a
plain install lists it) and installs from that folder alone; every later install of
the same requirements.txt, on the same Python, platform and ICU (PyICU is built
against the system's), installs from the folder without asking the index (about 5 s).

The wheelhouse is `$SLUGLINE_WHEELHOUSE`, else `$XDG_CACHE_HOME/slugline/wheelhouse`
(`~/.cache/...`), one folder per key; a folder is used only once it is complete (built
under another name, renamed when every wheel installed from it), and the three most
recently used are kept. Whatever goes wrong with it (a folder that does not install,
a requirement pip cannot build as a wheel), the install falls back to pip's own from
the index, as before. Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

KEEP = 3
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-color"]
INSTALL = [*PIP, "install", "--no-compile"]  # Python compiles what a process imports, once


def home() -> Path:
    named = os.environ.get("SLUGLINE_WHEELHOUSE")
    if named:
        return Path(named)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "slugline" / "wheelhouse"


def icu_version() -> str:
    """The system ICU's version (PyICU's wheel links against it), or "" when unknown."""
    try:
        done = subprocess.run(["pkg-config", "--modversion", "icu-i18n"], capture_output=True, text=True)
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def key(requirements: bytes, *, icu: str) -> str:
    """What a wheelhouse's wheels depend on: the pins, the Python, the platform, ICU."""
    facts = [requirements, sys.implementation.cache_tag.encode(), sysconfig.get_platform().encode(),
             platform.libc_ver()[1].encode(), icu.encode()]
    return hashlib.sha256(b"\0".join(facts)).hexdigest()[:24]


def from_index(requirements: Path) -> int:
    """pip's own install, from the package index (what make did before the wheelhouse)."""
    return subprocess.run([*INSTALL, "-r", str(requirements)]).returncode


def from_folder(folder: Path, requirements: Path) -> bool:
    offline = [*INSTALL, "--no-index", "--find-links", str(folder), "-r", str(requirements)]
    return subprocess.run(offline).returncode == 0


def build(house: Path, requirements: Path) -> bool:
    """Builds the wheelhouse `house` and installs from it; False (nothing kept) if either fails."""
    scratch = house.with_name(f".{house.name}.{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    built = subprocess.run([*PIP, "wheel", "-w", str(scratch), "-r", str(requirements)]).returncode == 0
    if not (built and from_folder(scratch, requirements)):
        shutil.rmtree(scratch, ignore_errors=True)
        return False
    try:
        scratch.rename(house)
    except OSError:  # another make made the same one meanwhile
        shutil.rmtree(scratch, ignore_errors=True)
    return True


def prune(root: Path, *, keep: int = KEEP) -> None:
    """Only the `keep` most recently used wheelhouses stay (and no scratch folder
    older than a day: a make killed while building)."""
    houses = sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in houses[keep:]:
        shutil.rmtree(stale, ignore_errors=True)
    for scratch in root.glob(".*"):
        if scratch.is_dir() and os.path.getmtime(scratch) < time.time() - 86400:
            shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str]) -> int:
    requirements = Path(argv[1] if len(argv) > 1 else "requirements.txt")
    try:
        root = home()
        house = root / key(requirements.read_bytes(), icu=icu_version())
        root.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError) as exc:  # RuntimeError: no home folder to find
        print(f"make: no wheelhouse ({exc}); installing from the index", flush=True)
        return from_index(requirements)
    if house.is_dir():
        print(f"make: installing from the wheelhouse {house}", flush=True)
        os.utime(house)
        if from_folder(house, requirements):
            return 0
        print(f"make: the wheelhouse {house} did not install; building it again", flush=True)
        shutil.rmtree(house, ignore_errors=True)
    if build(house, requirements):
        prune(root)
        return 0
    print("make: the wheelhouse could not be built; installing from the index", flush=True)
    return from_index(requirements)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
