"""The distributed development database: DocumentDB on Citus, one coordinator and two
workers on loopback, FerretDB v2 in front of the coordinator, all under `var/devdb-cluster/`.

It is the engine behind Azure Cosmos DB for MongoDB (vCore): PostgreSQL with Citus and
DocumentDB's `pg_documentdb_distributed`. Sharded collections are spread over the two
workers; a query that names a discussion is routed to one of them (docs/dev-cluster.md).
Nothing in the app depends on it: `make run` and `make test` use the single-node
database (devdb/server.py). devdb/cluster_build.py builds what it needs, once;
`python -m devdb cluster start|stop|status|build|run` drives it (devdb/commands.py).

Ports are chosen once, when the cluster is made, and kept in `cluster.json` (the
cluster's own record, which `shard_collections` reads through `find_cluster` to find
the coordinator), so a restarted cluster answers where its clients expect it. As root,
PostgreSQL runs as the `postgres` user, as for the single node (devdb/postgres.py).
No Django here.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from devdb.build import FERRETDB_VERSION, PG_BIN, DevDBError, Progress
from devdb.cluster_build import build_cluster
from devdb.postgres import PG_USER, as_postgres, commit_setting, give_to_postgres, make_home, pg_command
from devdb.processes import alive, ferretdb_environment, free_port, ping, port_is_free, runs_binary, terminate
from devdb.server import READY_TIMEOUT, Server

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO / "var" / "devdb-cluster"
# A cluster elsewhere (a fault test's own, under a temporary folder): where the site's
# processes started for it find its records (`find_cluster`).
ROOT_VARIABLE = "DEVDB_CLUSTER_ROOT"
ROLE = "ferretdb"
WORKERS = ("worker1", "worker2")
NODES = ("coordinator", *WORKERS)
# The table `initialize_cluster()` expects, which only upstream's test set-up creates.
CHANGES_TABLE = (
    "CREATE TABLE IF NOT EXISTS documentdb_data.changes (collection_id bigint not null, "
    "shard_key_value bigint not null, object_id documentdb_core.bson not null, "
    "PRIMARY KEY(shard_key_value, object_id))"
)

__all__ = ["Cluster", "ClusterPorts", "DevDBError", "find_cluster"]


@dataclass(frozen=True)
class ClusterPorts:
    coordinator: int
    worker1: int
    worker2: int
    mongodb: int
    debug: int
    # Workers added after the cluster was made (`add_worker`), by name.
    added: dict[str, int] = field(default_factory=dict)

    def of(self, node: str) -> int:
        return int(self.added[node] if node in self.added else getattr(self, node))


class Cluster:
    """Three PostgreSQL nodes with Citus and DocumentDB, and a FerretDB, under `root`.
    Unless `durable`, a node acknowledges a write before it is on disk, as the dev
    database does (devdb/server.py); a setting of each node, written when it is made."""

    def __init__(self, root: Path = DEFAULT_ROOT, binary_dir: Path | None = None, *, durable: bool = False):
        self.root = Path(root)
        self.durable = durable
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
        """The nodes' folder: `root/nodes`, or where that link points (devdb.postgres.make_home)."""
        home = self.root / "nodes"
        return home.resolve() if home.is_symlink() else home

    def data_dir(self, node: str) -> Path:
        return self.home / node / "data"

    def socket_dir(self, node: str) -> Path:
        return self.home / node / "socket"

    def pg_log(self, node: str) -> Path:
        return self.home / node / "postgresql.log"

    def ports(self) -> ClusterPorts:
        record = json.loads(self.record.read_text())
        added = {node: int(entry["port"]) for node, entry in record["nodes"].items() if node not in NODES}
        return ClusterPorts(**record["ports"], added=added)

    def nodes(self) -> list[str]:
        """The coordinator, then every worker (the two it was made with, then any added)."""
        try:
            return list(json.loads(self.record.read_text())["nodes"])
        except (OSError, ValueError, KeyError):
            return list(NODES)

    def workers(self) -> list[str]:
        return [node for node in self.nodes() if node != "coordinator"]

    # -- finding ------------------------------------------------------------

    def running(self) -> Server | None:
        """The cluster's FerretDB, if it is alive and answers."""
        try:
            server = Server(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if alive(server.pid) and ping(server.uri, timeout=2.0):
            return server
        return None

    # -- starting -----------------------------------------------------------

    def start(self, *, progress: Progress | None = None) -> tuple[Server, bool]:
        """Start the cluster (or reuse the running one); it and whether we started it.
        A running cluster's nodes that are down (a worker killed) are started again, on
        their ports with their data: Citus reconnects to them on the next query."""
        progress = progress or Progress()
        server = self.running()
        if server:
            self.restart_nodes(progress)
            return server, False
        build_cluster(self.binary, progress)
        if not self.ready_file.exists():
            self._make(progress)
        ports = self.ports()
        for node in self.nodes():
            self._start_node(node, ports)
        return self._start_ferretdb(ports), True

    def _make(self, progress: Progress) -> None:
        """Three fresh nodes joined into one Citus cluster with DocumentDB on each, in
        the order found by trial (docs/dev-cluster.md); a half-made one is made again."""
        if self.record.exists():
            progress.say(f"{self.root} holds a cluster whose set-up did not finish: making it again")
            self._stop_nodes()
        make_home(self.root / "nodes", fallback_prefix="slugline-cluster", progress=progress)
        taken: set[int] = set()
        ports = ClusterPorts(*(free_port(taken) for _ in range(5)))
        self.root.mkdir(parents=True, exist_ok=True)
        nodes = {node: {"port": ports.of(node), "socket": str(self.socket_dir(node))} for node in NODES}
        fixed = {name: port for name, port in asdict(ports).items() if name != "added"}
        self.record.write_text(json.dumps({"ports": fixed, "nodes": nodes}, indent=1))
        # Each node on its own first (initdb, started, Citus), the three at once.
        in_parallel([lambda node=node: self.init_node(node, ports, progress) for node in NODES])
        host = "'127.0.0.1'"
        coordinator = ports.coordinator
        secret = secrets.token_hex(16)

        def coordinator_set_up() -> None:
            progress.say("coordinator: Citus metadata, documentdb_distributed, initialize_cluster()")
            self.sql("coordinator", f"""
                SELECT citus_set_coordinator_host({host}, {coordinator});
                SELECT citus_set_node_property({host}, {coordinator}, 'shouldhaveshards', true);
                CREATE EXTENSION IF NOT EXISTS documentdb_distributed CASCADE;
                {CHANGES_TABLE};
                SELECT documentdb_api_distributed.initialize_cluster();
                CREATE ROLE {ROLE} WITH LOGIN SUPERUSER PASSWORD '{secret}';
            """)

        # The workers' own extension touches only the worker: made while the coordinator
        # is set up; each worker joins once both are done, one after the other.
        in_parallel([coordinator_set_up, *(lambda w=worker: self.prepare_worker(w, progress) for worker in WORKERS)])
        for worker in WORKERS:
            self.add_node(worker, ports)
        # Shards on the workers only; and DocumentDB 0.106's update/delete by `_id` on a
        # sharded collection needs documentdb_core on the search path (fixed upstream
        # after 0.106, commit 1e143f39).
        self.sql("coordinator", f"""
            SELECT citus_set_node_property({host}, {coordinator}, 'shouldhaveshards', false);
            ALTER ROLE {ROLE} SET search_path = "$user", public, documentdb_core;
            ALTER ROLE documentdb_admin_role LOGIN;
        """)
        # (The last: Citus moves a shard by connecting as its table's owner, and
        # DocumentDB's tables belong to that role, made without LOGIN; devdb/cluster_ops.py.)
        self.secret_file.write_text(secret)
        self.secret_file.chmod(0o600)
        self.ready_file.write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime()))
        progress.say("cluster ready: a coordinator and two workers")

    def init_node(self, node: str, ports: ClusterPorts, progress: Progress) -> None:
        """A fresh PostgreSQL for `node` under the cluster's folder, started, with Citus."""
        progress.say(f"initdb: {node} on port {ports.of(node)}")
        for folder in (self.data_dir(node), self.socket_dir(node)):
            folder.mkdir(parents=True, mode=0o700)
            give_to_postgres(folder)
        give_to_postgres(self.home / node)
        # Loopback connections are trusted: Citus' nodes connect to each other as
        # the querying role, and nothing listens beyond 127.0.0.1.
        # --no-sync: a new node's files need not be on disk before it starts (the server
        # syncs what it writes from then on as any PostgreSQL does).
        as_postgres([PG_BIN / "initdb", "-D", self.data_dir(node), "-U", PG_USER, "--no-sync",
                     "--auth-local=trust", "--auth-host=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        with open(self.data_dir(node) / "postgresql.conf", "a") as conf:
            conf.write(self._settings(node, ports.of(node)))
        self._start_node(node, ports)
        self.sql(node, "CREATE EXTENSION IF NOT EXISTS citus;")

    def join(self, worker: str, ports: ClusterPorts, progress: Progress) -> None:
        """DocumentDB's distributed extension on a new worker, then the worker added to
        the cluster (Citus copies its metadata and reference tables there)."""
        self.prepare_worker(worker, progress)
        self.add_node(worker, ports)

    def prepare_worker(self, worker: str, progress: Progress) -> None:
        """DocumentDB's distributed extension on a worker not yet in the cluster."""
        progress.say(f"{worker}: documentdb_distributed, then joining the cluster")
        # The worker's extension must not own the index queue table: Citus' metadata
        # sync drops and re-creates it as the shell of the coordinator's table.
        self.sql(worker, "CREATE EXTENSION IF NOT EXISTS documentdb_distributed CASCADE; ALTER EXTENSION "
                         "documentdb DROP TABLE documentdb_api_catalog.documentdb_index_queue;")

    def add_node(self, worker: str, ports: ClusterPorts) -> None:
        self.sql("coordinator", f"SELECT citus_add_node('127.0.0.1', {ports.of(worker)});")

    def _settings(self, node: str, port: int) -> str:
        socket_dir = self.socket_dir(node)
        return f"""
# Slugline's development cluster, node {node} (devdb/cluster.py; docs/dev-cluster.md)
listen_addresses = '127.0.0.1'
port = {port}
unix_socket_directories = '{socket_dir}'
unix_socket_permissions = 0700
ssl = off
shared_preload_libraries = 'citus,pg_cron,pg_documentdb_core,pg_documentdb,pg_documentdb_distributed'
max_prepared_transactions = 100
wal_level = logical
citus.node_conninfo = 'sslmode=disable'
citus.allow_unsafe_constraints = true
cron.database_name = 'postgres'
cron.host = '{socket_dir}'
cron.log_run = off
documentdb.localhost_connection_string = 'host={socket_dir} port={port}'
documentdb.enableBackgroundWorker = true
documentdb.enableBackgroundWorkerJobs = true
documentdb.defaultUseCompositeOpClass = true
{commit_setting(durable=self.durable)}
logging_collector = off
"""

    def _start_node(self, node: str, ports: ClusterPorts) -> None:
        if self._node_running(node):
            return
        port = ports.of(node)
        if not port_is_free(port):
            raise DevDBError(f"port {port}, which the cluster's {node} uses, is taken by another "
                             f"program; stop it (or remove {self.root} to make a new cluster).")
        try:
            as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "-l", self.pg_log(node),
                         "-w", "-t", "60", "start"])
        except DevDBError as exc:
            raise DevDBError(f"{exc}; see {self.pg_log(node)}") from None

    def restart_nodes(self, progress: Progress) -> list[str]:
        """Start each of the cluster's nodes that is down; the ones started."""
        if not self.ready_file.exists():
            return []
        ports = self.ports()
        down = [node for node in self.nodes() if not self._node_running(node)]
        for node in down:
            progress.say(f"{node} was down: starting it again on port {ports.of(node)}")
            self._start_node(node, ports)
        if down and "coordinator" not in down:
            # The coordinator's sessions each keep a connection to every worker, and
            # Citus fails a query on one that broke ("failure on connection marked as
            # essential") instead of connecting again. FerretDB's idle sessions are
            # ended, so its pool opens fresh ones; a session in the middle of a query
            # is left alone.
            self.sql("coordinator", "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    f"WHERE usename = '{ROLE}' AND state = 'idle'")
        return down

    def _node_running(self, node: str) -> bool:
        if not (self.data_dir(node) / "PG_VERSION").exists():
            return False
        status = subprocess.run(pg_command([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "status"]),
                                capture_output=True)
        return status.returncode == 0

    def _start_ferretdb(self, ports: ClusterPorts) -> Server:
        if not port_is_free(ports.mongodb):
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
                                    start_new_session=True, cwd=self.root, env=ferretdb_environment())
        server = Server(pid=proc.pid, port=ports.mongodb, debug_port=ports.debug)
        deadline = time.monotonic() + READY_TIMEOUT
        while not ping(server.uri, timeout=0.5):
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
        if pid and alive(pid) and runs_binary(pid, self.binary):
            terminate(pid)
            stopped = True
        self._stop_nodes()
        return stopped

    def _stop_nodes(self) -> None:
        """The workers (at once), then the coordinator."""
        def stop(node: str) -> None:
            if self._node_running(node):
                as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir(node), "-w", "-m", "fast", "stop"])

        workers = [node for node in self.nodes() if node != "coordinator"]
        if workers:
            in_parallel([lambda node=node: stop(node) for node in workers])
        stop("coordinator")

    # -- SQL on a node ------------------------------------------------------

    def sql(self, node: str, sql: str, *, fetch: bool = False, timeout: float | None = None) -> str:
        """Run `sql` on `node` as the cluster's owner; its output (tuples only) if `fetch`.
        DevDBError if it fails, or takes more than `timeout` seconds (when given)."""
        args = [PG_BIN / "psql", "-h", self.socket_dir(node), "-p", self.ports().of(node), "-U", PG_USER,
                "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-c", sql]
        try:
            done = subprocess.run(pg_command(args), capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise DevDBError(f"SQL on the cluster's {node} took more than {timeout} s") from None
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"SQL on the cluster's {node} failed: {' / '.join(tail)}")
        return done.stdout if fetch else ""


def in_parallel(steps: list[Callable[[], object]]) -> None:
    """Run each step on a thread of its own (each waits on its own PostgreSQL
    processes); the first error any raised, once all have ended."""
    with ThreadPoolExecutor(max_workers=len(steps)) as pool:
        for future in [pool.submit(step) for step in steps]:
            future.result()


def find_cluster(address: tuple[str, int] | None, root: Path | None = None) -> Cluster | None:
    """The development cluster whose FerretDB answers at `address` (host, port), from its
    own records under `root` (by default DEVDB_CLUSTER_ROOT, else var/devdb-cluster/);
    None if that server is not this checkout's cluster."""
    cluster = Cluster(root or Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT))
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

