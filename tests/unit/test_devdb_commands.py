"""The development databases' command line (devdb/commands.py): `python -m devdb
ACTION` drives the single node, `python -m devdb cluster ACTION` the cluster. Nothing
is started: these ask for the status of databases that do not exist."""

import subprocess
import sys
from pathlib import Path

import pytest

from devdb import commands
from devdb.cluster import Cluster
from devdb.server import DevDB

REPO = Path(__file__).resolve().parents[2]


def test_status_of_a_dev_database_that_is_not_running_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(commands, "DevDB", lambda: DevDB(root=tmp_path / "devdb"))
    assert commands.main(["status"]) == 1
    assert capsys.readouterr().out == "The dev database is not running.\n"


def test_cluster_word_sends_the_action_to_the_cluster(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(commands, "Cluster", lambda: Cluster(root=tmp_path / "devdb-cluster"))
    monkeypatch.setattr(commands, "DevDB", lambda: pytest.fail("the single node was asked"))
    assert commands.main(["cluster", "status"]) == 1
    assert capsys.readouterr().out == "The development cluster is not running.\n"


def test_run_without_a_command_is_refused(capsys):
    with pytest.raises(SystemExit) as exit:
        commands.main(["cluster", "run", "--"])
    assert exit.value.code == 2
    assert "run needs a command after --" in capsys.readouterr().err


def test_python_m_devdb_names_both_databases_in_its_help():
    done = subprocess.run([sys.executable, "-m", "devdb", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    assert "start" in done.stdout and "python -m devdb cluster ACTION" in done.stdout


def test_add_worker_to_a_cluster_that_is_not_running_says_to_start_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(commands, "Cluster", lambda: Cluster(root=tmp_path / "devdb-cluster"))
    assert commands.main(["cluster", "add-worker"]) == 1
    assert "not running; start it first (make devdb-cluster)" in capsys.readouterr().err


def test_ferretdb_runs_go_on_one_thread_unless_told_otherwise(monkeypatch):
    from devdb.processes import ferretdb_environment

    monkeypatch.delenv("GOMAXPROCS", raising=False)
    monkeypatch.setenv("SLUGLINE_PROBE", "kept")
    assert ferretdb_environment()["GOMAXPROCS"] == "1"
    assert ferretdb_environment()["SLUGLINE_PROBE"] == "kept"
    monkeypatch.setenv("GOMAXPROCS", "2")
    assert ferretdb_environment()["GOMAXPROCS"] == "2"
