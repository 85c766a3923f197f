"""PostgreSQL's commands run as the owner of a development database's files, the
folder its data lives in, and when it acknowledges a write.

PostgreSQL refuses to run as root: when this runs as root, the data folders belong to
the `postgres` user and its commands run as that user (`runuser`). Shared by the
single node (devdb/server.py) and the cluster's three nodes (devdb/cluster.py).
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import subprocess
from pathlib import Path

from devdb.build import DevDBError, Progress

PG_USER = "postgres"
# Where the data goes when a folder above the checkout is closed to PG_USER.
FALLBACK_HOME = Path("/var/tmp")


def pg_command(args: list) -> list[str]:
    """`args` as strings, run as PG_USER when we are root."""
    args = [str(arg) for arg in args]
    return ["runuser", "-u", PG_USER, "--", *args] if os.geteuid() == 0 else args


def as_postgres(args: list) -> None:
    """Run one PostgreSQL command (`pg_command`); DevDBError with its last lines if it fails."""
    done = subprocess.run(pg_command(args), capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise DevDBError(f"`{Path(str(args[0])).name}` failed: {' / '.join(tail)}")


def give_to_postgres(folder: Path) -> None:
    """Make PG_USER own `folder` (when we are root; otherwise it is ours already)."""
    if os.geteuid() != 0:
        return
    user = pwd.getpwnam(PG_USER)
    os.chown(folder, user.pw_uid, user.pw_gid)


def make_home(link: Path, *, fallback_prefix: str, progress: Progress) -> Path:
    """A fresh, empty folder at `link` for PostgreSQL's data, owned by PG_USER. As
    root, PostgreSQL must enter every folder above its own; where one of the
    checkout's parents is closed to it (a clone under a private home folder), the
    data lives in FALLBACK_HOME/<fallback_prefix>-<digest> instead and `link` links
    there, with no permission changed. Returns the folder."""
    root = link.parent
    shutil.rmtree(link.resolve() if link.is_symlink() else link, ignore_errors=True)
    if link.is_symlink():
        link.unlink()
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # ours (a mkdtemp folder is 0700); PostgreSQL enters it
    closed = closed_parent(root, pwd.getpwnam(PG_USER).pw_uid) if os.geteuid() == 0 else None
    if closed:
        digest = hashlib.sha1(str(root.resolve()).encode()).hexdigest()[:12]
        home = FALLBACK_HOME / f"{fallback_prefix}-{digest}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True, mode=0o755)
        link.symlink_to(home)
        progress.say(f"{closed} is closed to the postgres user: the data lives in {home} "
                     f"({link} links there)")
    else:
        home = link
        home.mkdir(parents=True)
    give_to_postgres(home)
    return home


def closed_parent(folder: Path, uid: int) -> Path | None:
    """The first folder at or above `folder` that user `uid` cannot enter, if any."""
    for parent in (folder, *folder.parents):
        mode = parent.stat()
        if mode.st_uid != uid and not mode.st_mode & 0o001:
            return parent
    return None


def commit_setting(*, durable: bool) -> str:
    """postgresql.conf's line for when a commit is acknowledged. Unless `durable`, before
    its WAL reaches the disk, as a standalone MongoDB acknowledges a write (w: 1) before
    its journal's next flush: a crash of the machine or of PostgreSQL may lose the last
    fraction of a second of writes, never consistency (docs/dev-database.md)."""
    return f"synchronous_commit = {'on' if durable else 'off'}"
