"""The test OpenID Connect provider as a process: `OIDCProvider` migrates its own SQLite
database, adds users and registered clients, serves tests/oidc_provider/ under gunicorn
on a free loopback port and stops it; `sign_in_at_provider` is a reader at the
provider's pages (sign in, consent) without a browser.

Nothing here talks to anything but 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import requests
from bs4 import BeautifulSoup
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bench.harness import GUNICORN, PYTHON, REPO, free_port, start_server, stop_server

SETTINGS = "tests.oidc_provider.settings"
CONFIG = REPO / "tests" / "oidc_provider" / "gunicorn.conf.py"
PASSWORD = "provider-tests-only-4Kd!"


@dataclass(frozen=True)
class ProviderUser:
    """A user of the test provider: how they sign in there, and the address (and its
    verified flag) the provider vouches for in its claims."""

    username: str
    email: str
    verified: bool
    name: str = ""
    password: str = PASSWORD


@dataclass(frozen=True)
class ProviderClient:
    """A relying party registered at the test provider (Slugline, with its callbacks)."""

    id: str
    secret: str
    redirect_uris: tuple[str, ...]
    name: str = "Slugline"


def private_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@dataclass
class OIDCProvider:
    """allauth.idp.oidc in a process of its own; `url` is its issuer (server_url)."""

    port: int = field(default_factory=free_port)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="slugline-idp-")))
    proc: subprocess.Popen | None = None

    def __post_init__(self):
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.workdir / "provider.log"
        self._secret_key = secrets.token_urlsafe(40)
        self._private_key = private_key_pem()

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
        env.update(
            DJANGO_SETTINGS_MODULE=SETTINGS,
            OIDC_PROVIDER_DB=str(self.workdir / "provider.sqlite3"),
            OIDC_PROVIDER_SECRET_KEY=self._secret_key,
            OIDC_PROVIDER_PRIVATE_KEY=self._private_key,
            OIDC_PROVIDER_BIND=f"127.0.0.1:{self.port}",
        )
        return env

    def _run(self, *args: str) -> None:
        done = subprocess.run([PYTHON, *args], cwd=REPO, env=self.env(), capture_output=True, text=True,
                              timeout=300)
        if done.returncode:
            raise RuntimeError(f"{' '.join(args[:3])} failed: {done.stderr.strip()[-2000:]}")

    def prepare(self, *, users: list[ProviderUser], clients: list[ProviderClient]) -> None:
        self._run("-m", "django", "migrate", "--noinput", "-v0")
        data = {
            "users": [u.__dict__ for u in users],
            "clients": [{**c.__dict__, "redirect_uris": list(c.redirect_uris)} for c in clients],
        }
        self._run("-m", "tests.oidc_provider.populate", json.dumps(data))

    def start(self) -> None:
        try:
            self.proc = start_server([GUNICORN, "--config", str(CONFIG), "tests.oidc_provider.wsgi"],
                                     env=self.env(), log_path=self.log_path,
                                     ready_url=self.url + "/.well-known/openid-configuration")
        except RuntimeError as error:
            raise RuntimeError(f"the test provider did not start: {self.log()[-2000:]}") from error

    def stop(self) -> None:
        stop_server(self.proc)

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _form_data(html: str, *, action_contains: str = "") -> tuple[str, dict[str, list[str]]]:
    """The action and the values a browser would send of the page's first POST form
    whose action holds `action_contains`: hidden and text inputs, checked boxes."""
    soup = BeautifulSoup(html, "html.parser")
    for form in soup.find_all("form", method=lambda m: (m or "").lower() == "post"):
        if action_contains not in (form.get("action") or ""):
            continue
        data: dict[str, list[str]] = {}
        for field_ in form.find_all("input"):
            kind = (field_.get("type") or "text").lower()
            if not field_.get("name") or kind in ("submit", "button"):
                continue
            if kind in ("checkbox", "radio") and not field_.has_attr("checked"):
                continue
            data.setdefault(field_["name"], []).append(field_.get("value") or "")
        return form.get("action") or "", data
    raise AssertionError(f"no POST form with {action_contains!r} in its action:\n{html[:3000]}")


def sign_in_at_provider(authorize_url: str, *, user: ProviderUser, grant: bool = True) -> str:
    """Open the provider's authorize URL as a reader with no session there, sign in as
    `user`, answer the consent page (Authorize or Cancel) and return where the provider
    sends the reader back (the relying party's callback, with code and state)."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(authorize_url))
    session = requests.Session()
    url, answer = authorize_url, session.get(authorize_url, allow_redirects=False, timeout=10)
    for _ in range(10):
        if answer.is_redirect:
            url = urljoin(url, answer.headers["Location"])
            if not url.startswith(origin):
                return url
            answer = session.get(url, allow_redirects=False, timeout=10)
            continue
        assert answer.status_code == 200, (answer.status_code, answer.text[:2000])
        if 'name="password"' in answer.text:
            action, data = _form_data(answer.text, action_contains="login")
            data.update(login=[user.username], password=[user.password])
        else:
            action, data = _form_data(answer.text, action_contains="authorize")
            data["action"] = ["grant" if grant else "cancel"]
        url = urljoin(url, action)
        answer = session.post(url, data=data, allow_redirects=False, timeout=10, headers={"Referer": url})
    raise AssertionError(f"the provider never sent the reader back; last page {url}")
