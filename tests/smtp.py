"""A real SMTP server for the notification tests: aiosmtpd's Controller on a free
loopback port, reached through Django's SMTP backend (`smtp_server` fixture: import
it into a test module). Every message it accepts is kept, parsed."""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
import socket
import threading
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Inbox:
    """The SMTP handler: keeps what it receives; `hold` makes it wait before answering
    a message (a sender killed while waiting)."""

    def __init__(self):
        self.messages: list[EmailMessage] = []
        self.received = threading.Event()
        self.hold_after: int | None = None

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        self.messages.append(message)
        self.received.set()
        if self.hold_after is not None and len(self.messages) > self.hold_after:
            await asyncio.sleep(60)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address in m["To"]]

    def clear(self) -> None:
        self.messages.clear()
        self.received.clear()


class SMTPServer:
    """aiosmtpd on 127.0.0.1:`port`; stop() and start() again on the same port (down, up)."""

    def __init__(self):
        self.port = free_port()
        self.inbox = Inbox()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"


@pytest.fixture
def smtp_server(settings):
    """A running SMTP server and Django's SMTP backend pointed at it."""
    server = SMTPServer()
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 5
    try:
        yield server
    finally:
        server.stop()


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


def links_in(message: EmailMessage) -> list[str]:
    return re.findall(r"https?://[^\s<>\"]+", text_of(message))


def link_to(message: EmailMessage, part: str) -> str:
    """The first link in the plain text whose path contains `part`."""
    return next(link for link in links_in(message) if part in link)
