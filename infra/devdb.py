"""The development database: FerretDB v2 on PostgreSQL 15 with DocumentDB, under `var/`.

This is the one module that starts, finds and stops it (infra/devdb_build.py builds
what it needs, once); `make run`, `make devdb`, the test suite and `.ci/run` all go
through it. It does not import Django, so it works before the project is configured.

    python -m infra.devdb start   # build if need be, start (or reuse); print MONGODB_URI=...
    python -m infra.devdb stop    # stop FerretDB and PostgreSQL
    python -m infra.devdb run -- CMD ...   # run CMD with MONGODB_URI set; stop after

When `MONGODB_URI` is set, `run` starts nothing and passes that server on.

The cluster keeps its ports: they are chosen once, when the cluster is made, and
recorded in `ports.json`, so a restarted database answers where its clients expect it.
PostgreSQL refuses to run as root; when this runs as root the cluster's folders
belong to the `postgres` user and its commands run as that user.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from infra.devdb_build import FERRETDB_VERSION, PG_BIN, DevDBError, Progress, build_all

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO / "var" / "devdb"
VERSION = FERRETDB_VERSION
READY_TIMEOUT = 30.0
PG_USER = "postgres"
# Where a cluster goes when a folder above the checkout is closed to PG_USER.
FALLBACK_HOME = Path("/var/tmp")
ROLE = "ferretdb"

__all__ = ["DevDB", "DevDBError", "Server", "run", "main"]


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
    """A PostgreSQL cluster and a FerretDB in front of it, all under `root`."""

    def __init__(self, root: Path = DEFAULT_ROOT, binary_dir: Path | None = None):
        self.root = Path(root)
        self.binary = (binary_dir or REPO / "var" / "bin") / f"ferretdb-{VERSION}"
        self.ports_file = self.root / "ports.json"
        self.secret_file = self.root / "secret"
        self.state_file = self.root / "server.json"
        self.log_file = self.root / "ferretdb.log"
        self.state_dir = self.root / "ferretdb-state"

    # -- where the cluster lives ---------------------------------------------

    @property
    def pg_home(self) -> Path:
        """The cluster's folder: `root/pg`, or where that link points (see `_make_home`)."""
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
        if server and _alive(server.pid) and _ping(server.uri, timeout=2.0):
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
        if not server or server.port != ports.mongodb or not _is_ferretdb(server.pid, server.port):
            return None
        deadline = time.monotonic() + READY_TIMEOUT / 3
        while time.monotonic() < deadline:
            if _ping(server.uri, timeout=1.0):
                return server
            time.sleep(0.2)
        _terminate(server.pid)
        return None

    def _ports(self) -> Ports:
        return Ports(**json.loads(self.ports_file.read_text()))

    def _make_cluster(self, progress: Progress) -> None:
        """initdb, the settings DocumentDB needs, its extensions and FerretDB's role."""
        self._make_home(progress)
        for folder in (self.data_dir, self.socket_dir, self.pg_log.parent):
            folder.mkdir(parents=True, mode=0o700)
            self._give_to_postgres(folder)
        taken: set[int] = set()
        ports = Ports(*(_free_port(taken) for _ in range(3)))
        progress.say(f"initdb: a new PostgreSQL cluster in {self.data_dir}")
        self._as_postgres([PG_BIN / "initdb", "-D", self.data_dir, "-U", PG_USER,
                           "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                           "--locale=C.UTF-8"])
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write(self._settings(ports.postgres))
        self.ports_file.write_text(json.dumps(asdict(ports)))
        self._start_postgres(ports)
        secret = secrets.token_hex(16)
        progress.say("CREATE EXTENSION documentdb CASCADE, and FerretDB's login role")
        self._psql(f"CREATE EXTENSION IF NOT EXISTS documentdb CASCADE; "
                   f"CREATE ROLE {ROLE} WITH LOGIN SUPERUSER PASSWORD '{secret}';")
        self.secret_file.write_text(secret)
        self.secret_file.chmod(0o600)
        progress.say("cluster ready")

    def _settings(self, port: int) -> str:
        socket_dir = self.socket_dir
        return f"""
# Slugline's dev database (infra/devdb.py; docs/dev-database.md)
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
logging_collector = off
"""

    def _start_postgres(self, ports: Ports) -> None:
        if self._postgres_running():
            return
        self._wait_for_dead_postmaster()
        if not _port_is_free(ports.postgres):
            raise DevDBError(
                f"port {ports.postgres}, which the dev database's PostgreSQL uses, is taken "
                f"by another program; stop it (or remove {self.root} to make a new cluster)."
            )
        try:
            self._as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir, "-l", self.pg_log,
                               "-w", "-t", "60", "start"])
        except DevDBError as exc:
            raise DevDBError(f"{exc}; see {self.pg_log}") from None

    def _postgres_running(self) -> bool:
        status = subprocess.run(self._pg_command([PG_BIN / "pg_ctl", "-D", self.data_dir, "status"]),
                                capture_output=True)
        return status.returncode == 0 and not _dead(self.postmaster_pid())

    def _wait_for_dead_postmaster(self, seconds: float = 10.0) -> None:
        """A killed PostgreSQL stays a zombie until init reaps it, and until then its
        postmaster.pid names a process that exists: pg_ctl would refuse to start."""
        deadline = time.monotonic() + seconds
        while _dead(self.postmaster_pid()) and time.monotonic() < deadline:
            time.sleep(0.1)

    def _start_ferretdb(self, ports: Ports) -> Server:
        if not _port_is_free(ports.mongodb):
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
                                    start_new_session=True, cwd=self.root)
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
            if _ping(server.uri, timeout=0.5):
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
        if pid and _alive(pid):
            _terminate(pid)
            stopped = True
        if (self.data_dir / "PG_VERSION").exists() and self._postgres_running():
            self._as_postgres([PG_BIN / "pg_ctl", "-D", self.data_dir, "-w", "-m", "fast", "stop"])
        return stopped

    # -- running commands as the cluster's owner ------------------------------

    def _pg_command(self, args: list) -> list[str]:
        args = [str(arg) for arg in args]
        return ["runuser", "-u", PG_USER, "--", *args] if os.geteuid() == 0 else args

    def _as_postgres(self, args: list) -> None:
        done = subprocess.run(self._pg_command(args), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"`{Path(str(args[0])).name}` failed: {' / '.join(tail)}")

    def _psql(self, sql: str) -> None:
        self._as_postgres([PG_BIN / "psql", "-h", self.socket_dir, "-p", self._ports().postgres,
                           "-U", PG_USER, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", sql])

    def _make_home(self, progress: Progress) -> None:
        """A fresh, empty `root/pg`. As root, PostgreSQL runs as `postgres`, which must
        enter every folder above its own; where one of the checkout's parents is
        closed to it (a clone under a private home folder), the cluster lives in
        /var/tmp instead and `root/pg` links there, with no permission changed."""
        home = self.pg_home
        shutil.rmtree(home, ignore_errors=True)
        if (self.root / "pg").is_symlink():
            (self.root / "pg").unlink()
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)  # ours (a mkdtemp folder is 0700); PostgreSQL enters it
        closed = _closed_parent(self.root, pwd.getpwnam(PG_USER).pw_uid) if os.geteuid() == 0 else None
        if closed:
            digest = hashlib.sha1(str(self.root.resolve()).encode()).hexdigest()[:12]
            home = FALLBACK_HOME / f"slugline-devdb-{digest}"
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True, mode=0o755)
            (self.root / "pg").symlink_to(home)
            progress.say(f"{closed} is closed to the postgres user: the cluster lives in {home} "
                         f"({self.root / 'pg'} links there)")
        else:
            home.mkdir(parents=True)
        self._give_to_postgres(home)

    def _give_to_postgres(self, folder: Path) -> None:
        if os.geteuid() != 0:
            return
        user = pwd.getpwnam(PG_USER)
        os.chown(folder, user.pw_uid, user.pw_gid)


def _closed_parent(folder: Path, uid: int) -> Path | None:
    """The first folder at or above `folder` that user `uid` cannot enter, if any."""
    for parent in (folder, *folder.parents):
        mode = parent.stat()
        if mode.st_uid != uid and not mode.st_mode & 0o001:
            return parent
    return None


def _free_port(taken: set[int]) -> int:
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port


def _port_is_free(port: int) -> bool:
    """Whether nothing listens on `port` (a port in TIME_WAIT after a stop counts as free)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _terminate(pid: int) -> None:
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def _dead(pid: int | None) -> bool:
    """Whether `pid` is a process that has exited but is not reaped yet (a zombie)."""
    if not pid:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def _is_ferretdb(pid: int, port: int) -> bool:
    """Whether process `pid` is alive and is a FerretDB listening on `port` (its
    command line, read from /proc)."""
    if not _alive(pid):
        return False
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return False
    return (bool(args) and Path(args[0]).name.startswith("ferretdb")
            and f"--listen-addr=127.0.0.1:{port}" in args)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A child we started and that died stays a zombie until reaped; it is not alive.
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0


def _ping(uri: str, *, timeout: float) -> bool:
    from pymongo import MongoClient
    from pymongo.errors import PyMongoError

    ms = int(timeout * 1000)
    client = MongoClient(uri, serverSelectionTimeoutMS=ms, connectTimeoutMS=ms)
    try:
        client.admin.command("ping")
        return True
    except PyMongoError:
        return False
    finally:
        client.close()


def run(command: list[str], devdb: DevDB | None = None) -> int:
    """Run `command` with MONGODB_URI set, starting the dev database if needed.

    A server this call started is stopped when the command ends (Ctrl-C included);
    one that was already running, or MONGODB_URI given by the caller, is left alone.
    """
    devdb = devdb or DevDB()
    if os.environ.get("MONGODB_URI"):
        return run_with(command, uri=os.environ["MONGODB_URI"])
    server, we_started = devdb.start()
    return run_with(command, uri=server.uri, stop=devdb.stop if we_started else None)


def run_with(command: list[str], *, uri: str, stop=None) -> int:
    """Run `command` with MONGODB_URI=`uri`; Ctrl-C reaches it, and `stop` (the server
    a caller started for it) is called when it ends, however it ends."""
    proc = subprocess.Popen(command, env=dict(os.environ, MONGODB_URI=uri))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        return proc.wait()
    finally:
        if stop is not None:
            stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.devdb", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("build", help="build what the dev database needs, if anything is missing")
    sub.add_parser("start", help="start (or reuse) the dev database; print MONGODB_URI=...")
    sub.add_parser("stop", help="stop the dev database (its data stays)")
    sub.add_parser("status", help="print MONGODB_URI=... if it is running; exit 1 if not")
    run_parser = sub.add_parser("run", help="run a command with MONGODB_URI set")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    devdb = DevDB()
    try:
        if args.action == "build":
            build_all(devdb.binary)
        elif args.action == "start":
            if os.environ.get("MONGODB_URI"):
                print(f"MONGODB_URI is set; using {os.environ['MONGODB_URI']} and starting nothing.")
            else:
                print(f"MONGODB_URI={devdb.start()[0].uri}")
        elif args.action == "stop":
            print("Stopped the dev database." if devdb.stop() else "The dev database was not running.")
        elif args.action == "status":
            server = devdb.running()
            if not server:
                print("The dev database is not running.")
                return 1
            print(f"MONGODB_URI={server.uri}")
        else:
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not command:
                parser.error("run needs a command after --")
            return run(command, devdb)
    except DevDBError as exc:
        print(f"devdb: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
