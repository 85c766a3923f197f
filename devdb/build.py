"""Building the development database once: Debian packages, three PostgreSQL
extensions from source, and the FerretDB binary.

FerretDB v2 is a MongoDB wire-protocol front for PostgreSQL with the DocumentDB
extension (docs/dev-database.md). Debian 12 ships PostgreSQL 15, rum and PostGIS;
DocumentDB, pg_cron 1.6 and pgvector are built here from source archives whose
checksums are verified. Every step says what it does and how long it took, and a
step that is already done is skipped, so a second run builds nothing.

No Django here: this runs before the project is configured.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PG_VERSION = "15"
PG_BIN = Path(f"/usr/lib/postgresql/{PG_VERSION}/bin")
PG_CONFIG = PG_BIN / "pg_config"
FERRETDB_VERSION = "v2.7.0"
FERRETDB_MODULE = "github.com/FerretDB/FerretDB/v2/cmd/ferretdb"
PACKAGES = (
    "postgresql-15", "postgresql-server-dev-15", "postgresql-15-rum",
    "postgresql-15-postgis-3", "libbson-dev", "libintelrdfpmath-dev", "libpcre2-dev",
    "libkrb5-dev", "pkg-config", "build-essential",
)
HEARTBEAT_SECONDS = 20


class DevDBError(Exception):
    """A plain-language reason why the dev database cannot be built or started."""


@dataclass(frozen=True)
class Source:
    """One extension's source archive: where it comes from and how to check it."""

    name: str
    version: str
    archive: str
    repository: str
    tag: str
    commit: str

    def installed(self, sharedir: Path) -> bool:
        """Whether this version's control file is in PostgreSQL's extension folder."""
        control = sharedir / "extension" / f"{self.name}.control"
        try:
            text = control.read_text()
        except OSError:
            return False
        return f"default_version = '{self.version}'" in text


SOURCES = (
    Source("vector", "0.8.0", "pgvector-v0.8.0.tar.gz",
           "https://github.com/pgvector/pgvector", "v0.8.0",
           "2627c5ff775ae6d7aef0c430121ccf857842d2f2"),
    Source("pg_cron", "1.6", "pg_cron-v1.6.3.tar.gz",
           "https://github.com/citusdata/pg_cron", "v1.6.3",
           "9d0576c64edd90fb3d8ac30763296a8106315638"),
    Source("documentdb", "0.106-0", "documentdb-v0.106.0-ferretdb-2.5.0.tar.gz",
           "https://github.com/FerretDB/documentdb", "v0.106.0-ferretdb-2.5.0",
           "beb9d25d9845477c85559d3293cd1f929cdf2b9c"),
)


def vendor_dir() -> Path:
    """Where the source archives are: DEVDB_VENDOR, else ../shared/vendor/devdb."""
    return Path(os.environ.get("DEVDB_VENDOR") or REPO.parent / "shared" / "vendor" / "devdb")


class Progress:
    """Prints each step with the time since the build began, and a line every
    HEARTBEAT_SECONDS while a long command runs, so no step sits silent."""

    def __init__(self, stream=None):
        self.began = time.monotonic()
        self.stream = stream or sys.stderr

    def say(self, text: str) -> None:
        elapsed = int(time.monotonic() - self.began)
        print(f"devdb [{elapsed // 60}:{elapsed % 60:02d}] {text}", file=self.stream, flush=True)

    def run(self, what: str, args: list[str], *, cwd: Path | None = None,
            env: dict | None = None) -> None:
        """Run one command of a step; DevDBError with its last lines if it fails."""
        log = REPO / "var" / "build" / "step.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with open(log, "w") as out:
            proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
            while True:
                try:
                    proc.wait(timeout=HEARTBEAT_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    self.say(f"  still {what} ({int(time.monotonic() - started)} s)")
        if proc.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-5:]
            raise DevDBError(f"{what} failed (`{' '.join(args[:3])} …`): " + " / ".join(tail))


def build_all(binary: Path, progress: Progress | None = None) -> None:
    """Everything the dev database needs, each part only if it is missing."""
    progress = progress or Progress()
    ensure_packages(progress)
    ensure_extensions(progress)
    ensure_ferretdb(binary, progress)


# -- Debian packages ----------------------------------------------------------

def missing_packages() -> list[str]:
    """The Debian packages of PACKAGES that are not installed."""
    if shutil.which("dpkg-query") is None:
        return [] if PG_CONFIG.exists() else list(PACKAGES)
    done = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", *PACKAGES],
                          capture_output=True, text=True)
    installed = {line.split()[0] for line in done.stdout.splitlines() if line.endswith(" installed")}
    return [name for name in PACKAGES if name not in installed]


def ensure_packages(progress: Progress) -> None:
    missing = missing_packages()
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise DevDBError(
            "the dev database needs these Debian packages: " + " ".join(missing)
            + ". Install them (sudo apt-get install --no-install-recommends …) and run "
            "this again, or set MONGODB_URI to a MongoDB server."
        )
    # Debian's postgresql-common would create and start a cluster on port 5432;
    # the project runs its own, so say no before the first install.
    conf = Path("/etc/postgresql-common/createcluster.conf")
    conf.parent.mkdir(parents=True, exist_ok=True)
    text = conf.read_text() if conf.exists() else ""
    if "create_main_cluster = false" not in text:
        conf.write_text(text + "\ncreate_main_cluster = false\n")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    progress.say("apt-get update (package lists)")
    progress.run("updating package lists", ["apt-get", "update", "-qq"], env=env)
    progress.say(f"apt-get install {len(missing)} packages: {' '.join(missing)} (about a minute)")
    progress.run("installing packages",
                 ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], env=env)
    progress.say("packages installed")


# -- extensions ---------------------------------------------------------------

def pg_sharedir() -> Path:
    return Path(subprocess.run([str(PG_CONFIG), "--sharedir"], capture_output=True,
                               text=True, check=True).stdout.strip())


def ensure_extensions(progress: Progress) -> None:
    sharedir = pg_sharedir()
    for source in SOURCES:
        if source.installed(sharedir):
            continue
        tree = unpack(source, progress)
        progress.say(f"building {source.name} {source.version} from {source.tag}")
        make = ["make", f"PG_CONFIG={PG_CONFIG}", "with_llvm=no", f"-j{os.cpu_count() or 2}"]
        if source.name == "documentdb":
            build_documentdb(tree, make, progress)
        else:
            extra = ['OPTFLAGS='] if source.name == "vector" else []
            progress.run(f"building {source.name}", [*make, *extra], cwd=tree)
            progress.run(f"installing {source.name}", [*make, *extra, "install"], cwd=tree)
        progress.say(f"{source.name} {source.version} installed")


# The one libbson constant Debian's 1.23 does not define, for every DocumentDB part.
DOCUMENTDB_COPT = "COPT=-DBSON_SUBTYPE_SENSITIVE=0x08 -Wno-error=switch"


def documentdb_env(tree: Path) -> dict[str, str]:
    """The environment a DocumentDB part (single-node or distributed) is built in: with
    a pkg-config file, written into the unpacked `tree`, for Intel's decimal library,
    which Debian lacks."""
    pkgconfig = tree / "pkgconfig"
    pkgconfig.mkdir(exist_ok=True)
    (pkgconfig / "intelmathlib.pc").write_text(
        "prefix=/usr\nlibdir=/usr/lib/x86_64-linux-gnu\nincludedir=/usr/include\n\n"
        "Name: intelmathlib\nDescription: Intel decimal floating point math library\n"
        "Version: 2.0\nLibs: -L${libdir} -lbidgcc000\nCflags: -I${includedir}\n"
    )
    return dict(os.environ, PKG_CONFIG_PATH=f"{pkgconfig}:{os.environ.get('PKG_CONFIG_PATH', '')}")


def build_documentdb(tree: Path, make: list[str], progress: Progress) -> None:
    """DocumentDB's two extensions (`documentdb_env`, `DOCUMENTDB_COPT`)."""
    env = documentdb_env(tree)
    for part in ("pg_documentdb_core", "pg_documentdb"):
        progress.say(f"  {part} (the longest compile: about a minute)")
        progress.run(f"building {part}", [*make, DOCUMENTDB_COPT], cwd=tree / part, env=env)
        progress.run(f"installing {part}", [*make, DOCUMENTDB_COPT, "install"], cwd=tree / part, env=env)


def unpack(source: Source, progress: Progress) -> Path:
    """The source tree of `source` under var/build/, from the verified archive (or a
    clone of its tag, checked against the commit id, where no archive is at hand)."""
    build = REPO / "var" / "build"
    tree = build / source.archive.removesuffix(".tar.gz")
    shutil.rmtree(tree, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    archive = vendor_dir() / source.archive
    if archive.exists():
        verify(archive)
        progress.say(f"unpacking {archive.name} (checksum verified)")
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        (top,) = tree.iterdir()  # git archive --prefix=<name>/
        return top
    return clone(source, tree, progress)


def verify(archive: Path) -> None:
    sums = archive.parent / "SHA256SUMS"
    expected = {}
    if sums.exists():
        for line in sums.read_text().splitlines():
            digest, _, name = line.partition("  ")
            expected[name.strip()] = digest
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if expected.get(archive.name) != digest:
        raise DevDBError(f"{archive} does not match its SHA256SUMS entry; replace it.")


def clone(source: Source, tree: Path, progress: Progress) -> Path:
    if shutil.which("git") is None:
        raise DevDBError(_missing_source(source))
    progress.say(f"{source.archive} is not in {vendor_dir()}: cloning {source.repository} at {source.tag}")
    try:
        progress.run(f"cloning {source.name}", ["git", "clone", "--quiet", "--depth", "1",
                                                "--branch", source.tag, source.repository, str(tree)])
    except DevDBError as exc:
        raise DevDBError(f"{exc}. {_missing_source(source)}") from None
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    if head != source.commit:
        raise DevDBError(f"{source.repository} {source.tag} is commit {head}, not {source.commit}.")
    return tree


def _missing_source(source: Source) -> str:
    return (f"Provide {source.archive} (git archive --prefix={source.archive.removesuffix('.tar.gz')}/ "
            f"{source.tag} of {source.repository}, commit {source.commit}) with its SHA256SUMS "
            f"line in {vendor_dir()} or in a folder named by DEVDB_VENDOR, or set MONGODB_URI.")


# -- FerretDB -----------------------------------------------------------------

def built_ferretdb() -> Path:
    """Where a FerretDB built here is kept for the next checkout (a new clone's first
    start copies it instead of linking it again: 3 to 6 s with warm Go caches):
    `$XDG_CACHE_HOME/slugline/devdb/` (`~/.cache/...`), one file per version and machine."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "slugline" / "devdb" / f"ferretdb-{FERRETDB_VERSION}-{sys.platform}-{os.uname().machine}"


def _copy_whole(source: Path, target: Path) -> None:
    """`source` copied to `target`, which appears whole or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_name(f".{target.name}.{os.getpid()}")
    shutil.copy2(source, scratch)
    scratch.replace(target)


def ensure_ferretdb(binary: Path, progress: Progress) -> None:
    if binary.exists():
        return
    kept = built_ferretdb()
    if kept.is_file() and os.access(kept, os.X_OK):
        _copy_whole(kept, binary)
        progress.say(f"FerretDB {FERRETDB_VERSION}: {binary}, from {kept}")
        return
    go = shutil.which("go")
    if go is None:
        raise DevDBError(
            "Go is not installed, and the dev database (FerretDB) is built with it: "
            "install Go 1.24 or newer, or set MONGODB_URI to a MongoDB server."
        )
    gobin = binary.parent / ".gobin"
    shutil.rmtree(gobin, ignore_errors=True)
    gobin.mkdir(parents=True)
    progress.say(f"go install FerretDB {FERRETDB_VERSION} (about two minutes with cold caches)")
    progress.run("building FerretDB", [go, "install", f"{FERRETDB_MODULE}@{FERRETDB_VERSION}"],
                 env=dict(os.environ, GOBIN=str(gobin), GOFLAGS="-mod=mod"))
    (gobin / "ferretdb").replace(binary)
    gobin.rmdir()
    try:
        _copy_whole(binary, kept)
    except OSError:
        pass  # no cache to keep it in: the next checkout builds it again
    progress.say(f"FerretDB {FERRETDB_VERSION} built: {binary}")
