"""The dev database's lifecycle: build once, start, ready, reuse, stop, and the
plain-language failures. These start extra FerretDB servers under tmp paths."""

import os
import re
import signal
import stat
import sys

import pytest
from pymongo import MongoClient

from cms import devdb
from cms.devdb import DevDB, DevDBError

pytestmark = pytest.mark.lifecycle


@pytest.fixture
def scratch(tmp_path):
    """A dev database rooted in a temporary folder, sharing the built binary."""
    server = DevDB(root=tmp_path / "ferretdb")
    server.root.mkdir()
    yield server
    server.stop()


def test_start_answers_a_ping_and_stop_ends_the_process(scratch):
    """start() returns only when the server answers; stop() ends it."""
    server, started = scratch.start()
    assert started
    client = MongoClient(server.uri, serverSelectionTimeoutMS=2000)
    assert client.admin.command("ping")["ok"] == 1.0
    client.close()
    assert scratch.stop() is True
    assert scratch.running() is None
    with pytest.raises(ProcessLookupError):
        os.kill(server.pid, 0)


def test_a_running_server_is_reused(scratch):
    """A second start() finds the running server instead of starting another."""
    first, _ = scratch.start()
    again, started = scratch.start()
    assert again == first
    assert started is False


def test_a_dead_server_is_replaced(scratch):
    """A state file naming a killed server does not count as running."""
    first, _ = scratch.start()
    os.kill(first.pid, signal.SIGKILL)
    second, started = scratch.start()
    assert started and second.pid != first.pid


def test_data_lives_under_the_root(scratch):
    """FerretDB's SQLite files are written under root/data."""
    server, _ = scratch.start()
    client = MongoClient(server.uri)
    client.lifecycle.things.insert_one({"n": 1})
    client.close()
    assert any(scratch.data_dir.iterdir())


def test_debug_metrics_count_commands(scratch):
    """The debug address on loopback serves FerretDB's command counters."""
    from urllib.request import urlopen

    server, _ = scratch.start()
    MongoClient(server.uri).admin.command("ping")
    body = urlopen(server.metrics_url, timeout=5).read().decode()
    assert re.search(r'ferretdb_client_requests_total\{command="ping"', body)


def test_a_server_that_dies_at_start_up_gives_one_plain_line(tmp_path):
    """A binary that exits at once is reported with its last log line, not a traceback."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    binary = fake_bin / f"ferretdb-{devdb.VERSION}"
    binary.write_text("#!/bin/sh\necho 'listen tcp: address already in use' >&2\nexit 1\n")
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    broken = DevDB(root=tmp_path / "root", binary_dir=fake_bin)
    broken.root.mkdir()
    with pytest.raises(DevDBError, match="exited at start-up .*address already in use"):
        broken.start()


def test_a_missing_go_toolchain_says_what_to_do(tmp_path, monkeypatch):
    """Without the binary and without Go, the error names both ways out."""
    monkeypatch.setenv("PATH", str(tmp_path))
    unbuilt = DevDB(root=tmp_path / "root", binary_dir=tmp_path / "nobin")
    with pytest.raises(DevDBError, match="install Go 1.24 or newer, or set MONGODB_URI"):
        unbuilt.build()


def test_run_honours_mongodb_uri_and_starts_nothing(tmp_path, monkeypatch, capfd):
    """With MONGODB_URI set, run() passes it on and starts no server."""
    monkeypatch.setenv("MONGODB_URI", "mongodb://192.0.2.10:27017/")
    idle = DevDB(root=tmp_path / "root")
    code = devdb.run([sys.executable, "-c", "import os; print(os.environ['MONGODB_URI'])"], idle)
    assert code == 0
    assert capfd.readouterr().out.strip() == "mongodb://192.0.2.10:27017/"
    assert not idle.state_file.exists()


def test_run_stops_the_server_it_started(tmp_path, monkeypatch, capfd):
    """Without MONGODB_URI, run() starts a server for the command and stops it after."""
    monkeypatch.delenv("MONGODB_URI", raising=False)
    fresh = DevDB(root=tmp_path / "root")
    fresh.root.mkdir()
    code = devdb.run([sys.executable, "-c", "import os; print(os.environ['MONGODB_URI'])"], fresh)
    assert code == 0
    uri = capfd.readouterr().out.strip()
    assert re.fullmatch(r"mongodb://127\.0\.0\.1:\d+/", uri)
    assert fresh.running() is None


def test_start_command_prints_one_uri_line(tmp_path, monkeypatch, capsys):
    """`make devdb` prints exactly `MONGODB_URI=mongodb://127.0.0.1:<port>/`."""
    monkeypatch.delenv("MONGODB_URI", raising=False)
    target = DevDB(root=tmp_path / "root")
    target.root.mkdir()
    monkeypatch.setattr(devdb, "DevDB", lambda: target)
    try:
        assert devdb.main(["start"]) == 0
        assert re.fullmatch(r"MONGODB_URI=mongodb://127\.0\.0\.1:\d+/\n", capsys.readouterr().out)
        assert devdb.main(["stop"]) == 0
        assert target.running() is None
    finally:
        target.stop()
