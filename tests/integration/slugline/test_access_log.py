"""gunicorn's access log (gunicorn.conf.py) against a real gunicorn: whatever a
request's path, query or user agent holds (an encoded newline, quotes,
backslashes), it stays inside its quoted field on its one line."""

from __future__ import annotations

import re
import shutil
import socket
import time
import uuid

import pytest

from bench.harness import Site

FIELD = r'{name}="((?:[^"\\]|\\.)*)"'


@pytest.fixture(scope="module")
def site(site_template):
    scratch = site_template.site(workers=1)
    scratch.start()
    try:
        yield scratch
    finally:
        scratch.stop()
        shutil.rmtree(scratch.workdir, ignore_errors=True)


def send_raw(site: Site, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", site.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def logged(site: Site, marker: str) -> list[str]:
    """The access-log lines that mention `marker`, once the request is logged."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = [line for line in site.log().splitlines() if marker in line]
        if lines:
            return lines
        time.sleep(0.1)
    raise AssertionError(f"no log line for {marker}: {site.log()[-2000:]}")


def unescaped(value: str) -> str:
    return value.encode("latin-1", "backslashreplace").decode("unicode_escape")


def test_a_forged_line_in_the_path_query_or_agent_stays_escaped_in_one_line(site):
    marker = uuid.uuid4().hex
    path = f"/{marker}%0Aat=request%20forged=path%22%5C%0D%E2%80%A8end"
    query = 'q=%0A"\\x'
    agent = 'Agent" forged=agent \\'
    answer = send_raw(site, (
        f"GET {path}?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: {agent}\r\n"
        "Connection: close\r\n\r\n"
    ).encode())
    assert answer.startswith(b"HTTP/1.1 404"), answer[:200]

    lines = logged(site, marker)
    assert len(lines) == 1 and lines[0].startswith("at=request "), lines
    assert "\u2028" not in site.log() and "\r" not in site.log()
    assert not any("forged=" in line and marker not in line for line in site.log().splitlines())
    line = lines[0]
    fields = {name: unescaped(re.search(FIELD.format(name=name), line).group(1))
              for name in ("path", "query", "agent")}
    assert fields == {
        "path": f'/{marker}\nat=request forged=path"\\\r\u2028end',
        "query": query,
        "agent": agent,
    }
    assert re.search(r'agent="(?:[^"\\]|\\.)*"$', line), line  # the last field ends the line
