"""Login throttling (django-axes on Django's cache, cms/logins.py): too many bad
passwords from one address or for one account pause logging in for a while, and the
login page says so in the site's layout."""

import time
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from cms import logins

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _fresh_counts(settings):
    """Failure counts live in the cache; each test starts and ends without any.
    (A fast password hasher: these tests check many passwords.)"""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def ada(make_user):
    user = make_user("ada")
    user.set_password(PASSWORD)
    user.save()
    return user


def log_in(username: str, password: str, *, ip: str, path: str | None = None):
    client = Client(REMOTE_ADDR=ip)
    response = client.post(path or reverse("login"), {"username": username, "password": password})
    return response, client


def locked_out_text() -> str:
    return logins.LOCKED_OUT.format(minutes=15)


def fail(times: int, *, usernames, ips) -> None:
    for n in range(times):
        response, _ = log_in(usernames[n % len(usernames)], "wrong", ip=ips[n % len(ips)])
        assert response.status_code in (200, 429)


def test_a_bad_password_below_the_limit_is_an_ordinary_form_error(ada):
    """Four failures still let the right password in."""
    fail(4, usernames=["ada"], ips=["10.0.0.1"])
    response, client = log_in("ada", PASSWORD, ip="10.0.0.1")
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(ada.pk)


def test_bad_passwords_from_one_address_pause_logging_in_from_it(ada):
    """Five failures from one address, whatever the usernames, refuse even the right
    password from there, with the reason on the login page; other addresses log in."""
    fail(5, usernames=[f"guess{n}" for n in range(5)], ips=["10.0.0.1"])
    response, client = log_in("ada", PASSWORD, ip="10.0.0.1")
    page = response.content.decode()
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert locked_out_text() in page
    assert 'class="site-header"' in page and 'name="password"' in page
    assert "_auth_user_id" not in client.session
    assert log_in("ada", PASSWORD, ip="10.0.0.2")[0].status_code == 302


def test_bad_passwords_for_one_account_pause_it_from_every_address(ada, make_user):
    """Five failures for one username, from five addresses, refuse that account from a
    sixth address; another account logs in from there."""
    fail(5, usernames=["ada"], ips=[f"10.0.1.{n}" for n in range(5)])
    response, _ = log_in("ada", PASSWORD, ip="10.0.2.1")
    assert response.status_code == 429 and locked_out_text() in response.content.decode()
    bruno = make_user("bruno")
    bruno.set_password(PASSWORD)
    bruno.save()
    assert log_in("bruno", PASSWORD, ip="10.0.2.1")[0].status_code == 302


def test_the_admin_login_is_throttled_too(ada):
    """Axes guards every authentication, so the admin's login is no way around it."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    response, _ = log_in("ada", PASSWORD, ip="10.0.0.1", path=reverse("admin:login"))
    assert response.status_code == 429


def test_the_pause_ends_after_the_cool_off(ada, monkeypatch):
    """Sixteen minutes on (the cache's clock moved, not waited for), the counts are gone."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 429
    later = time.time() + 16 * 60
    monkeypatch.setattr("django.core.cache.backends.locmem.time", SimpleNamespace(time=lambda: later))
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 302


def test_client_ip_is_the_remote_address_unless_behind_a_proxy(rf, settings):
    """Without BEHIND_PROXY a client's X-Forwarded-For is ignored."""
    settings.BEHIND_PROXY = False
    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert logins.client_ip(request) == "127.0.0.1"


def test_behind_a_proxy_client_ip_is_the_address_the_proxy_appended(rf, settings):
    """Addresses a client put in X-Forwarded-For itself cannot dodge the count."""
    settings.BEHIND_PROXY = True
    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9")
    assert logins.client_ip(request) == "203.0.113.9"
    assert logins.client_ip(rf.post("/", REMOTE_ADDR="127.0.0.1")) == "127.0.0.1"


def test_an_operator_can_lift_a_pause_early(ada):
    """axes_reset_username and axes_reset_ip (django-axes' commands) clear the counts in the cache."""
    fail(5, usernames=["ada"], ips=[f"10.0.1.{n}" for n in range(5)])
    assert log_in("ada", PASSWORD, ip="10.0.2.1")[0].status_code == 429
    call_command("axes_reset_username", "ada")
    assert log_in("ada", PASSWORD, ip="10.0.2.1")[0].status_code == 302
    fail(5, usernames=[f"guess{n}" for n in range(5)], ips=["10.0.3.1"])
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 429
    call_command("axes_reset_ip", "10.0.3.1")
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 302
