"""The development databases' command line, and running a command against one.

    python -m devdb start   # build if need be, start (or reuse); print MONGODB_URI=...
    python -m devdb stop    # stop FerretDB and PostgreSQL; the data stays
    python -m devdb status  # print MONGODB_URI=... if it is running; exit 1 if not
    python -m devdb build   # build what is missing, start nothing
    python -m devdb run -- CMD ...   # run CMD with MONGODB_URI set; stop after

`python -m devdb cluster ACTION` does the same for the sharded development cluster
(devdb/cluster.py, docs/dev-cluster.md), and `python -m devdb cluster add-worker` adds
a worker to the running cluster (devdb/cluster_ops.py). When `MONGODB_URI` is set, the single
node's `start` and `run` start nothing and pass that server on.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Callable

from devdb.build import DevDBError, build_all
from devdb.cluster import Cluster
from devdb.cluster_build import build_cluster
from devdb.server import DevDB

__all__ = ["main", "run", "run_cluster", "run_with"]


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


def run_cluster(command: list[str], cluster: Cluster | None = None) -> int:
    """Run `command` with MONGODB_URI naming the cluster, started if need be; a cluster
    this call started is stopped when the command ends (Ctrl-C included)."""
    cluster = cluster or Cluster()
    server, we_started = cluster.start()
    return run_with(command, uri=server.uri, stop=cluster.stop if we_started else None)


def run_with(command: list[str], *, uri: str, stop: Callable[[], object] | None = None) -> int:
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


def _parser(prog: str, what: str, description: str, epilog: str | None = None,
            more: tuple[tuple[str, str], ...] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog)
    sub = parser.add_subparsers(dest="action", required=True)
    for action, text in more:
        sub.add_parser(action, help=text)
    sub.add_parser("build", help=f"build what {what} needs, if anything is missing")
    sub.add_parser("start", help=f"start (or reuse) {what}; print MONGODB_URI=...")
    sub.add_parser("stop", help=f"stop {what} (its data stays)")
    sub.add_parser("status", help="print MONGODB_URI=... if it is running; exit 1 if not")
    run_parser = sub.add_parser("run", help=f"run a command with MONGODB_URI naming {what}")
    run_parser.add_argument("command", nargs=argparse.REMAINDER)
    return parser


def _command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("run needs a command after --")
    return list(command)


def main(argv: list[str] | None = None) -> int:
    """`python -m devdb ACTION` (the single node), or `python -m devdb cluster ACTION`."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["cluster"]:
        return cluster_main(argv[1:])
    parser = _parser("python -m devdb", "the dev database",
                     "The development database: FerretDB v2 on PostgreSQL 15 with DocumentDB, under var/devdb/.",
                     "python -m devdb cluster ACTION: the same actions for the sharded development "
                     "cluster (docs/dev-cluster.md).")
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
            return run(_command(parser, args), devdb)
    except DevDBError as exc:
        print(f"devdb: {exc}", file=sys.stderr)
        return 1
    return 0


def cluster_main(argv: list[str]) -> int:
    """`python -m devdb cluster ACTION`: the sharded development cluster."""
    parser = _parser("python -m devdb cluster", "the cluster",
                     "The distributed development database: DocumentDB on Citus, one coordinator "
                     "and two workers, FerretDB v2 in front, under var/devdb-cluster/.",
                     more=(("add-worker", "start one more worker and add it to the running cluster (it "
                                          "holds no shard until manage.py rebalance_shards moves some)"),))
    args = parser.parse_args(argv)
    cluster = Cluster()
    try:
        if args.action == "build":
            build_cluster(cluster.binary)
        elif args.action == "start":
            server, started = cluster.start()
            if not started:
                print("The development cluster was already running (any node that was down is "
                      "started again).", file=sys.stderr)
            print(f"MONGODB_URI={server.uri}")
        elif args.action == "add-worker":
            from devdb.cluster_ops import add_worker

            print(f"Added {add_worker(cluster)}; move shards onto it with "
                  "`.venv/bin/python manage.py rebalance_shards` (MONGODB_URI naming the cluster).")
        elif args.action == "stop":
            print("Stopped the development cluster." if cluster.stop()
                  else "The development cluster's FerretDB was not running (its nodes are stopped).")
        elif args.action == "status":
            running = cluster.running()
            if not running:
                print("The development cluster is not running.")
                return 1
            print(f"MONGODB_URI={running.uri}")
        else:
            return run_cluster(_command(parser, args), cluster)
    except DevDBError as exc:
        print(f"devdb-cluster: {exc}", file=sys.stderr)
        return 1
    return 0
