"""The process's one MongoClient, created lazily.

PyMongo's advice: one client per process, never at import time or in
`AppConfig.ready()`, and a new one in each process gunicorn forks. The client is
keyed by the process id, so a forked worker never reuses its parent's sockets.
Every call has explicit time budgets (settings), so a page never waits for
pymongo's 30-second defaults when the database is gone.
"""

import contextvars
import logging
import os
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

import pymongo
from pymongo import _csot
from django.core.exceptions import ImproperlyConfigured
from pymongo import IndexModel, MongoClient
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import BulkWriteError, ConnectionFailure, OperationFailure, PyMongoError

from infra import conf

T = TypeVar("T")
log = logging.getLogger(__name__)
_lock = threading.Lock()
_client: MongoClient | None = None
_client_pid: int | None = None


def server_uri() -> str:
    """COMMENTS_MONGODB_URI or MONGODB_URI, or the dev database's (started if need be)
    when neither is set and this is Slugline's checkout (ImproperlyConfigured elsewhere)."""
    if uri := conf.configured_uri():
        return uri
    try:
        from devdb.server import DevDB
    except ImportError:
        raise ImproperlyConfigured(conf.NO_URI) from None
    return DevDB().start()[0].uri


def get_client() -> MongoClient:
    global _client, _client_pid
    with _lock:
        if _client is None or _client_pid != os.getpid():
            if problems := conf.problems():  # refused before anything is written
                raise ImproperlyConfigured(" ".join(problems))
            _client = MongoClient(
                server_uri(),
                tz_aware=True,
                connect=False,
                appname=conf.appname(),
                connectTimeoutMS=conf.get("MONGODB_CONNECT_TIMEOUT_MS"),
                serverSelectionTimeoutMS=conf.get("MONGODB_SERVER_SELECTION_TIMEOUT_MS"),
                timeoutMS=conf.get("MONGODB_TIMEOUT_MS") or None,
                socketTimeoutMS=conf.get("MONGODB_SOCKET_TIMEOUT_MS"),
                heartbeatFrequencyMS=conf.get("MONGODB_HEARTBEAT_MS"),
            )
            _client_pid = os.getpid()
        return _client


def request_budget() -> float:
    """MONGODB_REQUEST_BUDGET_MS, in seconds: what one request's MongoDB work may take."""
    return float(conf.get("MONGODB_REQUEST_BUDGET_MS")) / 1000


def get_db() -> Database:
    """The site's database; Unavailable at once while the server is known to be down."""
    client = get_client()
    if _known_down(client):
        raise Unavailable(DOWN)
    return client[conf.db_name()]


class Unavailable(ConnectionFailure):
    """MongoDB is known to be unreachable right now; nothing was sent."""


DOWN = "MongoDB is unreachable right now."


def _known_down(client: MongoClient) -> bool:
    """Whether every server's last check failed.

    pymongo's monitor re-checks each server in the background (heartbeatFrequencyMS),
    so this clears by itself when the database returns. Until then, requests fail at
    once instead of each waiting out the server-selection budget.
    """
    servers = client.topology_description.server_descriptions().values()
    return bool(servers) and all(server.error is not None for server in servers)


def is_outage(exc: BaseException) -> bool:
    """Whether `exc` means the database is unreachable or over its time budget,
    as opposed to a bug or a refused write (those must surface)."""
    return (isinstance(exc, ConnectionFailure) or (isinstance(exc, PyMongoError) and exc.timeout)
            or backend_down(exc) or cut_short(exc))


def _sqlstate(code: str) -> int:
    """A PostgreSQL SQLSTATE as DocumentDB numbers it in its error codes (PostgreSQL's
    MAKE_SQLSTATE: six bits a character, the first lowest)."""
    return sum(((ord(char) - ord("0")) & 0x3F) << (6 * place) for place, char in enumerate(code))


# FerretDB answers an update cut short by its time limit (the maxTimeMS pymongo sends:
# what is left of the request's budget) with PostgreSQL's query_canceled, "canceling
# statement due to statement timeout", as a write error coded SQLSTATE 57014
# (67371461), not MaxTimeMSExpired (50), so pymongo's `timeout` is False for it (seen
# for update_one, update_many, replace_one, upserts and bulk updates; finds and deletes
# answer 50).
QUERY_CANCELED = _sqlstate("57014")


def cut_short(exc: BaseException) -> bool:
    """Whether `exc` is FerretDB saying a write ran out of its time limit (a write
    error coded QUERY_CANCELED), which is the request's budget spent, not a bug."""
    return any(code == QUERY_CANCELED for code, _message in _answers(exc))


def _answers(exc: BaseException) -> list[tuple[object, object]]:
    """(code, message) of each error the server answered in `exc` (one for a
    command, one a failed write of a bulk write); none for other exceptions."""
    if not isinstance(exc, OperationFailure):
        return []
    details = exc.details or {}
    if isinstance(exc, BulkWriteError):
        return [(error.get("code"), error.get("errmsg")) for error in details.get("writeErrors", [])]
    return [(exc.code, details.get("errmsg") or str(exc))]


# FerretDB answers while its PostgreSQL is gone, with an InternalError (code 1) that
# carries the backend's words: PostgreSQL's own (its FATAL messages and SQLSTATE
# classes 08, connection exception, and 57P01-57P03, shutdown and start-up) or its
# Go driver's (pgx) when it cannot reach or lost the server. Matched in lower case.
INTERNAL_ERROR = 1
BACKEND_DOWN = (
    "terminating connection due to",  # unexpected postmaster exit, administrator command, crash
    "the database system is",  # starting up, shutting down, not yet accepting connections, in recovery mode
    "server closed the connection unexpectedly",
    "could not connect to server",
    "no connection to the server",
    "failed to connect to `",  # pgx: failed to connect to `user=... database=...`
    "dial error",
    "connection refused",
    "connection reset by peer",
    "broken pipe",
    "use of closed network connection",
    "conn closed",
    "unexpected eof",
    "sorry, too many clients already",
    "(sqlstate 08",
    "(sqlstate 57p01)",
    "(sqlstate 57p02)",
    "(sqlstate 57p03)",
    # On a sharded cluster (Citus under DocumentDB) the coordinator answers while a
    # worker is gone: its connection to that worker failed, or failed before and is
    # dropped on the next use once the worker is back.
    "connection to the remote node",
    "failure on connection marked as essential",
    # A worker killed while the coordinator committed a write on it (Citus'
    # ErrorIfPostCommitFailedShardPlacements: the placement's COMMIT failed, so whether
    # it was stored is unknown). Citus says the same of a deferred constraint failing at
    # COMMIT, but DocumentDB's constraints are never deferred.
    "could not commit transaction for shard",
)


# A worker's PostgreSQL going down under a write the coordinator sent it: its FATAL
# "terminating connection due to unexpected postmaster exit" (admin_shutdown, 57P01),
# crash_shutdown (57P02) and cannot_connect_now (57P03), as a write error's code.
SHUTTING_DOWN = frozenset(_sqlstate(code) for code in ("57P01", "57P02", "57P03"))


def connection_exception(code: object) -> bool:
    """Whether `code` is a PostgreSQL SQLSTATE of class 08, connection exception, as
    DocumentDB numbers it (a write error on a sharded cluster whose coordinator lost a
    worker: "connection to the remote node ... failed", 08006). Only numbers past
    MongoDB's own codes are read as SQLSTATEs."""
    return isinstance(code, int) and code >= 1 << 12 and code & 0x3F == 0 and (code >> 6) & 0x3F == 8


def backend_down(exc: BaseException) -> bool:
    """Whether `exc` is FerretDB saying its PostgreSQL (or, on a sharded cluster, one
    of its workers) is unreachable: an InternalError naming a lost or refused backend
    connection, or an error coded as a connection exception or as the server shutting
    down (a worker killed under a write: SHUTTING_DOWN). Any other failure (a bad
    query's BadValue, a duplicate key, an InternalError about something else) is not
    an outage."""
    return any(
        (code == INTERNAL_ERROR and any(mark in str(message).lower() for mark in BACKEND_DOWN))
        or connection_exception(code) or code in SHUTTING_DOWN
        for code, message in _answers(exc)
    )


# What bookkeeping after a stored write may take once the request's budget is spent.
GRACE_SECONDS = 2.0


def outside_request_budget(work: Callable[[], T], seconds: float = GRACE_SECONDS) -> T:
    """Run `work` under a budget of its own, not the request's (pymongo keeps the
    request's deadline in context variables; `work` runs in an empty context). For
    the small write that records what is left to do after a change that is already
    stored, so the record is not lost because the request ran out of time."""
    def bounded() -> T:
        with pymongo.timeout(seconds):
            return work()

    return contextvars.Context().run(bounded)


def budget_left() -> float | None:
    """Seconds left of the time budget the calling code runs under (`pymongo.timeout`:
    a request's, slugline.middleware), None without one. pymongo keeps it in
    `_csot`, the module its own `timeout()` is built on."""
    return _csot.remaining()


def ping(*, timeout_ms: int) -> None:
    """Ask the server to answer within `timeout_ms`; PyMongoError if it does not."""
    with pymongo.timeout(timeout_ms / 1000):
        get_client().admin.command("ping")


def server_facts() -> dict:
    """What the server says about itself (`buildInfo`), asked once per client."""
    client = get_client()
    if _facts.get("client") is not client:
        _facts.update(client=client, build=client.admin.command("buildInfo"))
    return _facts["build"]


_facts: dict = {}


def max_document_bytes() -> int:
    """The largest document the server stores (16 MB on MongoDB)."""
    return int(server_facts().get("maxBsonObjectSize", 16 * 1024 * 1024))


# How many documents an answer read whole asks for in one batch (the server still ends a
# batch at 16 MiB). Past its first batch (101 by default) a sorted find or aggregation
# costs FerretDB v2 with DocumentDB about 10 ms more, whatever its size (a discussion's
# 200 comments listed in order: 15 ms in two batches, 5 ms in one; docs/benchmarks.md).
WHOLE_BATCH = 10_000


def batch_for(limit: int | None) -> int:
    """The batch size that reads an answer of at most `limit` documents (None: no
    limit) in one batch, up to WHOLE_BATCH."""
    return WHOLE_BATCH if limit is None else max(1, min(limit, WHOLE_BATCH))


def reset_client() -> None:
    """Close and forget the client (tests that change MONGODB_URI use this)."""
    global _client, _client_pid
    with _lock:
        if _client is not None and _client_pid == os.getpid():
            _client.close()
        _client, _client_pid = None, None


# What each app registers from its AppConfig.ready(): functions that create the
# indexes of the collections they own (declared next to their queries) and return
# their names. The platform knows no app by name.
_INDEX_OWNERS: list[Callable[[Database], list[str]]] = []
INDEX_NOT_FOUND = 27


def register_indexes(ensure: Callable[[Database], list[str]]) -> None:
    """Add an owner's `ensure_indexes(db)` to what `ensure_all_indexes` runs."""
    if ensure not in _INDEX_OWNERS:
        _INDEX_OWNERS.append(ensure)


def replace_indexes(collection: Collection, indexes: list[IndexModel], *, retired: Iterable[str] = ()) -> list[str]:
    """Create `indexes` on `collection`, then drop those of `retired` (names of indexes
    its owner made before and no longer declares) that it still has, so an existing
    database sheds them on its next `ensure_indexes`; the names created. New first:
    the queries an old index served have their new one before it goes. An index
    declared under the name of one the collection has with other keys or another
    defining option (made by an earlier release) is dropped first: the server would
    refuse to create it otherwise."""
    existing = collection.index_information()
    for model in indexes:
        name = model.document["name"]
        if name in existing and not same_index(model, existing[name]):
            log.warning("Index %s of %s is not as declared (%s): dropped and made again as %s",
                        name, collection.name, existing[name], model.document)
            _drop_index(collection, name)
    names = collection.create_indexes(indexes)
    stale = (set(retired) & set(existing)) - set(names)
    for name in sorted(stale):
        _drop_index(collection, name)
    return names


# The options that make an index another index under the same name.
DEFINING_OPTIONS = ("unique", "sparse", "partialFilterExpression", "expireAfterSeconds")


def same_index(model: IndexModel, found: dict) -> bool:
    """Whether `found` (an entry of `index_information()`) is the index `model`
    declares: the same keys in the same order, and the same defining options."""
    wanted = model.document
    if [(field, kind) for field, kind in wanted["key"].items()] != [tuple(pair) for pair in found.get("key", [])]:
        return False
    flags = ("unique", "sparse")
    return all((bool(wanted.get(option)) == bool(found.get(option))) if option in flags
               else wanted.get(option) == found.get(option) for option in DEFINING_OPTIONS)


def _drop_index(collection: Collection, name: str) -> None:
    try:
        collection.drop_index(name)
    except OperationFailure as exc:
        if exc.code != INDEX_NOT_FOUND:  # another process dropped it first
            raise


def ensure_all_indexes(db: Database | None = None) -> list[str]:
    """Create every registered owner's indexes (idempotent); return their names."""
    db = db if db is not None else get_db()
    names = []
    for ensure in _INDEX_OWNERS:
        names += ensure(db)
    return names
