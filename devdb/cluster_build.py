"""Building the distributed development database once: Citus and DocumentDB's
`pg_documentdb_distributed`, on top of what the single-node build makes.

The development cluster (devdb/cluster.py, docs/dev-cluster.md) is PostgreSQL 15
with Citus 12.1.7 and DocumentDB's distributed extension on three nodes. Both are
built from the vendored source archives (checksums verified, like the single-node
build's: devdb/build.py, whose progress printing, unpacking, checks and DocumentDB
build environment this reuses), each only when its control file is missing, so a
second run builds nothing.

No Django here: this runs before the project is configured.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from devdb.build import (
    DOCUMENTDB_COPT, PG_CONFIG, DevDBError, Progress, Source, build_all, documentdb_env, pg_sharedir,
    unpack,
)

# Debian's PostgreSQL is built with zstd and lz4, so Citus needs their headers
# even when told to do without them.
CLUSTER_PACKAGES = ("libzstd-dev", "liblz4-dev")
APT_LOCK_WAIT = 600

CITUS = Source("citus", "12.1-1", "citus-v12.1.7.tar.gz",
               "https://github.com/citusdata/citus", "v12.1.7",
               "f3cb3d99eed7dd3db82104ab2a4a13b1233d0023")
# The distributed extension lives inside the DocumentDB archive the single node uses.
DOCUMENTDB_DISTRIBUTED = Source("documentdb_distributed", "0.106-0",
                                "documentdb-v0.106.0-ferretdb-2.5.0.tar.gz",
                                "https://github.com/FerretDB/documentdb", "v0.106.0-ferretdb-2.5.0",
                                "beb9d25d9845477c85559d3293cd1f929cdf2b9c")


def build_cluster(binary: Path, progress: Progress | None = None) -> None:
    """Everything the cluster needs, each part only if it is missing: the single
    node's parts first (PostgreSQL, DocumentDB, FerretDB), then Citus and the
    distributed extension."""
    progress = progress or Progress()
    build_all(binary, progress)
    ensure_cluster_packages(progress)
    sharedir = pg_sharedir()
    if not CITUS.installed(sharedir):
        build_citus(progress)
    if not DOCUMENTDB_DISTRIBUTED.installed(sharedir):
        build_documentdb_distributed(progress)


def missing_cluster_packages() -> list[str]:
    if shutil.which("dpkg-query") is None:
        return []
    done = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n",
                           *CLUSTER_PACKAGES], capture_output=True, text=True)
    installed = {line.split()[0] for line in done.stdout.splitlines() if line.endswith(" installed")}
    return [name for name in CLUSTER_PACKAGES if name not in installed]


def ensure_cluster_packages(progress: Progress) -> None:
    missing = missing_cluster_packages()
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise DevDBError("building Citus needs these Debian packages: " + " ".join(missing)
                         + ". Install them (sudo apt-get install --no-install-recommends …) "
                         "and run this again.")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    progress.say(f"apt-get install {' '.join(missing)} (the compression headers Citus needs)")
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]
    try:
        _apt(progress, "installing packages", install, env)
    except DevDBError:
        progress.say("apt-get update (package lists), then again")
        _apt(progress, "updating package lists", ["apt-get", "update", "-qq"], env)
        _apt(progress, "installing packages", install, env)


def _apt(progress: Progress, what: str, args: list[str], env: dict) -> None:
    """One apt-get command; while another apt-get holds dpkg's lock, wait for it (up to
    APT_LOCK_WAIT seconds) rather than fail."""
    waited = 0
    while True:
        try:
            progress.run(what, args, env=env)
            return
        except DevDBError as exc:
            if "lock" not in str(exc).lower() or waited >= APT_LOCK_WAIT:
                raise
        progress.say(f"  another apt-get holds the package lock; waiting ({waited} s so far)")
        time.sleep(10)
        waited += 10


def _nice(args: list[str]) -> list[str]:
    """A long compile at low priority, so the machine stays usable meanwhile."""
    return ["nice", "-n", "10", *args] if shutil.which("nice") else args


def build_citus(progress: Progress) -> None:
    tree = unpack(CITUS, progress)
    progress.say(f"building Citus {CITUS.tag} (1.5 minutes on 2 idle cores, about 4 when they are busy)")
    env = dict(os.environ, PG_CONFIG=str(PG_CONFIG))
    progress.run("configuring Citus", _nice(["./configure", "--without-libcurl",
                                              f"PG_CONFIG={PG_CONFIG}"]), cwd=tree, env=env)
    make = ["make", f"-j{os.cpu_count() or 2}", "with_llvm=no"]
    progress.run("building Citus", _nice(make), cwd=tree, env=env)
    progress.run("installing Citus", [*make, "install"], cwd=tree, env=env)
    progress.say(f"Citus {CITUS.version} installed")


def build_documentdb_distributed(progress: Progress) -> None:
    """`internal/pg_documentdb_distributed` of the DocumentDB archive, built like the
    single node's DocumentDB extensions (it uses no Citus headers, only its SQL)."""
    tree = unpack(DOCUMENTDB_DISTRIBUTED, progress)
    env = documentdb_env(tree)
    make = ["make", f"PG_CONFIG={PG_CONFIG}", "with_llvm=no", f"-j{os.cpu_count() or 2}", DOCUMENTDB_COPT]
    part = tree / "internal" / "pg_documentdb_distributed"
    progress.say("building pg_documentdb_distributed (a few seconds)")
    progress.run("building pg_documentdb_distributed", _nice(make), cwd=part, env=env)
    progress.run("installing pg_documentdb_distributed", [*make, "install"], cwd=part, env=env)
    progress.say(f"documentdb_distributed {DOCUMENTDB_DISTRIBUTED.version} installed")
