"""Login throttling (django-axes on Django's database, slugline/logins.py): too many bad
passwords for one account from one address pause logging in as it from there for a
while, and the login page says so in the site's layout. Other addresses are not
paused. tests/integration/slugline/test_limits_http.py checks the pause across gunicorn workers and a
restart."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django.urls import reverse

from infra import clients
from slugline import logins

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _fast_hasher(settings, db):
    """A fast password hasher: these tests check many passwords. (Failure counts are
    rows of Django's test database, rolled back after each test.)"""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ada(make_user):
    user = make_user("ada")
    user.set_password(PASSWORD)
    user.save()
    return user


def _login_field(path: str | None) -> str:
    """The site's login page (allauth's) names its field "login"; the admin's, "username"."""
    return "login" if path is None else "username"


def log_in(username: str, password: str, *, ip: str, path: str | None = None):
    client = Client(REMOTE_ADDR=ip)
    response = client.post(path or reverse("login"), {_login_field(path): username, "password": password})
    return response, client


def locked_out_text(minutes: int = 15) -> str:
    return logins.LOCKED_OUT.format(minutes=minutes)


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


def test_bad_passwords_for_an_account_pause_it_from_that_address_only(ada):
    """Five failures for one username from one address refuse even the right password
    from there, with the reason on the login page and the pause left in Retry-After;
    the same account logs in from another address."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    response, client = log_in("ada", PASSWORD, ip="10.0.0.1")
    page = response.content.decode()
    assert response.status_code == 429
    assert 890 <= int(response["Retry-After"]) <= 900
    assert locked_out_text() in page
    assert 'class="site-header"' in page and 'name="password"' in page
    assert "_auth_user_id" not in client.session
    assert log_in("ada", PASSWORD, ip="10.0.0.2")[0].status_code == 302


def test_strangers_from_many_addresses_cannot_lock_an_account_out(ada):
    """Failures for one username spread over many addresses (a botnet guessing, or
    someone who wants the editor kept out) pause none of them, and the owner logs in."""
    fail(20, usernames=["ada"], ips=[f"10.0.1.{n}" for n in range(5)])
    assert log_in("ada", PASSWORD, ip="10.0.2.1")[0].status_code == 302


def test_failures_for_other_accounts_do_not_pause_an_address(ada):
    """Counted per username and address together: guesses at other usernames from an
    address leave its own users free to log in."""
    fail(5, usernames=[f"guess{n}" for n in range(5)], ips=["10.0.0.1"])
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 302


def test_the_counts_are_kept_in_the_database_not_in_the_process(ada):
    """Clearing this process's cache (a restart, another worker) keeps the pause: the
    failures are Django database rows, one per username, address and user agent."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    cache.clear()
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 429
    assert list(AccessAttempt.objects.values_list("username", "ip_address", "failures_since_start")) == [
        ("ada", "10.0.0.1", 5)
    ]


def test_the_admin_login_is_throttled_too(ada):
    """Axes guards every authentication, so the admin's login is no way around it."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    response, _ = log_in("ada", PASSWORD, ip="10.0.0.1", path=reverse("admin:login"))
    assert response.status_code == 429


def test_failures_during_a_pause_do_not_extend_it(ada):
    """A lock ends the cool-off after it began: more tries while paused change nothing
    (the pause left only shrinks)."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=10))
    fail(3, usernames=["ada"], ips=["10.0.0.1"])
    response, _ = log_in("ada", PASSWORD, ip="10.0.0.1")
    assert response.status_code == 429
    assert 290 <= int(response["Retry-After"]) <= 300
    assert locked_out_text(minutes=5) in response.content.decode()
    assert AccessAttempt.objects.get().failures_since_start == 5


def test_the_pause_ends_after_the_cool_off(ada):
    """Sixteen minutes on (the stored failures aged, not waited for), logging in works."""
    fail(5, usernames=["ada"], ips=["10.0.0.1"])
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 429
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=16))
    assert log_in("ada", PASSWORD, ip="10.0.0.1")[0].status_code == 302


def test_client_ip_is_the_remote_address_unless_behind_a_proxy(rf, settings):
    """Without BEHIND_PROXY a client's X-Forwarded-For is ignored."""
    settings.BEHIND_PROXY = False
    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert clients.client_ip(request) == "127.0.0.1"


def test_behind_a_proxy_client_ip_is_the_address_the_proxy_appended(rf, settings):
    """Addresses a client put in X-Forwarded-For itself cannot dodge the count."""
    settings.BEHIND_PROXY = True
    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9")
    assert clients.client_ip(request) == "203.0.113.9"
    assert clients.client_ip(rf.post("/", REMOTE_ADDR="127.0.0.1")) == "127.0.0.1"


def test_an_operator_can_lift_a_pause_early(ada):
    """axes_reset_username and axes_reset_ip (django-axes' commands) delete the counts."""
    fail(5, usernames=["ada"], ips=["10.0.3.1"])
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 429
    call_command("axes_reset_username", "ada")
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 302
    fail(5, usernames=["ada"], ips=["10.0.3.1"])
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 429
    call_command("axes_reset_ip", "10.0.3.1")
    assert log_in("ada", PASSWORD, ip="10.0.3.1")[0].status_code == 302


def test_the_lockout_counts_under_the_username_of_the_one_account_a_login_names(ada):
    """Axes's name for a try (slugline.logins.axes_username): the username of the
    account the login names, by username in any case, by an allauth address or by the
    account's own address; the login itself, lower case, when no one account has it."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    rosa = users.create_user(username="rosa", email="rosa@example.org")
    EmailAddress.objects.create(user=rosa, email="rosa.park@example.org", verified=True, primary=False)
    ada.email = "ada@example.org"
    ada.save()
    users.create_user(username="ivo", email="shared@example.org")
    users.create_user(username="eve", email="shared@example.org")
    named = {login: logins.axes_username(None, {"username": login}) for login in (
        "ADA", "ada@example.org", "Rosa.Park@Example.org", "ROSA@example.org", "shared@example.org", "Nobody")}
    assert named == {"ADA": "ada", "ada@example.org": "ada", "Rosa.Park@Example.org": "rosa",
                     "ROSA@example.org": "rosa", "shared@example.org": "shared@example.org", "Nobody": "nobody"}
