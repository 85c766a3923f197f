"""The development cluster's lifecycle: a second cluster under a temporary folder starts,
is reused, restarts on its own ports with its data, and stop ends only what it
started. Runs under `make test-cluster` (it needs Citus built; skipped on any other
server, so `make test` builds nothing for it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from pymongo import MongoClient

from devdb import cluster_build
from devdb.build import DevDBError, Progress
from devdb.cluster import Cluster, find_cluster
from infra import mongo

pytestmark = pytest.mark.lifecycle


@pytest.fixture(scope="module")
def scratch():
    if find_cluster(mongo.get_client().address) is None:
        pytest.skip("needs the development cluster's build (make test-cluster)")
    folder = Path(tempfile.mkdtemp(prefix="slugline-cluster-"))
    folder.chmod(0o755)
    cluster = Cluster(root=folder / "devdb-cluster")
    yield cluster
    cluster.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_a_new_cluster_has_a_coordinator_and_two_workers(scratch):
    server, started = scratch.start()
    assert started
    ports = scratch.ports()
    nodes = scratch.sql("coordinator", "SELECT nodeport, shouldhaveshards FROM pg_dist_node ORDER BY nodeport",
                        fetch=True).split()
    assert sorted(nodes) == sorted([f"{ports.coordinator}|f", f"{ports.worker1}|t", f"{ports.worker2}|t"])
    # Each node acknowledges a write before it is on disk, as the dev database does.
    assert {scratch.sql(node, "SHOW synchronous_commit", fetch=True).strip() for node in scratch.nodes()} == {"off"}
    with MongoClient(server.uri, serverSelectionTimeoutMS=5000) as client:
        assert client.admin.command("ping")["ok"] == 1
    assert find_cluster(("127.0.0.1", server.port), root=scratch.root) is not None
    assert find_cluster(("127.0.0.1", server.port + 1), root=scratch.root) is None


def test_a_running_cluster_is_reused(scratch):
    first, _ = scratch.start()
    again, started = scratch.start()
    assert not started and again == first


def test_a_stopped_cluster_restarts_with_its_data_on_its_ports(scratch):
    server, _ = scratch.start()
    record = json.loads(scratch.record.read_text())
    with MongoClient(server.uri) as client:
        client.keep.notes.insert_one({"_id": 1, "text": "kept"})
    assert scratch.stop()
    assert scratch.running() is None
    restarted, started = scratch.start()
    assert started and restarted.port == server.port
    assert json.loads(scratch.record.read_text()) == record
    with MongoClient(restarted.uri) as client:
        assert client.keep.notes.find_one({"_id": 1}) == {"_id": 1, "text": "kept"}


def test_stop_leaves_a_process_it_did_not_start_alone(scratch):
    """A state file naming another program's process (a recycled id) kills nothing."""
    scratch.start()
    other = subprocess.Popen(["sleep", "60"])
    try:
        state = json.loads(scratch.state_file.read_text())
        real = state["pid"]
        scratch.state_file.write_text(json.dumps({**state, "pid": other.pid}))
        assert not scratch.stop()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()
    subprocess.run(["kill", str(real)], check=False)  # the FerretDB this test hid from stop


def test_apt_get_waits_while_another_holds_the_package_lock(monkeypatch, capsys):
    """Another engineer's apt-get holding dpkg's lock is waited for, then the install runs."""
    calls = []

    def run(self, what, args, **options):
        calls.append(args)
        if len(calls) == 1:
            raise DevDBError("installing packages failed: E: Could not get lock /var/lib/dpkg/lock-frontend")

    monkeypatch.setattr(Progress, "run", run)
    monkeypatch.setattr(cluster_build.time, "sleep", lambda seconds: None)
    cluster_build._apt(Progress(), "installing packages", ["apt-get", "install", "liblz4-dev"], {})
    assert len(calls) == 2
    assert "another apt-get holds the package lock" in capsys.readouterr().err


def test_apt_get_failing_otherwise_fails_at_once(monkeypatch):
    def run(self, what, args, **options):
        raise DevDBError("installing packages failed: E: Unable to locate package liblz4-dev")

    monkeypatch.setattr(Progress, "run", run)
    with pytest.raises(DevDBError, match="Unable to locate"):
        cluster_build._apt(Progress(), "installing packages", ["apt-get", "install", "liblz4-dev"], {})
