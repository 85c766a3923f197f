"""The development database: FerretDB v2 on PostgreSQL 15 with DocumentDB, under `var/devdb/`.

`DevDB` is the one class that starts, finds and stops it (devdb/build.py builds what
it needs, once); `make run`, `make devdb`, the test suite and `.ci/run` all go
through it, by `python -m devdb` (devdb/commands.py). It does not import Django, so
it works before the project is configured.

The cluster keeps its ports: they are chosen once, when the cluster is made, and
recorded in `ports.json`, so a restarted database answers where its clients expect it;
`server.json` names the running FerretDB, which is how another process (or a checkout
started by an older version of this code) recognises it. PostgreSQL refuses to run as
root: devdb/postgres.py runs its commands as the `postgres` user then.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from devdb.build import FERRETDB_VERSION, PG_BIN, DevDBError, Progress, build_all
from devdb.postgres import PG_USER, as_postgres, commit_setting, give_to_postgres, make_home, pg_command
from devdb.processes import (alive, dead, ferretdb_environment, free_port, is_ferretdb_on, ping, port_is_free,
                             terminate)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO / "var" / "devdb"
VERSION = FERRETDB_VERSION
READY_TIMEOUT = 30.0
ROLE = "ferretdb"

__all__ = ["DevDB", "DevDBError", "Ports", "Server"]


@dataclass(frozen=True)
class Ports:
    postgres: int
    mongodb: int
    debug: int


@dataclass(frozen=True)
class Server:
    pid: int
    port: int
    debug_port: int

    @property
    def uri(self) -> str:
        return f"mongodb://127.0.0.1:{self.port}/"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.debug_port}/debug/metrics"


class DevDB:
    """A PostgreSQL cluster and a FerretDB in front of it, all under `root`. Its writes
    are acknowledged before they reach the disk unless it is made `durable` (a setting
    of the cluster, written when it is made: devdb/postgres.py's `commit_setting`)."""

    def __init__(self, root: Path = DEFAULT_ROOT, binary_dir: Path | None = None, *, durable: bool = False):
        self.root = Path(root)
        self.durable = durable
        self.binary = (binary_dir or REPO / "var" / "bin") / f"ferretdb-{VERSION}"
        self.ports_file = self.root / "ports.json"
        self.secret_file = self.root / "secret"
        self.state_file = self.root / "server.json"
        self.log_file = self.root / "ferretdb.log"
        self.state_dir = self.root / "ferretdb-state"

    # -- where the cluster lives ---------------------------------------------

    @property
    def pg_home(self) -> Path:
        """The cluster's folder: `root/pg`, or where that link points (devdb.postgres.make_home)."""
        home = self.root / "pg"
        return home.resolve() if home.is_symlink() else home

    @property
    def data_dir(self) -> Path:
        return self.pg_home / "data"

    @property
    def socket_dir(self) -> Path:
        return self.pg_home / "socket"

    @property
    def pg_log(self) -> Path:
        return self.pg_home / "log" / "postgresql.log"

    # -- finding ------------------------------------------------------------

    def running(self) -> Server | None:
        """The FerretDB this root's state file names, if it is alive and answers."""
        server = self.recorded()
        if server and alive(server.pid) and ping(server.uri, timeout=2.0):
            return server
        return None

    def recorded(self) -> Server | None:
        """The FerretDB this root's state file names, answering or not."""
        try:
            return Server(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def postmaster_pid(self) -> int | None:
        """The PostgreSQL server's process id, while it runs (its backends are its children)."""
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    # -- starting -----------------------------------------------------------

    def start(self, *, progress: Progress | None = None) -> tuple[Server, bool]:
        """Start the database (or reuse a running one); return it and whether we started it."""
        server = self.running()
        if server:
            return server, False
        progress = progress or Progress()
        build_all(self.binary, progress)
        if not (self.data_dir / "PG_VERSION").exists():
            self._make_cluster(progress)
        ports = self._ports()
        self._start_postgres(ports)
        own = self._own_ferretdb(ports)
        if own:
            return own, False
        return self._start_ferretdb(ports), True

    def _own_ferretdb(self, ports: Ports) -> Server | None:
        """This root's FerretDB, when it still runs on its port although it did not
        answer (its PostgreSQL was gone: killed, crashed, stopped on its own). With
        PostgreSQL back it answers again and is reused; one that stays silent is
        stopped so that a new one can take the port."""
        server = self.recorded()
        if not server or server.port != ports.mongodb or not is_ferretdb_on(server.pid, server.port):
            return None
        deadline = time.monotonic() + READY_TIMEOUT / 3
        while time.monotonic() < deadline:
            if ping(server.uri, timeout=1.0):
                return server
            time.sleep(0.2)
        terminate(server.pid)
        return None

    def _ports(self) -> Ports:
        return Ports(**json.loads(self.ports_file.read_text()))

    def _make_cluster(self, progress: Progress) -> None:
        """initdb, the settings DocumentDB needs, its extensions and FerretDB's role."""
        make_home(self.root / "pg", fallback_prefix="slugline-devdb", progress=progress)
        for folder in (self.data_dir, self.socket_dir, self.pg_log.parent):
            folder.mkdir(parents=True, mode=0o700)
            give_to_postgres(folder)
        taken: set[int] = set()
        ports = Ports(*(free_port(taken) for _ in range(3)))
        progress.say(f"initdb: a new PostgreSQL cluster in {self.data_dir}")
        as_postgres([PG_BIN / "initdb", "-D", self.data_dir, "-U", PG_USER,
                     "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                     "--locale=C.UTF-8"])
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write(self._settings(ports.postgres))
        self.ports_file.write_text(json.dumps(asdict(ports)))
        self._start_postgres(ports)
        secret = secrets.token_hex(16)
        progress.say("CREATE EXTENSION documentdb CASCADE, and FerretDB's login role")
        self.sql(f"CREATE EXTENSION IF NOT EXISTS documentdb CASCADE; "
                 f"CREATE ROLE {ROLE} WITH LOGIN SUPERUSER PASSWORD '{secret}';")
        self.secret_file.write_text(secret)
        self.secret_file.chmod(0o600)
        progress.say("cluster ready")

    def _settings(self, port: int) -> str:
        socket_dir = self.socket_dir
        return f"""
# Slugline's dev database (devdb/server.py; docs/dev-database.md)
listen_addresses = '127.0.0.1'
port = {port}
unix_socket_directories = '{socket_dir}'
unix_socket_permissions = 0700
ssl = off
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'postgres'
cron.host = '{socket_dir}'
cron.log_run = off
documentdb.localhost_connection_string = 'host={socket_dir}'
documentdb.enableBackgroundWorker = true
documentdb.enableBackgroundWorkerJobs = true
documentdb.defaultUseCompositeOpClass = true
{commit_setting(durable=self.durable)}
logging_collector = off
"""

    def _start_postgres(self, ports: Ports) -> None:
        if self._postgres_running():
            return
        self._wait_for_dead_postmaster()
        if not port_is_free(ports.postgres):
            raise DevDBError(
                f"port {ports.postgres}, which the dev database's PostgreSQL uses, is taken "
                f"by another program; stop it (or remove {self.root} to make a new cluster)."
            )
        try:
            as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir, "-l", self.pg_log,
                         "-w", "-t", "60", "start"])
        except DevDBError as exc:
            raise DevDBError(f"{exc}; see {self.pg_log}") from None

    def _postgres_running(self) -> bool:
        status = subprocess.run(pg_command([PG_BIN / "pg_ctl", "-D", self.data_dir, "status"]),
                                capture_output=True)
        return status.returncode == 0 and not dead(self.postmaster_pid())

    def _wait_for_dead_postmaster(self, seconds: float = 10.0) -> None:
        """A killed PostgreSQL stays a zombie until init reaps it, and until then its
        postmaster.pid names a process that exists: pg_ctl would refuse to start."""
        deadline = time.monotonic() + seconds
        while dead(self.postmaster_pid()) and time.monotonic() < deadline:
            time.sleep(0.1)

    def _start_ferretdb(self, ports: Ports) -> Server:
        if not port_is_free(ports.mongodb):
            raise DevDBError(
                f"port {ports.mongodb}, where the dev database answers, is taken by another "
                f"program; stop it (or remove {self.root} to make a new cluster)."
            )
        secret = self.secret_file.read_text().strip()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(self.binary),
            f"--postgresql-url=postgres://{ROLE}:{secret}@127.0.0.1:{ports.postgres}/postgres",
            f"--listen-addr=127.0.0.1:{ports.mongodb}",
            f"--debug-addr=127.0.0.1:{ports.debug}",
            f"--state-dir={self.state_dir}",
            "--telemetry=disable",
            "--no-auth",
            "--log-level=warn",
        ]
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                    start_new_session=True, cwd=self.root, env=ferretdb_environment())
        server = Server(pid=proc.pid, port=ports.mongodb, debug_port=ports.debug)
        self._wait_ready(proc, server)
        self.state_file.write_text(json.dumps(asdict(server)))
        return server

    def _wait_ready(self, proc: subprocess.Popen, server: Server) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise DevDBError(
                    f"FerretDB exited at start-up (code {proc.returncode}): "
                    f"{self._log_tail()} (full log: {self.log_file})"
                )
            if ping(server.uri, timeout=0.5):
                return
            time.sleep(0.1)
        proc.kill()
        raise DevDBError(f"FerretDB did not answer a ping within {READY_TIMEOUT:.0f}s; see {self.log_file}.")

    def _log_tail(self) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1] if lines else "no log"

    # -- stopping -----------------------------------------------------------

    def stop(self) -> bool:
        """Stop FerretDB and PostgreSQL; True if FerretDB was running. Data stays."""
        stopped = False
        try:
            pid = json.loads(self.state_file.read_text())["pid"]
        except (OSError, ValueError, KeyError):
            pid = None
        self.state_file.unlink(missing_ok=True)
        if pid and alive(pid):
            terminate(pid)
            stopped = True
        if (self.data_dir / "PG_VERSION").exists() and self._postgres_running():
            as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir, "-w", "-m", "fast", "stop"])
        return stopped

    # -- SQL as the cluster's owner ---------------------------------------------

    def sql(self, sql: str) -> str:
        """Run `sql` as the cluster's owner; its output (tuples only, one per line).
        DevDBError with the last lines of the error if it fails."""
        args = [PG_BIN / "psql", "-h", self.socket_dir, "-p", self._ports().postgres, "-U", PG_USER,
                "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-c", sql]
        done = subprocess.run(pg_command(args), capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"SQL on the dev database failed: {' / '.join(tail)}")
        return done.stdout
