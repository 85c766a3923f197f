"""The dev database's lifecycle: build once, start, ready, reuse, restart on its own
ports with its data, stop, and the plain-language failures. These make extra
PostgreSQL clusters and FerretDB servers under temporary folders."""

import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from pymongo import MongoClient

from devdb import build, commands, postgres
from devdb.server import VERSION, DevDB, DevDBError

pytestmark = pytest.mark.lifecycle


def _folder() -> Path:
    """A temporary folder the `postgres` user can enter (pytest's own are 0700)."""
    path = Path(tempfile.mkdtemp(prefix="slugline-devdb-"))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def scratch():
    """One dev database in a temporary folder for the module, sharing the built binary."""
    folder = _folder()
    server = DevDB(root=folder / "devdb")
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def _client(server) -> MongoClient:
    return MongoClient(server.uri, serverSelectionTimeoutMS=3000)


def test_start_answers_a_ping_on_ferretdb_v2(scratch):
    """start() returns only when FerretDB v2 answers, in front of PostgreSQL."""
    server, _ = scratch.start()
    client = _client(server)
    assert client.admin.command("ping")["ok"] == 1.0
    assert client.admin.command("buildInfo")["ferretdb"]["version"] == VERSION
    client.close()
    assert (scratch.data_dir / "PG_VERSION").read_text().strip() == build.PG_VERSION
    # It acknowledges a write before it is on disk, as a standalone MongoDB does (w: 1).
    assert scratch.sql("SHOW synchronous_commit").strip() == "off"
    # FerretDB's Go scheduler runs on one thread, unless the environment says otherwise.
    environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
    assert (b"GOMAXPROCS=" + os.environ.get("GOMAXPROCS", "1").encode()) in environ


def test_a_running_server_is_reused(scratch):
    """A second start() finds the running server instead of starting another."""
    first, _ = scratch.start()
    again, started = scratch.start()
    assert again == first
    assert started is False


def test_a_stopped_database_restarts_with_its_data_on_its_port(scratch):
    """stop() ends FerretDB and PostgreSQL; start() brings both back where clients
    expect them, with what was written before."""
    first, _ = scratch.start()
    client = _client(first)
    client.lifecycle.things.insert_one({"kept": True})
    client.close()
    assert scratch.stop() is True
    with pytest.raises(ProcessLookupError):
        os.kill(first.pid, 0)
    assert not scratch._postgres_running()
    second, started = scratch.start()
    assert started and second.port == first.port and second.pid != first.pid
    client = _client(second)
    assert client.lifecycle.things.find_one({}, {"_id": 0}) == {"kept": True}
    client.close()


def test_a_killed_ferretdb_is_replaced_on_the_same_port(scratch):
    """A state file naming a killed FerretDB does not count as running; the next
    start() serves the same port again."""
    first, _ = scratch.start()
    os.kill(first.pid, signal.SIGKILL)
    assert scratch.running() is None
    second, started = scratch.start()
    assert started and second.pid != first.pid and second.port == first.port


def test_the_cluster_belongs_to_the_postgres_user(scratch):
    """PostgreSQL refuses to run as root: as root, its folders are postgres's."""
    scratch.start()
    if os.geteuid() != 0:
        pytest.skip("only root hands the folders over")
    for folder in (scratch.data_dir, scratch.socket_dir, scratch.pg_log.parent):
        assert folder.stat().st_uid == pwd.getpwnam("postgres").pw_uid


def test_a_checkout_closed_to_postgres_keeps_its_cluster_elsewhere(monkeypatch):
    """Under a folder the postgres user cannot enter (a private home), the cluster is
    made in the fallback folder, `root/pg` links to it, and it starts and serves."""
    if os.geteuid() != 0:
        pytest.skip("only root runs PostgreSQL as another user")
    private, fallback = _folder(), _folder()
    private.chmod(0o700)
    monkeypatch.setattr(postgres, "FALLBACK_HOME", fallback)
    closed = DevDB(root=private / "checkout" / "var" / "devdb")
    try:
        server, _ = closed.start()
        assert (closed.root / "pg").is_symlink()
        assert closed.data_dir.parent.parent == fallback
        assert _client(server).admin.command("ping")["ok"] == 1.0
    finally:
        closed.stop()
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(fallback, ignore_errors=True)


def test_keyset_pages_use_the_composite_index_setting(scratch):
    """The cluster runs with the setting that lets keyset pages use a compound index."""
    scratch.start()
    assert "documentdb.defaultUseCompositeOpClass = true" in (scratch.data_dir / "postgresql.conf").read_text()


def test_debug_metrics_count_queries_to_postgresql(scratch):
    """The debug address on loopback serves FerretDB's metrics: its count of queries
    to PostgreSQL grows when a client writes."""
    from urllib.request import urlopen

    server, _ = scratch.start()

    def queries() -> int:
        body = urlopen(server.metrics_url, timeout=5).read().decode()
        return int(re.search(r"^ferretdb_pool_requests_total (\d+)$", body, re.M).group(1))

    before = queries()
    _client(server).lifecycle.metered.insert_one({"n": 1})
    assert queries() > before


def test_a_port_taken_by_another_program_is_named(scratch):
    """When another program holds the dev database's port, start() says which port
    and what to do instead of starting elsewhere."""
    server, _ = scratch.start()
    scratch.stop()
    with socket.socket() as other:
        other.bind(("127.0.0.1", server.port))
        other.listen()
        with pytest.raises(DevDBError, match=rf"port {server.port}, where the dev database answers, is taken"):
            scratch.start()
    assert scratch.start()[0].port == server.port


def test_a_server_that_dies_at_start_up_gives_one_plain_line():
    """A binary that exits at once is reported with its last log line, not a traceback."""
    folder = _folder()
    fake_bin = folder / "bin"
    fake_bin.mkdir()
    binary = fake_bin / f"ferretdb-{VERSION}"
    binary.write_text("#!/bin/sh\necho 'listen tcp: address already in use' >&2\nexit 1\n")
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    broken = DevDB(root=folder / "devdb", binary_dir=fake_bin)
    try:
        with pytest.raises(DevDBError, match="exited at start-up .*address already in use"):
            broken.start()
    finally:
        broken.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_missing_go_toolchain_says_what_to_do(tmp_path, monkeypatch):
    """Without the binary and without Go, the error names both ways out."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # and none built before
    with pytest.raises(DevDBError, match="install Go 1.24 or newer, or set MONGODB_URI"):
        build.ensure_ferretdb(tmp_path / "nobin" / "ferretdb", build.Progress())


def test_a_ferretdb_built_for_another_checkout_is_copied_not_built_again(tmp_path, monkeypatch):
    """A new clone takes the FerretDB an earlier checkout built (and kept in the user's
    cache) without building it: here there is no Go on the PATH."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    kept = build.built_ferretdb()
    assert kept.is_relative_to(tmp_path / "cache" / "slugline") and build.FERRETDB_VERSION in kept.name
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"#!/bin/sh\necho built before\n")
    kept.chmod(0o755)
    binary = tmp_path / "clone" / "var" / "bin" / "ferretdb"
    build.ensure_ferretdb(binary, build.Progress())
    assert subprocess.run([binary], capture_output=True, text=True).stdout == "built before\n"
    assert [p.name for p in binary.parent.iterdir()] == ["ferretdb"]


def test_without_root_the_missing_packages_are_named(monkeypatch):
    """A user who cannot apt-get is told which packages to install, or MONGODB_URI."""
    monkeypatch.setattr(build, "missing_packages", lambda: ["postgresql-15-rum", "libbson-dev"])
    monkeypatch.setattr(build.os, "geteuid", lambda: 1000)
    with pytest.raises(DevDBError, match="postgresql-15-rum libbson-dev.*or set MONGODB_URI"):
        build.ensure_packages(build.Progress())


def test_an_archive_that_fails_its_checksum_is_refused(tmp_path):
    """A source archive is used only when it matches SHA256SUMS."""
    archive = tmp_path / "pgvector-v0.8.0.tar.gz"
    archive.write_bytes(b"not the archive")
    (tmp_path / "SHA256SUMS").write_text("0" * 64 + "  pgvector-v0.8.0.tar.gz\n")
    with pytest.raises(DevDBError, match="does not match its SHA256SUMS entry"):
        build.verify(archive)


def test_the_vendored_archives_match_their_checksums():
    """The archives the set-up builds from are the ones SHA256SUMS names."""
    folder = build.vendor_dir()
    if not folder.exists():
        pytest.skip(f"no {folder} here")
    for source in build.SOURCES:
        build.verify(folder / source.archive)


def test_a_missing_archive_names_what_to_provide(monkeypatch, tmp_path):
    """Without the archive and without a way to clone it, the error names the tag,
    the commit and where to put it."""
    monkeypatch.setenv("DEVDB_VENDOR", str(tmp_path))
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    source = build.SOURCES[0]
    with pytest.raises(DevDBError, match=rf"Provide {source.archive} .*{source.commit}.*DEVDB_VENDOR"):
        build.unpack(source, build.Progress())


def test_long_steps_say_they_are_still_running(monkeypatch, capsys):
    """A command of a step that runs past the heartbeat prints that it is still
    running, with the time since the build began."""
    monkeypatch.setattr(build, "HEARTBEAT_SECONDS", 0.2)
    progress = build.Progress()
    progress.run("waiting", [sys.executable, "-c", "import time; time.sleep(0.7)"])
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 2
    assert all(re.fullmatch(r"devdb \[0:0\d\]   still waiting \(\d s\)", line) for line in lines)


def test_a_failing_step_reports_its_last_lines():
    """A command that fails ends the build with its own last output lines."""
    with pytest.raises(DevDBError, match="building nothing failed .*no such target"):
        build.Progress().run(
            "building nothing", [sys.executable, "-c", "import sys; print('no such target'); sys.exit(2)"])


def test_run_honours_mongodb_uri_and_starts_nothing(tmp_path, monkeypatch, capfd):
    """With MONGODB_URI set, run() passes it on and starts no server."""
    monkeypatch.setenv("MONGODB_URI", "mongodb://192.0.2.10:27017/")
    idle = DevDB(root=tmp_path / "root")
    code = commands.run([sys.executable, "-c", "import os; print(os.environ['MONGODB_URI'])"], idle)
    assert code == 0
    assert capfd.readouterr().out.strip() == "mongodb://192.0.2.10:27017/"
    assert not idle.root.exists()


def test_run_stops_the_server_it_started(scratch, monkeypatch, capfd):
    """Without MONGODB_URI, run() starts the database for the command and stops it after."""
    monkeypatch.delenv("MONGODB_URI", raising=False)
    scratch.stop()
    code = commands.run([sys.executable, "-c", "import os; print(os.environ['MONGODB_URI'])"], scratch)
    assert code == 0
    uri = capfd.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"mongodb://127\.0\.0\.1:\d+/", uri)
    assert scratch.running() is None


def test_start_command_prints_one_uri_line(scratch, monkeypatch, capsys):
    """`make devdb` prints exactly `MONGODB_URI=mongodb://127.0.0.1:<port>/` on stdout."""
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.setattr(commands, "DevDB", lambda: scratch)
    assert commands.main(["start"]) == 0
    assert re.fullmatch(r"MONGODB_URI=mongodb://127\.0\.0\.1:\d+/\n", capsys.readouterr().out)
    assert commands.main(["stop"]) == 0
    assert scratch.running() is None
