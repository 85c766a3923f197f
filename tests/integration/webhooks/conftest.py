"""A real HTTP receiver on loopback for the webhook tests (http.server in a thread,
on a port the system picks): it records every request and answers by its path."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Receiver:
    base: str
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    # path -> how many more 500 answers before a 200.
    failures: dict[str, int] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)

    def paths(self) -> list[str]:
        return [path for path, _, _ in self.requests]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            receiver.requests.append((self.path, dict(self.headers.items()), body))
            if self.path == "/slow":
                receiver.release.wait(10)  # longer than any test's timeout; released at teardown
            if self.path == "/huge":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 4_000_000)
                return
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", receiver.base + "/ok")
            elif receiver.failures.get(self.path, 0) > 0:
                receiver.failures[self.path] -= 1
                self.send_response(500)
            else:
                self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@pytest.fixture(scope="module")
def _receiver_server():
    receiver = Receiver(base="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    receiver.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield receiver
    receiver.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def receiver(_receiver_server, settings):
    """The receiver, emptied; private addresses allowed (it is on loopback)."""
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    _receiver_server.requests.clear()
    _receiver_server.failures.clear()
    return _receiver_server
