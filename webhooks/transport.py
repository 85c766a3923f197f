"""One webhook POST, bounded: it connects only to the addresses the URL's check
resolved (webhooks/targets.py), sends the body, and reads no more than the answer's
status line and headers, within `timeout` seconds in all and `max_bytes` at most.
Redirects are not followed: a 3xx is an answer like any other (a failed attempt).
Plain sockets rather than an HTTP client, so that no library resolves the name again
or follows anything, and the deadline covers the whole exchange."""

from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass

from webhooks.targets import Target

USER_AGENT = "Slugline-Webhooks/1"
TIMED_OUT = "timed out"
TOO_LARGE = "answer too large"
NOT_HTTP = "not an HTTP answer"
CLOSED = "connection closed before an answer"


@dataclass(frozen=True)
class Answer:
    """What one attempt got: the status code (None when there was no HTTP answer)
    and, when it failed, a short reason."""

    code: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def request_bytes(target: Target, *, body: bytes, headers: dict[str, str]) -> bytes:
    """The HTTP/1.1 request: POST, JSON, the given headers, Connection: close."""
    lines = [f"POST {target.path} HTTP/1.1", f"Host: {target.host_header}", f"User-Agent: {USER_AGENT}",
             "Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def status_of(head: bytes) -> int | None:
    """The status code of an answer's first line, or None if it is not HTTP's."""
    first = head.split(b"\r\n", 1)[0].split(b" ", 2)
    if len(first) < 2 or not first[0].startswith(b"HTTP/1."):
        return None
    if not (first[1].isdigit() and len(first[1]) == 3):
        return None
    return int(first[1])


def _connect(target: Target, deadline: float) -> socket.socket:
    last: OSError = OSError(CLOSED)
    for address in target.addresses:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(TIMED_OUT)
        try:
            sock = socket.create_connection((address, target.port), timeout=remaining)
        except OSError as exc:
            last = exc
            continue
        if target.scheme == "https":
            try:
                return ssl.create_default_context().wrap_socket(sock, server_hostname=target.host)
            except BaseException:
                sock.close()
                raise
        return sock
    raise last


def _read_head(sock: socket.socket, *, deadline: float, max_bytes: int) -> bytes:
    """The answer up to the end of its headers; TimeoutError or OverflowError when it
    takes too long or is too big, ConnectionError when it ends first."""
    received = b""
    while b"\r\n\r\n" not in received:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(TIMED_OUT)
        if len(received) >= max_bytes:
            raise OverflowError(TOO_LARGE)
        sock.settimeout(remaining)
        chunk = sock.recv(min(65536, max_bytes - len(received)))
        if not chunk:
            if received:
                break  # An answer without a blank line after its headers: judge its first line.
            raise ConnectionError(CLOSED)
        received += chunk
    return received


def post(target: Target, *, body: bytes, headers: dict[str, str], timeout: float, max_bytes: int) -> Answer:
    """POST `body` to `target` and read the answer's head; never raises for what the
    network or the receiver does."""
    deadline = time.monotonic() + timeout
    try:
        with _connect(target, deadline) as sock:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            sock.sendall(request_bytes(target, body=body, headers=headers))
            head = _read_head(sock, deadline=deadline, max_bytes=max_bytes)
    except (TimeoutError, socket.timeout):
        return Answer(code=None, error=TIMED_OUT)
    except OverflowError:
        return Answer(code=None, error=TOO_LARGE)
    except ssl.SSLError as exc:
        return Answer(code=None, error=f"TLS: {exc.reason or exc.__class__.__name__}"[:200])
    except OSError as exc:
        return Answer(code=None, error=(exc.strerror or str(exc) or exc.__class__.__name__)[:200])
    code = status_of(head)
    return Answer(code=code, error="" if code is not None else NOT_HTTP)
