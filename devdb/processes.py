"""Processes and ports, for the development databases: free ports, whether a process
lives (a zombie does not), stopping one, and a FerretDB's ping.

Shared by the single-node server (devdb/server.py) and the cluster (devdb/cluster.py).
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path


def ferretdb_environment() -> dict[str, str]:
    """The environment a FerretDB starts in: this one, with Go's scheduler on one
    thread (GOMAXPROCS=1) unless GOMAXPROCS is set. FerretDB's own work for a command
    is small beside PostgreSQL's, and on two cores the scheduler waking and parking
    threads took about a fifth of its CPU (docs/dev-database.md)."""
    return {"GOMAXPROCS": "1", **os.environ}


def free_port(taken: set[int]) -> int:
    """A port nothing listens on now, not in `taken` (which it joins)."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port


def port_is_free(port: int) -> bool:
    """Whether nothing listens on `port` (a port in TIME_WAIT after a stop counts as free)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def terminate(pid: int) -> None:
    """SIGTERM, then SIGKILL after ten seconds if `pid` still lives."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


def dead(pid: int | None) -> bool:
    """Whether `pid` is a process that has exited but is not reaped yet (a zombie)."""
    if not pid:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def is_ferretdb_on(pid: int, port: int) -> bool:
    """Whether process `pid` is alive and is a FerretDB listening on `port` (its
    command line, read from /proc)."""
    if not alive(pid):
        return False
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return False
    return (bool(args) and Path(args[0]).name.startswith("ferretdb")
            and f"--listen-addr=127.0.0.1:{port}" in args)


def runs_binary(pid: int, binary: Path) -> bool:
    """Whether process `pid` still runs `binary` (a recycled id is left alone)."""
    try:
        return Path(f"/proc/{pid}/exe").resolve() == binary.resolve()
    except OSError:
        return True  # no /proc: trust the state file, as the single node does


def alive(pid: int) -> bool:
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


def ping(uri: str, *, timeout: float) -> bool:
    """Whether the MongoDB server at `uri` answers a ping within `timeout` seconds."""
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
