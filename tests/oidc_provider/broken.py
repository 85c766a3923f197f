"""Providers that misbehave, on loopback: `BrokenProvider` answers each path with what a
test gives it (a status, a body, a delay first), in a thread of the test's process;
`closed_port()` is a port nobody listens on (a provider that is down)."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Answer:
    body: str | bytes
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0

    @classmethod
    def json(cls, value, **kwargs) -> Answer:
        return cls(json.dumps(value), **kwargs)


def closed_port() -> int:
    """A loopback port that was free a moment ago and has no listener."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BrokenProvider:
    """`answers` maps a path to its Answer (404 for the rest); `url` is the server's
    address, `requests` the paths asked for, in order. Use as a context manager."""

    def __init__(self, answers: dict[str, Answer] | None = None):
        self.answers = dict(answers or {})
        self.requests: list[str] = []
        self._stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                path = self.path.split("?", 1)[0]
                owner.requests.append(path)
                answer = owner.answers.get(path, Answer("not found", status=404, content_type="text/plain"))
                owner._stopping.wait(answer.delay)
                body = answer.body.encode() if isinstance(answer.body, str) else answer.body
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up waiting

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def discovery(self, **overrides) -> dict:
        """A well-formed configuration document whose endpoints are this server's."""
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "userinfo_endpoint": f"{self.url}/userinfo",
            "jwks_uri": f"{self.url}/jwks",
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            **overrides,
        }

    def __enter__(self) -> BrokenProvider:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()
