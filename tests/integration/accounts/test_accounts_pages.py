"""The account pages in the site: who lands where after signing in, what the header
shows, that signing up never makes an editor, that the pages run under the site's
Content-Security-Policy, and how allauth's limits answer."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client, RequestFactory

from accounts.adapter import AccountAdapter
from accounts.forms import SignupForm, clean_display_name
from tests import smtp

smtp_server = smtp.smtp_server  # the fixture

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough passphrase 7"
ACCOUNT_PAGES = ["/accounts/login/", "/accounts/signup/", "/accounts/login/code/", "/accounts/password/reset/"]


@pytest.fixture
def editor(make_user):
    user = make_user("ada", role="editor")
    user.email = "ada@example.org"
    user.set_password(PASSWORD)
    user.save()
    return user


def sign_in(client: Client, login: str, *, next_url: str | None = None, password: str = PASSWORD):
    data = {"login": login, "password": password}
    if next_url is not None:
        data["next"] = next_url
    return client.post("/accounts/login/", data)


def test_editors_land_on_the_dashboard_by_username_or_address(editor):
    for login in ("ada", "ADA", "ada@example.org"):
        client = Client()
        response = sign_in(client, login)
        assert response.status_code == 302 and response["Location"] == "/dashboard/", login
        assert client.get("/dashboard/").status_code == 200


def test_readers_go_back_where_they_came_from_else_home(make_verified_reader, make_post):
    make_verified_reader("rosa@example.org")
    post = make_post(slug="harbour")
    assert sign_in(Client(), "rosa@example.org", next_url=f"/posts/{post.slug}/")["Location"] == "/posts/harbour/"
    assert sign_in(Client(), "rosa@example.org")["Location"] == "/"
    assert sign_in(Client(), "rosa@example.org", next_url="https://elsewhere.example/")["Location"] == "/"


def test_the_header_offers_sign_in_and_up_to_strangers_and_the_account_to_readers(make_verified_reader, make_post):
    post = make_post(slug="harbour")
    stranger = Client().get(f"/posts/{post.slug}/").content.decode()
    assert 'href="/accounts/login/?next=%2Fposts%2Fharbour%2F">Sign in</a>' in stranger
    assert 'href="/accounts/signup/?next=%2Fposts%2Fharbour%2F">Sign up</a>' in stranger
    make_verified_reader("rosa@example.org", name="Rosa Parks")
    client = Client()
    sign_in(client, "rosa@example.org")
    mine = client.get(f"/posts/{post.slug}/").content.decode()
    assert '<a class="account-link" href="/accounts/email/">Rosa Parks</a>' in mine
    assert 'action="/accounts/logout/"' in mine and ">Sign out</button>" in mine
    assert "Sign in</a>" not in mine and 'href="/dashboard/"' not in mine


def test_signing_up_never_makes_an_editor(smtp_server):
    """Whatever the form sends, a new account is no staff, no superuser, in no group,
    with no permission; and it cannot open the dashboard."""
    perm = Permission.objects.first()
    client = Client()
    client.post("/accounts/signup/", {"email": "mallory@example.org", "display_name": "Mallory",
                                      "password1": PASSWORD, "is_staff": "on", "is_superuser": "on",
                                      "groups": "1", "user_permissions": str(perm.pk)})
    user = get_user_model().objects.get(email="mallory@example.org")
    assert (user.is_staff, user.is_superuser, user.groups.count(), user.user_permissions.count()) == (
        False, False, 0, 0)
    code = re.search(r"^ {4}(\S+)\r?$", smtp.text_of(smtp_server.inbox.messages[-1]), re.MULTILINE).group(1)
    client.post("/accounts/confirm-email/", {"code": code})
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.get("/dashboard/").status_code == 403


def test_the_adapter_saves_no_new_account_as_staff():
    """The last guard (AccountAdapter.save_user), whichever form or provider made the user."""
    request = RequestFactory().post("/accounts/signup/")
    form = SignupForm(data={"email": "eve@example.org", "display_name": "Eve", "password1": PASSWORD})
    assert form.is_valid(), form.errors
    user = get_user_model()(is_staff=True, is_superuser=True)
    saved = AccountAdapter(request).save_user(request, user, form)
    saved.refresh_from_db()
    assert not saved.is_staff and not saved.is_superuser


@pytest.mark.parametrize("name", ["\u200d\u200c", "Rosa\u0007", "\ue000 private"])
def test_a_display_name_needs_a_letter_and_no_control_characters(name):
    form = SignupForm(data={"email": "eve@example.org", "display_name": name, "password1": PASSWORD})
    assert not form.is_valid() and "display_name" in form.errors


def test_a_display_name_keeps_its_script_and_loses_extra_spaces():
    assert clean_display_name("  नमस्ते   दुनिया ") == "नमस्ते दुनिया"
    assert clean_display_name("Nguyễn\tThu Hà") == "Nguyễn Thu Hà"


@pytest.mark.parametrize("path", ACCOUNT_PAGES)
def test_the_account_pages_run_under_the_sites_content_security_policy(path):
    """Scripts only from this site or as JSON data (allauth's passkey and form helpers
    read their settings from `<script type="application/json">`), no inline handlers,
    no style attributes: nothing the policy would block."""
    response = Client().get(path)
    html = response.content.decode()
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy and "unsafe-inline" not in policy
    assert 'class="site-header"' in html and 'class="site-footer"' in html
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert re.search(r'src="/static/', tag) or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+=", html) and " style=" not in html


def test_a_refused_sign_up_is_a_429_in_the_sites_layout(settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "2/m/ip"}
    answers = [Client().post("/accounts/signup/", {"email": f"r{n}@example.org", "display_name": "R",
                                                    "password1": PASSWORD}) for n in range(3)]
    assert [a.status_code for a in answers] == [302, 302, 429]
    page = answers[-1].content.decode()
    assert 'class="site-header"' in page and "Too many tries" in page


@pytest.mark.parametrize("path, refused, says", [
    ("/accounts/login/code/", 200, "Too many tries for this account"),
    ("/accounts/password/reset/", 429, "Too many tries"),
])
def test_codes_for_one_address_stop_at_its_limit_known_or_not(smtp_server, make_verified_reader, path, refused, says):
    """Three codes (to sign in, to reset the password) per address in five minutes; the
    fourth request is refused the same way whether an account has the address, and
    mails nothing."""
    make_verified_reader("rosa@example.org")
    for address in ("rosa@example.org", "nobody@example.org"):
        answers = [Client().post(path, {"email": address}) for _ in range(4)]
        assert [a.status_code for a in answers] == [302, 302, 302, refused]
        assert says in answers[-1].content.decode()
        assert len(smtp_server.inbox.to(address)) == 3


def test_an_address_and_a_username_are_one_count_for_the_lockout(editor, settings):
    """Axes counts ada's failures under her username whichever login she typed, so
    switching between them buys no extra guesses."""
    for login in ("ada@example.org", "ADA", "ada", "Ada@Example.org", "ada"):
        assert sign_in(Client(REMOTE_ADDR="10.0.0.9"), login, password="wrong").status_code in (200, 429)
    assert sign_in(Client(REMOTE_ADDR="10.0.0.9"), "ada").status_code == 429
    assert sign_in(Client(REMOTE_ADDR="10.0.0.10"), "ada").status_code == 302


@pytest.mark.parametrize("path", ["/accounts/email/", "/accounts/password/change/", "/accounts/2fa/",
                                  "/accounts/sessions/", "/accounts/logout/"])
def test_a_readers_own_account_pages_are_in_the_sites_layout(path, make_verified_reader):
    make_verified_reader("rosa@example.org")
    client = Client()
    sign_in(client, "rosa@example.org")
    response = client.get(path)
    html = response.content.decode()
    assert response.status_code == 200 and 'class="site-header"' in html and 'class="site-footer"' in html
    if path != "/accounts/logout/":
        assert '<nav class="account-nav"' in html and 'aria-current="page"' in html


def test_an_unverified_account_cannot_sign_in_with_its_password(smtp_server, settings):
    """Until its code comes back, a password sign-in mails a new code and asks for it,
    once the pause between two codes for one address (10 seconds) is over: right after
    signing up, the form says to wait."""
    Client().post("/accounts/signup/", {"email": "rosa@example.org", "display_name": "Rosa", "password1": PASSWORD})
    too_soon = sign_in(Client(), "rosa@example.org")
    assert too_soon.status_code == 200 and "Too many tries for this account" in too_soon.content.decode()
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "confirm_email": ""}  # the pause, over
    client = Client()
    response = sign_in(client, "rosa@example.org")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert "_auth_user_id" not in client.session
    assert len(smtp_server.inbox.to("rosa@example.org")) == 2
