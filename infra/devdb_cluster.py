"""The distributed development database: DocumentDB on Citus, one coordinator and two
workers on loopback, FerretDB v2 in front of the coordinator, all under `var/devdb-cluster/`.

It is the engine behind Azure Cosmos DB for MongoDB (vCore): PostgreSQL with Citus and
DocumentDB's `pg_documentdb_distributed`. Sharded collections are spread over the two
workers; a query that names a discussion is routed to one of them (docs/dev-cluster.md).
Nothing in the app depends on it: `make run` and `make test` use the single-node
database (infra/devdb.py). infra/devdb_cluster_build.py builds what it needs, once.

    python -m infra.devdb_cluster start   # build if need be, start (or reuse); print MONGODB_URI=...
    python -m infra.devdb_cluster stop    # stop what `start` started; the data stays
    python -m infra.devdb_cluster status  # print MONGODB_URI=... if it is running
    python -m infra.devdb_cluster run -- CMD ...   # run CMD with MONGODB_URI set; stop after

Ports are chosen once, when the cluster is made, and kept in `cluster.json` (the
cluster's own record, which `shard_collections` reads to find the coordinator), so a
restarted cluster answers where its clients expect it. As root, PostgreSQL runs as the
`postgres` user, as for the single node. No Django here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from infra.devdb import (
    FALLBACK_HOME, PG_USER, READY_TIMEOUT, Server, _alive, _closed_parent, _free_port, _ping,
    _port_is_free, _terminate, run_with,
)
from infra.devdb_build import FERRETDB_VERSION, PG_BIN, DevDBError, Progress
from infra.devdb_cluster_build import build_cluster

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO / "var" / "devdb-cluster"
ROLE = "ferretdb"
WORKERS = ("worker1", "worker2")
NODES = ("coordinator", *WORKERS)
# The table `initialize_cluster()` expects, which only upstream's test set-up creates.
CHANGES_TABLE = (
    "CREATE TABLE IF NOT EXISTS documentdb_data.changes (collection_id bigint not null, "
    "shard_key_value bigint not null, object_id documentdb_core.bson not null, "
    "PRIMARY KEY(shard_key_value, object_id))"
)

__all__ = ["Cluster", "ClusterPorts", "DevDBError", "find_cluster", "main"]


@dataclass(frozen=True)
class ClusterPorts:
    coordinator: int
    worker1: int
    worker2: int
    mongodb: int
    debug: int

    def of(self, node: str) -> int:
        return int(getattr(self, node))


class Cluster:
    """Three PostgreSQL nodes with Citus and DocumentDB, and a FerretDB, under `root`."""

    def __init__(self, root: Path = DEFAULT_ROOT, binary_dir: Path | None = None):
        self.root = Path(root)
        self.binary = (binary_dir or REPO / "var" / "bin") / f"ferretdb-{FERRETDB_VERSION}"
        self.record = self.root / "cluster.json"
        self.ready_file = self.root / "ready"
        self.secret_file = self.root / "secret"
        self.state_file = self.root / "server.json"
        self.log_file = self.root / "ferretdb.log"
        self.state_dir = self.root / "ferretdb-state"

    # -- where things live --------------------------------------------------

    @property
    def home(self) -> Path:
        """The nodes' folder: `root/nodes`, or where that link points (as in infra/devdb.py)."""
        home = self.root / "nodes"
        return home.resolve() if home.is_symlink() else home

    def data_dir(self, node: str) -> Path:
        return self.home / node / "data"

    def socket_dir(self, node: str) -> Path:
        return self.home / node / "socket"

    def pg_log(self, node: str) -> Path:
        return self.home / node / "postgresql.log"

    def ports(self) -> ClusterPorts:
        return ClusterPorts(**json.loads(self.record.read_text())["ports"])

    # -- finding ------------------------------------------------------------

    def running(self) -> Server | None:
        """The cluster's FerretDB, if it is alive and answers."""
        try:
            server = Server(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if _alive(server.pid) and _ping(server.uri, timeout=2.0):
            return server
        return None

    # -- starting -----------------------------------------------------------

    def start(self, *, progress: Progress | None = None) -> tuple[Server, bool]:
        """Start the cluster (or reuse the running one); it and whether we started it."""
        server = self.running()
        if server:
            return server, False
        progress = progress or Progress()
        build_cluster(self.binary, progress)
        if not self.ready_file.exists():
            self._make(progress)
        ports = self.ports()
        for node in NODES:
            self._start_node(node, ports)
        return self._start_ferretdb(ports), True

    def _make(self, progress: Progress) -> None:
        """Three fresh nodes joined into one Citus cluster with DocumentDB on each, in
        the order found by trial (docs/dev-cluster.md); a half-made one is made again."""
        if self.record.exists():
            progress.say(f"{self.root} holds a cluster whose set-up did not finish: making it again")
            self._stop_nodes()
        self._make_home(progress)
        taken: set[int] = set()
        ports = ClusterPorts(*(_free_port(taken) for _ in range(5)))
        self.root.mkdir(parents=True, exist_ok=True)
        nodes = {node: {"port": ports.of(node), "socket": str(self.socket_dir(node))} for node in NODES}
        self.record.write_text(json.dumps({"ports": asdict(ports), "nodes": nodes}, indent=1))
        for node in NODES:
            progress.say(f"initdb: {node} on port {ports.of(node)}")
            for folder in (self.data_dir(node), self.socket_dir(node)):
                folder.mkdir(parents=True, mode=0o700)
                self._give_to_postgres(folder)
            self._give_to_postgres(self.home / node)
            # Loopback connections are trusted: Citus' nodes connect to each other as
            # the querying role, and nothing listens beyond 127.0.0.1.
            self._as_postgres([PG_BIN / "initdb", "-D", self.data_dir(node), "-U", PG_USER,
                               "--auth-local=trust", "--auth-host=trust", "-E", "UTF8", "--locale=C.UTF-8"])
            with open(self.data_dir(node) / "postgresql.conf", "a") as conf:
                conf.write(self._settings(node, ports.of(node)))
            self._start_node(node, ports)
            self.sql(node, "CREATE EXTENSION IF NOT EXISTS citus;")
        host = "'127.0.0.1'"
        coordinator = ports.coordinator
        secret = secrets.token_hex(16)
        progress.say("coordinator: Citus metadata, documentdb_distributed, initialize_cluster()")
        self.sql("coordinator", f"""
            SELECT citus_set_coordinator_host({host}, {coordinator});
            SELECT citus_set_node_property({host}, {coordinator}, 'shouldhaveshards', true);
            CREATE EXTENSION IF NOT EXISTS documentdb_distributed CASCADE;
            {CHANGES_TABLE};
            SELECT documentdb_api_distributed.initialize_cluster();
            CREATE ROLE {ROLE} WITH LOGIN SUPERUSER PASSWORD '{secret}';
        """)
        for worker in WORKERS:
            progress.say(f"{worker}: documentdb_distributed, then joining the cluster")
            # The worker's extension must not own the index queue table: Citus' metadata
            # sync drops and re-creates it as the shell of the coordinator's table.
            self.sql(worker, "CREATE EXTENSION IF NOT EXISTS documentdb_distributed CASCADE; ALTER EXTENSION "
                             "documentdb DROP TABLE documentdb_api_catalog.documentdb_index_queue;")
            self.sql("coordinator", f"SELECT citus_add_node({host}, {ports.of(worker)});")
        # Shards on the workers only; and DocumentDB 0.106's update/delete by `_id` on a
        # sharded collection needs documentdb_core on the search path (fixed upstream
        # after 0.106, commit 1e143f39).
        self.sql("coordinator", f"""
            SELECT citus_set_node_property({host}, {coordinator}, 'shouldhaveshards', false);
            ALTER ROLE {ROLE} SET search_path = "$user", public, documentdb_core;
        """)
        self.secret_file.write_text(secret)
        self.secret_file.chmod(0o600)
        self.ready_file.write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime()))
        progress.say("cluster ready: a coordinator and two workers")

    def _settings(self, node: str, port: int) -> str:
        socket_dir = self.socket_dir(node)
        return f"""
# Slugline's development cluster, node {node} (infra/devdb_cluster.py; docs/dev-cluster.md)
listen_addresses = '127.0.0.1'
port = {port}
unix_socket_directories = '{socket_dir}'
unix_socket_permissions = 0700
ssl = off
shared_preload_libraries = 'citus,pg_cron,pg_documentdb_core,pg_documentdb,pg_documentdb_distributed'
max_prepared_transactions = 100
citus.node_conninfo = 'sslmode=disable'
citus.allow_unsafe_constraints = true
cron.database_name = 'postgres'
cron.host = '{socket_dir}'
cron.log_run = off
documentdb.localhost_connection_string = 'host={socket_dir} port={port}'
documentdb.enableBackgroundWorker = true
documentdb.enableBackgroundWorkerJobs = true
documentdb.defaultUseCompositeOpClass = true
logging_collector = off
"""

    def _start_node(self, node: str, ports: ClusterPorts) -> None:
        if self._node_running(node):
            return
        port = ports.of(node)
        if not _port_is_free(port):
            raise DevDBError(f"port {port}, which the cluster's {node} uses, is taken by another "
                             f"program; stop it (or remove {self.root} to make a new cluster).")
        try:
            self._as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "-l", self.pg_log(node),
                               "-w", "-t", "60", "start"])
        except DevDBError as exc:
            raise DevDBError(f"{exc}; see {self.pg_log(node)}") from None

    def _node_running(self, node: str) -> bool:
        if not (self.data_dir(node) / "PG_VERSION").exists():
            return False
        status = subprocess.run(self._pg_command([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "status"]),
                                capture_output=True)
        return status.returncode == 0

    def _start_ferretdb(self, ports: ClusterPorts) -> Server:
        if not _port_is_free(ports.mongodb):
            raise DevDBError(f"port {ports.mongodb}, where the cluster answers, is taken by another "
                             f"program; stop it (or remove {self.root} to make a new cluster).")
        secret = self.secret_file.read_text().strip()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(self.binary),
            f"--postgresql-url=postgres://{ROLE}:{secret}@127.0.0.1:{ports.coordinator}/postgres",
            f"--listen-addr=127.0.0.1:{ports.mongodb}",
            f"--debug-addr=127.0.0.1:{ports.debug}",
            f"--state-dir={self.state_dir}",
            "--telemetry=disable", "--no-auth", "--log-level=warn",
        ]
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                    start_new_session=True, cwd=self.root)
        server = Server(pid=proc.pid, port=ports.mongodb, debug_port=ports.debug)
        deadline = time.monotonic() + READY_TIMEOUT
        while not _ping(server.uri, timeout=0.5):
            if proc.poll() is not None:
                raise DevDBError(f"FerretDB exited at start-up (code {proc.returncode}); see {self.log_file}")
            if time.monotonic() > deadline:
                proc.kill()
                raise DevDBError(f"FerretDB did not answer a ping within {READY_TIMEOUT:.0f}s; "
                                 f"see {self.log_file}.")
            time.sleep(0.1)
        self.state_file.write_text(json.dumps(asdict(server)))
        return server

    # -- stopping -----------------------------------------------------------

    def stop(self) -> bool:
        """Stop the cluster's FerretDB and its three nodes; True if FerretDB was running."""
        stopped = False
        try:
            pid = json.loads(self.state_file.read_text())["pid"]
        except (OSError, ValueError, KeyError):
            pid = None
        self.state_file.unlink(missing_ok=True)
        if pid and _alive(pid) and _is_ferretdb(pid, self.binary):
            _terminate(pid)
            stopped = True
        self._stop_nodes()
        return stopped

    def _stop_nodes(self) -> None:
        for node in reversed(NODES):
            if self._node_running(node):
                self._as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "-w", "-m", "fast", "stop"])

    # -- SQL on a node ------------------------------------------------------

    def sql(self, node: str, sql: str, *, fetch: bool = False) -> str:
        """Run `sql` on `node` as the cluster's owner; its output (tuples only) if `fetch`."""
        args = [PG_BIN / "psql", "-h", self.socket_dir(node), "-p", self.ports().of(node), "-U", PG_USER,
                "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-c", sql]
        done = subprocess.run(self._pg_command(args), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"SQL on the cluster's {node} failed: {' / '.join(tail)}")
        return done.stdout if fetch else ""

    # -- the owner of the nodes' files ----------------------------------------

    def _pg_command(self, args: list) -> list[str]:
        args = [str(arg) for arg in args]
        return ["runuser", "-u", PG_USER, "--", *args] if os.geteuid() == 0 else args

    def _as_postgres(self, args: list) -> None:
        done = subprocess.run(self._pg_command(args), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"`{Path(str(args[0])).name}` failed: {' / '.join(tail)}")

    def _make_home(self, progress: Progress) -> None:
        """A fresh, empty `root/nodes` (in /var/tmp, linked from there, when a folder
        above the checkout is closed to the postgres user: as in infra/devdb.py)."""
        link = self.root / "nodes"
        shutil.rmtree(self.home, ignore_errors=True)
        if link.is_symlink():
            link.unlink()
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        closed = _closed_parent(self.root, pwd.getpwnam(PG_USER).pw_uid) if os.geteuid() == 0 else None
        if closed:
            digest = hashlib.sha1(str(self.root.resolve()).encode()).hexdigest()[:12]
            home = FALLBACK_HOME / f"slugline-cluster-{digest}"
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True, mode=0o755)
            link.symlink_to(home)
            progress.say(f"{closed} is closed to the postgres user: the nodes live in {home}")
        else:
            link.mkdir(parents=True)
        self._give_to_postgres(self.home)

    def _give_to_postgres(self, folder: Path) -> None:
        if os.geteuid() == 0:
            user = pwd.getpwnam(PG_USER)
            os.chown(folder, user.pw_uid, user.pw_gid)


def _is_ferretdb(pid: int, binary: Path) -> bool:
    """Whether process `pid` still runs our FerretDB binary (a recycled id is left alone)."""
    try:
        return Path(f"/proc/{pid}/exe").resolve() == binary.resolve()
    except OSError:
        return True  # no /proc: trust the state file, as infra/devdb.py does


def find_cluster(address: tuple[str, int] | None, root: Path = DEFAULT_ROOT) -> Cluster | None:
    """The development cluster whose FerretDB answers at `address` (host, port), from its
    own records under `root`; None if that server is not this checkout's cluster."""
    cluster = Cluster(root)
    if address is None or not cluster.ready_file.exists():
        return None
    try:
        ports = cluster.ports()
    except (OSError, ValueError, TypeError, KeyError):
        return None
    host, port = address
    if int(port) != ports.mongodb or host not in ("127.0.0.1", "localhost"):
        return None
    return cluster


def run(command: list[str], cluster: Cluster | None = None) -> int:
    """Run `command` with MONGODB_URI naming the cluster, started if need be; a cluster
    this call started is stopped when the command ends (Ctrl-C included)."""
    cluster = cluster or Cluster()
    server, we_started = cluster.start()
    return run_with(command, uri=server.uri, stop=cluster.stop if we_started else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.devdb_cluster", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("build", help="build what the cluster needs, if anything is missing")
    sub.add_parser("start", help="start (or reuse) the cluster; print MONGODB_URI=...")
    sub.add_parser("stop", help="stop the cluster (its data stays)")
    sub.add_parser("status", help="print MONGODB_URI=... if it is running; exit 1 if not")
    run_parser = sub.add_parser("run", help="run a command with MONGODB_URI naming the cluster")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    cluster = Cluster()
    try:
        if args.action == "build":
            build_cluster(cluster.binary)
        elif args.action == "start":
            server, started = cluster.start()
            if not started:
                print("The development cluster was already running.", file=sys.stderr)
            print(f"MONGODB_URI={server.uri}")
        elif args.action == "stop":
            print("Stopped the development cluster." if cluster.stop()
                  else "The development cluster's FerretDB was not running (its nodes are stopped).")
        elif args.action == "status":
            server = cluster.running()
            if not server:
                print("The development cluster is not running.")
                return 1
            print(f"MONGODB_URI={server.uri}")
        else:
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not command:
                parser.error("run needs a command after --")
            return run(command, cluster)
    except DevDBError as exc:
        print(f"devdb-cluster: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
