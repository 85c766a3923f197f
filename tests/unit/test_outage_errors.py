"""Which database errors are outages (infra/mongo.py's is_outage): FerretDB's
InternalError naming a lost PostgreSQL is one; a bad query or a refused write is
not. The messages are the ones FerretDB v2.7 and PostgreSQL 15 send (seen when the
dev database's PostgreSQL was killed: tests/integration/infra/test_backend_outage.py)."""

import pytest
from pymongo.errors import (
    AutoReconnect, BulkWriteError, DuplicateKeyError, NetworkTimeout, OperationFailure, WriteError,
)

from infra.mongo import is_outage


def internal_error(message: str) -> OperationFailure:
    return OperationFailure(message, 1, {"ok": 0.0, "errmsg": message, "code": 1, "codeName": "InternalError"})


@pytest.mark.parametrize("message", [
    "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\t"
    "before or while processing the request.",
    "failed to deallocate cached statement(s): read tcp 127.0.0.1:37386->127.0.0.1:60159: "
    "use of closed network connection",
    "msg_insert.go:55 (handler.(*Handler).msgInsert): pool.go:90 (documentdb.(*Pool).Acquire): failed to connect "
    "to `user=ferretdb database=postgres`:\n\t127.0.0.1:60159 (127.0.0.1): dial error: dial tcp "
    "127.0.0.1:60159: connect: connection refused",
    "FATAL: terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)",
    "FATAL: terminating connection due to administrator command (SQLSTATE 57P01)",
    "FATAL: the database system is not yet accepting connections (SQLSTATE 57P03)",
    "FATAL: the database system is starting up (SQLSTATE 57P03)",
    "FATAL: the database system is shutting down (SQLSTATE 57P03)",
    "FATAL: sorry, too many clients already (SQLSTATE 53300)",
    "write failed: broken pipe",
    "read: connection reset by peer",
    "conn closed",
    "unexpected EOF",
])
def test_ferretdb_without_its_postgresql_is_an_outage(message):
    assert is_outage(internal_error(message))


def test_a_bulk_write_whose_backend_is_gone_is_an_outage():
    error = {"index": 0, "code": 1, "errmsg": "failed to connect to `user=ferretdb`: dial error: connection refused"}
    assert is_outage(BulkWriteError({"writeErrors": [error], "nInserted": 0}))


@pytest.mark.parametrize("error", [
    OperationFailure("unknown top level operator: $foo.", 2,
                     {"ok": 0.0, "errmsg": "unknown top level operator: $foo.", "code": 2, "codeName": "BadValue"}),
    internal_error("invalid input syntax for type bytea"),
    internal_error("division by zero (SQLSTATE 22012)"),
    OperationFailure("connection refused", 13, {"errmsg": "connection refused", "code": 13}),  # not code 1
    DuplicateKeyError("E11000 duplicate key error", 11000, {"errmsg": "E11000 duplicate key error", "code": 11000}),
    WriteError("Document failed validation", 121, {"errmsg": "Document failed validation", "code": 121}),
    BulkWriteError({"writeErrors": [{"index": 0, "code": 11000, "errmsg": "E11000 duplicate key"}]}),
    ValueError("connection refused"),
])
def test_bad_queries_and_refused_writes_are_not_outages(error):
    assert not is_outage(error)


@pytest.mark.parametrize("error", [AutoReconnect("gone"), NetworkTimeout("slow")])
def test_connection_failures_and_timeouts_still_are(error):
    assert is_outage(error)


CANCELED = "canceling statement due to statement timeout"


@pytest.mark.parametrize("error", [
    WriteError(CANCELED, 67371461, {"index": 0, "code": 67371461, "errmsg": CANCELED}),
    BulkWriteError({"writeErrors": [{"index": 0, "code": 67371461, "errmsg": CANCELED}], "nInserted": 0}),
])
def test_a_write_ferretdb_cut_short_at_its_time_limit_is_an_outage(error):
    """The request's budget spent on an update: FerretDB's write error carries
    PostgreSQL's query_canceled (SQLSTATE 57014, 67371461), which pymongo does not
    count as a timeout; the site answers its 503, not a 500 (a flaky CI failure)."""
    assert not error.timeout
    assert is_outage(error)


EXIT = "terminating connection due to unexpected postmaster exit"
REMOTE = ("connection to the remote node ferretdb@127.0.0.1:45773 failed with the following error: Connection "
          "refused\n\tIs the server running on that host and accepting TCP/IP connections?")


@pytest.mark.parametrize("error", [
    # A write routed to a killed worker of the sharded development cluster: the
    # coordinator's connection_failure (SQLSTATE 08006) as the write error's code.
    WriteError(REMOTE, 100663808, {"index": 0, "code": 100663808, "errmsg": REMOTE}),
    internal_error(REMOTE),
    # The first query on a coordinator session after the worker came back.
    internal_error("failure on connection marked as essential: 127.0.0.1:45773"),
    # A write the worker was running when its PostgreSQL was killed (57P01, 16908741).
    WriteError(EXIT, 16908741, {"index": 0, "code": 16908741, "errmsg": EXIT}),
    # A write whose COMMIT on the worker failed as the worker was killed (seen in CI as
    # a 500 on a post sent just before the kill).
    internal_error("could not commit transaction for shard 102112 on at least one active node"),
])
def test_a_sharded_cluster_without_one_of_its_workers_is_an_outage(error):
    assert is_outage(error)


def test_small_codes_are_mongodb_codes_not_sqlstates():
    """08000 numbered as DocumentDB does is 512; a code that small is MongoDB's own."""
    assert not is_outage(WriteError("x", 512, {"index": 0, "code": 512, "errmsg": "x"}))
