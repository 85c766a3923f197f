"""Which collections a test may have written, so that emptying them after it costs a
delete per collection written instead of one per collection of the database (about
40 ms a test on the dev database, most of an integration test's own overhead).

What is known is what this process sends: pymongo's monitoring reports every
command of every client made after `WRITTEN` is registered (tests/database.py
imports this module before any client exists). What a test may not be seen doing
makes the next emptying take every collection, as it always did before:
- a command this module does not know to be harmless (a rename, `$out`, ...);
- a process started since the last emptying (an audit hook sees each spawn, fork
  and exec), or one still running whose environment or command line names the
  database (the gunicorn sites some modules keep: tests/browser, *_http.py).
A child started with `SERVES` in its environment, naming a folder of tests, is taken
to write only while one of those tests runs: the browser tier's site, which lives
for the whole session, is asked for pages by browser tests alone, so an integration
test run after them on the same worker empties only what it wrote.
Blog-free: any host's tests may use it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from pymongo import monitoring

# The environment variable of a child that only the tests under a folder talk to: that folder.
SERVES = "SLUGLINE_TEST_SERVES"

# Commands that change documents, each naming its collection in its first field.
_WRITES = frozenset({"insert", "update", "delete", "findAndModify"})
# Commands that leave every collection's documents as they were (or remove them all).
_HARMLESS = frozenset({
    "find", "getMore", "count", "distinct", "listCollections", "listIndexes", "listDatabases",
    "createIndexes", "dropIndexes", "drop", "dropDatabase", "create", "collMod", "explain",
    "killCursors", "endSessions", "hello", "isMaster", "ismaster", "ping", "buildInfo",
    "dbStats", "collStats", "serverStatus", "getParameter", "getCmdLineOpts", "hostInfo",
    "connectionStatus", "saslStart", "saslContinue", "authenticate", "whatsmyuri",
    "listShards", "enableSharding", "shardCollection", "validate", "dataSize", "currentOp",
})
_SPAWNS = ("subprocess.Popen", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.exec", "os.system")


class Written(monitoring.CommandListener):
    """The collections written per database since the last `take`; a database maps to
    None once a command may have written anything in it."""

    def __init__(self, *, children: Callable[[str, str | None], bool] | None = None) -> None:
        self._children = children or _a_child_may_write
        self._lock = threading.Lock()
        self._written: dict[str, set[str] | None] = {}
        self._quiet = threading.local()
        self.process_started = False

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if getattr(self._quiet, "on", False):
            return
        name, command = event.command_name, event.command
        if name in _HARMLESS or (name == "aggregate" and not _writes_out(command)):
            return
        collection = command.get(name) if name in _WRITES else None
        with self._lock:
            seen = self._written.setdefault(event.database_name, set())
            if isinstance(collection, str) and seen is not None:
                seen.add(collection)
            else:
                self._written[event.database_name] = None

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass

    def take(self, db_name: str, *, test: str | None = None) -> set[str] | None:
        """The collections of `db_name` written since the last take (None: any of
        them may have been), and starts counting again. `test`: the path of the test
        that ran (children that serve other tests' folders are not counted)."""
        with self._lock:
            seen = self._written.pop(db_name, set())
            started, self.process_started = self.process_started, False
        if started or seen is None or self._children(db_name, test):
            return None
        return seen

    def empty(self, db, *, test: str | None = None) -> None:
        """Empties the collections of `db` written since the last call (indexes stay);
        its own deletes are not counted as writes. `test` as for `take`."""
        names = self.take(db.name, test=test)
        self._quiet.on = True
        try:
            for name in db.list_collection_names() if names is None else sorted(names):
                db[name].delete_many({})
        finally:
            self._quiet.on = False


def _writes_out(command) -> bool:
    return any(isinstance(stage, dict) and ("$out" in stage or "$merge" in stage)
               for stage in command.get("pipeline", []))


def _a_child_may_write(db_name: str, test: str | None = None) -> bool:
    """Whether a running child of this process names the database in its environment
    or command line, unless it serves (`SERVES`) a folder `test` is not in. Where /proc
    cannot tell, any child might."""
    tasks = Path("/proc/self/task")
    try:
        pids = [pid for task in tasks.iterdir() for pid in (task / "children").read_text().split()]
    except OSError:
        return True
    needle = db_name.encode()
    for pid in pids:
        try:
            environ = (Path("/proc") / pid / "environ").read_bytes()
            if needle not in environ and needle not in (Path("/proc") / pid / "cmdline").read_bytes():
                continue
        except OSError:
            continue  # it has ended
        if test is None or not _serves_others(environ, test):
            return True
    return False


def _serves_others(environ: bytes, test: str) -> bool:
    """Whether a child with this environment serves only the tests of a folder that
    `test` is not in."""
    prefix = SERVES.encode() + b"="
    folders = [entry[len(prefix):].decode(errors="replace") for entry in environ.split(b"\0")
               if entry.startswith(prefix)]
    return bool(folders) and not Path(test).is_relative_to(folders[0])


_listening: list[Written] = []


def registered(**kwargs) -> Written:
    """A new Written, told of every command of the clients made after it and of every
    process started."""
    written = Written(**kwargs)
    monitoring.register(written)
    _listening.append(written)
    return written


def _audit(event: str, args: tuple) -> None:
    if event.startswith(_SPAWNS):
        for written in _listening:
            written.process_started = True


sys.addaudithook(_audit)
WRITTEN = registered()
