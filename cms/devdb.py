"""The development database: FerretDB v1.24.2 on SQLite, built and run from `var/`.

This is the one module that builds, starts, finds and stops it; `make run`,
`make devdb`, the test suite and `.ci/run` all go through it. It does not import
Django, so it works before the project is configured.

    python -m cms.devdb start   # start (or reuse) it; print MONGODB_URI=...
    python -m cms.devdb stop    # stop the one `start` left running
    python -m cms.devdb run -- CMD ...   # run CMD with MONGODB_URI set; stop after

When `MONGODB_URI` is set, `run` starts nothing and passes that server on.

Why the build is not `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`:
FerretDB reads its version from an embedded `build/version/version.txt`, which the
published module does not contain, and panics at start-up without it whenever its
own module is the binary's main module. Go (1.24 and later) records the module of
the main package as the main module, so even a build from `tools/ferretdb/` panics.
We therefore vendor the module into `var/`, add that one text file (the version
string, nothing else), and build from the vendored tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

VERSION = "v1.24.2"
REPO = Path(__file__).resolve().parent.parent
TOOL_MODULE = REPO / "tools" / "ferretdb"
DEFAULT_ROOT = REPO / "var" / "ferretdb"
PACKAGE = "github.com/FerretDB/FerretDB/cmd/ferretdb"
VERSION_FILE = "vendor/github.com/FerretDB/FerretDB/build/version/version.txt"
READY_TIMEOUT = 30.0


class DevDBError(Exception):
    """A plain-language reason why the dev database cannot be built or started."""


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
    """A FerretDB whose binary, data, log and state file live under `root`."""

    def __init__(self, root: Path = DEFAULT_ROOT, binary_dir: Path | None = None):
        self.root = Path(root)
        bin_dir = binary_dir or REPO / "var" / "bin"
        self.binary = bin_dir / f"ferretdb-{VERSION}"
        self.state_file = self.root / "server.json"
        self.log_file = self.root / "ferretdb.log"
        self.data_dir = self.root / "data"

    # -- building -----------------------------------------------------------

    def build(self) -> Path:
        """Build the binary once; reuse it while VERSION is unchanged."""
        if self.binary.exists():
            return self.binary
        go = shutil.which("go")
        if go is None:
            raise DevDBError(
                "Go is not installed, and the dev database (FerretDB) is built with it: "
                "install Go 1.24 or newer, or set MONGODB_URI to a MongoDB server."
            )
        src = REPO / "var" / "build" / "ferretdb"
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        for name in ("go.mod", "go.sum", "tools.go"):
            shutil.copy2(TOOL_MODULE / name, src / name)
        print(f"Building FerretDB {VERSION} (once; takes a minute or two)...", file=sys.stderr)
        self._go(go, ["mod", "vendor"], src)
        (src / VERSION_FILE).write_text(VERSION + "\n")
        self.binary.parent.mkdir(parents=True, exist_ok=True)
        partial = self.binary.with_suffix(".partial")
        self._go(go, ["build", "-mod=vendor", "-o", str(partial), PACKAGE], src)
        partial.replace(self.binary)
        shutil.rmtree(src, ignore_errors=True)
        return self.binary

    @staticmethod
    def _go(go: str, args: list[str], cwd: Path) -> None:
        done = subprocess.run([go, *args], cwd=cwd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DevDBError(f"`go {args[0]}` failed while building FerretDB: {' / '.join(tail)}")

    # -- running ------------------------------------------------------------

    def running(self) -> Server | None:
        """The server this root's state file names, if it is alive and answers."""
        try:
            server = Server(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if _alive(server.pid) and _ping(server.uri, timeout=2.0):
            return server
        return None

    def start(self, *, port: int | None = None) -> tuple[Server, bool]:
        """Start the server (or reuse a running one); return it and whether we started it.

        `port` asks for a given port (fault tests restart a server where its clients
        expect it); by default a free one is chosen.
        """
        server = self.running()
        if server:
            return server, False
        binary = self.build()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        port, debug_port = port or _free_port(), _free_port()
        args = [
            str(binary),
            "--handler=sqlite",
            f"--sqlite-url=file:{self.data_dir}/",
            f"--state-dir={self.root}",
            f"--listen-addr=127.0.0.1:{port}",
            f"--debug-addr=127.0.0.1:{debug_port}",
            "--telemetry=disable",
            "--log-level=warn",
        ]
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(
                args, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                start_new_session=True, cwd=self.root,
            )
        server = Server(pid=proc.pid, port=port, debug_port=debug_port)
        self._wait_ready(proc, server)
        self.state_file.write_text(json.dumps(asdict(server)))
        return server, True

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
        raise DevDBError(
            f"FerretDB did not answer a ping within {READY_TIMEOUT:.0f}s; see {self.log_file}."
        )

    def _log_tail(self) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1] if lines else "no log"

    def stop(self) -> bool:
        """Stop the server this root's state file names; True if one was running."""
        try:
            pid = json.loads(self.state_file.read_text())["pid"]
        except (OSError, ValueError, KeyError):
            return False
        self.state_file.unlink(missing_ok=True)
        if not _alive(pid):
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        return True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    env = dict(os.environ)
    started = None
    devdb = devdb or DevDB()
    if not env.get("MONGODB_URI"):
        server, we_started = devdb.start()
        env["MONGODB_URI"] = server.uri
        started = server if we_started else None
    proc = subprocess.Popen(command, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        return proc.wait()
    finally:
        if started:
            devdb.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cms.devdb", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("build", help="build the FerretDB binary if it is missing")
    sub.add_parser("start", help="start (or reuse) the dev database; print MONGODB_URI=...")
    sub.add_parser("stop", help="stop the dev database")
    sub.add_parser("status", help="print MONGODB_URI=... if it is running; exit 1 if not")
    run_parser = sub.add_parser("run", help="run a command with MONGODB_URI set")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    devdb = DevDB()
    try:
        if args.action == "build":
            print(devdb.build())
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
