"""Settings come from the environment (django-environ), with safe defaults."""

import dataclasses
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.template import engines
from django.test import Client, RequestFactory
from django.urls import reverse

from comments import conf

REPO = Path(__file__).resolve().parents[3]
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({k: str(getattr(settings, k)) for k in "
    "['DEBUG', 'ALLOWED_HOSTS', 'MONGODB_URI', 'MONGODB_NAME', 'MONGODB_TIMEOUT_MS', "
    "'SECRET_KEY', 'SECURE_SSL_REDIRECT', 'SESSION_COOKIE_SECURE', "
    "'CSRF_COOKIE_SECURE', 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', "
    "'SECURE_HSTS_PRELOAD', 'SECURE_PROXY_SSL_HEADER', 'SITE_URL']} | {'DB': settings.DATABASES['default']['NAME'], "
    "'ENGINE': settings.DATABASES['default']['ENGINE'], 'CACHE': settings.CACHES['default']['BACKEND'], "
    "'CACHE_LOCATION': str(settings.CACHES['default'].get('LOCATION')), "
    "'CACHE_LOCAL': settings.CACHES.get('local', {}).get('BACKEND'), "
    "'COMMENTS_MAX_DEPTH': str(__import__('comments.conf').conf.get().max_depth)}))"
)
# What the apps' own settings come to: which are set in Django's settings, and what the
# comments app and the API read (their defaults for the rest).
APP_PROBE = (
    "import json, dataclasses, django; from django.conf import settings; django.setup(); "
    "from comments import conf; from api import conf as api_conf; "
    "prefixes = ('COMMENTS_', 'NOTIFICATIONS_', 'API_'); "
    "print(json.dumps({'set': sorted(k for k in dir(settings) if k.startswith(prefixes)), "
    "'comments': dataclasses.asdict(conf.get()), 'api': dataclasses.asdict(api_conf.get())}))"
)
APP_PREFIXES = ("COMMENTS_", "NOTIFICATIONS_", "API_")
NAMES = [
    "DEBUG", "ALLOWED_HOSTS", "MONGODB_URI", "MONGODB_NAME", "MONGODB_TIMEOUT_MS",
    "COMMENTS_MAX_DEPTH", "SECRET_KEY", "DATABASE_URL", "HTTPS", "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
    "BEHIND_PROXY", "CACHE_URL", "CSRF_TRUSTED_ORIGINS", "SITE_URL", "PORT", "EMAIL_URL", "DEFAULT_FROM_EMAIL",
]
# What docs/deploy.md tells an operator to set (the cache URL is not contacted by checks).
PRODUCTION = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "DEBUG": "false",
    "ALLOWED_HOSTS": "blog.example.com",
    "HTTPS": "true",
    "BEHIND_PROXY": "true",
    "CACHE_URL": "redis://127.0.0.1:6379/0",
    "SITE_URL": "https://blog.example.com",
    "EMAIL_URL": "smtp+tls://slugline:secret@smtp.example.com:587",
    "DEFAULT_FROM_EMAIL": "Slugline <noreply@blog.example.com>",
}


def clean_env(**env) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in NAMES and not k.startswith(APP_PREFIXES)}
    clean.update(env, DJANGO_SETTINGS_MODULE="slugline.settings")
    return clean


def load_settings(probe: str = PROBE, **env) -> dict:
    """Settings as a fresh process sees them with exactly these variables set."""
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=clean_env(**env), capture_output=True, text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_defaults_are_safe_for_a_fresh_checkout():
    """DEBUG is off, hosts are loopback, Django's database is SQLite under var/."""
    loaded = load_settings()
    assert loaded["DEBUG"] == "False"
    assert "127.0.0.1" in loaded["ALLOWED_HOSTS"]
    assert loaded["ENGINE"] == "django.db.backends.sqlite3"
    assert loaded["DB"].endswith("var/db.sqlite3")
    assert loaded["MONGODB_URI"] == ""
    assert loaded["MONGODB_NAME"] == "slugline"
    assert loaded["SECRET_KEY"] == (REPO / "var" / "secret_key").read_text().strip()


def test_environment_overrides_every_setting():
    """Each documented variable reaches its setting."""
    loaded = load_settings(
        DEBUG="true",
        ALLOWED_HOSTS="blog.example.com,www.example.com",
        MONGODB_URI="mongodb://db.internal:27017/",
        MONGODB_NAME="prod",
        MONGODB_TIMEOUT_MS="750",
        COMMENTS_MAX_DEPTH="4",
        SECRET_KEY="from-the-environment",
        DATABASE_URL="sqlite:////tmp/slugline-elsewhere.sqlite3",
    )
    assert loaded["DEBUG"] == "True"
    assert loaded["ALLOWED_HOSTS"] == str(["blog.example.com", "www.example.com"])
    assert loaded["MONGODB_URI"] == "mongodb://db.internal:27017/"
    assert loaded["MONGODB_NAME"] == "prod"
    assert loaded["MONGODB_TIMEOUT_MS"] == "750"
    assert loaded["COMMENTS_MAX_DEPTH"] == "4"
    assert loaded["SECRET_KEY"] == "from-the-environment"
    assert loaded["DB"] == "/tmp/slugline-elsewhere.sqlite3"



def test_unset_app_settings_are_left_to_the_apps_own_defaults():
    """settings.py writes no default of the comments app or the API but the blog's own
    (its host, its layout, its name): unset, a setting is absent from Django's settings
    and the app's conf (the one place) gives its default."""
    loaded = load_settings(APP_PROBE)
    assert loaded["set"] == ["COMMENTS_BASE_TEMPLATE", "COMMENTS_HOST", "COMMENTS_MODERATION_BASE_TEMPLATE",
                             "COMMENTS_SITE_NAME"]
    blog = {"base_template": "base.html", "site_name": "Slugline",
            "moderation_base_template": "dashboard/moderation_base.html"}
    assert loaded["comments"] == json.loads(json.dumps({**dataclasses.asdict(conf.CommentsSettings()), **blog}))
    assert loaded["api"] == {"rate_per_ip": 600, "rate_per_token": 1200, "rate_window": 60, "counts_max": 50,
                             "cors_origins": [], "max_body_bytes": 64 * 1024}


# A value other than the default for every setting of the comments app, as the environment spells it.
GIVEN = {
    "COMMENTS_STORE": ("embedded", "embedded"),
    "COMMENTS_MODERATION": ("first,links", ["first", "links"]),
    "COMMENTS_DEFAULT_VIEW": ("newest", "newest"),
    "COMMENTS_STORE_RECHECK_SECONDS": ("2.5", 2.5),
    "COMMENTS_BASE_TEMPLATE": ("site/base.html", "site/base.html"),
    "COMMENTS_DISCUSSION_MODEL": ("cms.Tag", "cms.Tag"),
    "COMMENTS_DISCUSSION_SLUG_FIELD": ("name", "name"),
    "COMMENTS_SITE_NAME": ("Tidewater", "Tidewater"),
    "COMMENTS_MODERATION_BASE_TEMPLATE": ("site/moderation.html", "site/moderation.html"),
    "COMMENTS_WHO_MAY_COMMENT": ("members", "members"),
}


def test_every_app_setting_reaches_its_app_from_the_environment():
    """Each variable of the comments app and the API (.env.example) is read when given."""
    env, wanted = {}, {}
    for spec in dataclasses.fields(conf.CommentsSettings):
        name = spec.metadata["name"]
        text, value = GIVEN[name] if name in GIVEN else (str(spec.default + 1), spec.default + 1)
        env[name], wanted[spec.name] = text, value
    env.update(API_RATE_PER_IP="7", API_RATE_PER_TOKEN="8", API_RATE_WINDOW="9", API_COUNTS_MAX="10",
               API_CORS_ORIGINS="https://a.example,https://b.example", API_MAX_BODY_BYTES="2048")
    loaded = load_settings(APP_PROBE, **env)
    assert loaded["comments"] == wanted
    assert loaded["api"] == {"rate_per_ip": 7, "rate_per_token": 8, "rate_window": 9, "counts_max": 10,
                             "cors_origins": ["https://a.example", "https://b.example"],
                             "max_body_bytes": 2048}
    assert set(loaded["set"]) == {"COMMENTS_HOST", "COMMENTS_BASE_TEMPLATE", "COMMENTS_MODERATION_BASE_TEMPLATE",
                                  "COMMENTS_SITE_NAME", *env}


def test_plain_http_is_the_default_so_make_run_works_locally():
    """Without HTTPS, nothing redirects to https, cookies travel over http, no HSTS,
    no proxy header is trusted and the cache is per process (but for allauth's keys,
    which go to a table of Django's database: slugline/caches.py)."""
    loaded = load_settings()
    assert loaded["SECURE_SSL_REDIRECT"] == loaded["SESSION_COOKIE_SECURE"] == "False"
    assert loaded["CSRF_COOKIE_SECURE"] == "False"
    assert loaded["SECURE_HSTS_SECONDS"] == "0"
    assert loaded["SECURE_PROXY_SSL_HEADER"] == "None"
    assert loaded["CACHE"] == "slugline.caches.SplitCache"
    assert loaded["CACHE_LOCAL"] == "django.core.cache.backends.locmem.LocMemCache"


def test_https_turns_on_the_redirect_secure_cookies_and_a_year_of_hsts():
    """HTTPS=true is the one switch; the HSTS details can still be set one by one."""
    loaded = load_settings(HTTPS="true")
    assert loaded["SECURE_SSL_REDIRECT"] == loaded["SESSION_COOKIE_SECURE"] == "True"
    assert loaded["CSRF_COOKIE_SECURE"] == "True"
    assert loaded["SECURE_HSTS_SECONDS"] == str(365 * 24 * 3600)
    assert loaded["SECURE_HSTS_INCLUDE_SUBDOMAINS"] == loaded["SECURE_HSTS_PRELOAD"] == "True"
    staged = load_settings(HTTPS="true", SECURE_HSTS_SECONDS="3600", SECURE_HSTS_PRELOAD="false")
    assert (staged["SECURE_HSTS_SECONDS"], staged["SECURE_HSTS_PRELOAD"]) == ("3600", "False")


def test_the_proxy_ssl_header_is_trusted_only_when_opted_in():
    """BEHIND_PROXY=true trusts X-Forwarded-Proto; HTTPS alone does not."""
    assert load_settings(HTTPS="true")["SECURE_PROXY_SSL_HEADER"] == "None"
    trusted = load_settings(BEHIND_PROXY="true")["SECURE_PROXY_SSL_HEADER"]
    assert trusted == str(("HTTP_X_FORWARDED_PROTO", "https"))


def test_cache_url_puts_the_cache_in_redis():
    """CACHE_URL=redis://… selects Django's own Redis backend at that address."""
    loaded = load_settings(CACHE_URL="redis://cache.internal:6379/2")
    assert loaded["CACHE"] == "django.core.cache.backends.redis.RedisCache"
    assert loaded["CACHE_LOCATION"] == "redis://cache.internal:6379/2"


def test_mail_links_default_to_the_port_the_site_listens_on():
    """Unset, SITE_URL is this machine on PORT (8000 without one); set, it wins."""
    assert load_settings()["SITE_URL"] == "http://127.0.0.1:8000"
    assert load_settings(PORT="8137")["SITE_URL"] == "http://127.0.0.1:8137"
    assert load_settings(PORT="8137", SITE_URL="https://blog.example.com/")["SITE_URL"] == "https://blog.example.com"


def manage(*args: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=clean_env(**env), capture_output=True, text=True,
        check=False,
    )


def test_deploy_check_passes_with_a_production_environment():
    """`check --deploy --fail-level WARNING` finds nothing to warn about."""
    done = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_deploy_check_fails_on_a_development_environment():
    """The same check names what a laptop's settings lack, so it can catch a bad deploy:
    mail written as files under var/ from noreply@localhost among them."""
    done = manage("check", "--deploy", "--fail-level", "WARNING", SECRET_KEY=PRODUCTION["SECRET_KEY"])
    assert done.returncode != 0
    for warning in ["security.W004", "security.W008", "security.W012", "security.W016", "cms.W001", "cms.W002",
                    "cms.W003", "cms.W004"]:
        assert warning in done.stderr


def assert_security_headers(response) -> None:
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    directives = [directive.split() for directive in response["Content-Security-Policy"].split("; ")]
    policy = {name: sources for name, *sources in directives}
    assert policy["script-src"][0] == "'self'"
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-inline'" not in policy["default-src"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]


@pytest.fixture
def pages(make_post, make_comment, make_user):
    """The home page, a post page and the dashboard, as an author sees them."""
    post = make_post()
    make_comment(post)
    client = Client()
    client.force_login(make_user("ada"))
    return client, [reverse("home"), reverse("post", args=[post.slug]), reverse("dashboard:posts")]


def test_pages_carry_the_security_headers(pages):
    """Framing denied, no sniffing, same-origin referrers, and a CSP without inline scripts."""
    client, urls = pages
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_security_headers(response)


def test_pages_over_https_carry_hsts_in_production(pages, settings):
    """With production's HSTS settings, answers over HTTPS tell browsers to stay on it."""
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = settings.SECURE_HSTS_PRELOAD = True
    client, urls = pages
    for url in urls:
        response = client.get(url, secure=True)
        assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload", url
        assert_security_headers(response)


def test_an_inline_script_runs_only_with_the_request_nonce(rf: RequestFactory):
    """A template's `{{ CSP_NONCE }}` is the nonce the policy names for scripts."""
    from csp.middleware import CSPMiddleware
    from django.http import HttpResponse

    template = engines["django"].from_string('<script nonce="{{ CSP_NONCE }}">go()</script>')
    middleware = CSPMiddleware(lambda request: HttpResponse(template.render(request=request)))
    request = rf.get("/")
    response = middleware(request)
    nonce = re.search(r'nonce="([^"]+)"', response.content.decode()).group(1)
    directives = response["Content-Security-Policy"].split("; ")
    script_src = next(d for d in directives if d.startswith("script-src"))
    assert script_src == f"script-src 'self' 'nonce-{nonce}'"


def test_pages_link_hashed_static_files_that_whitenoise_serves_compressed(client, db):
    """The stylesheet has a content-hashed name, comes gzipped and is cached for good."""
    page = client.get(reverse("login")).content.decode()
    href = re.search(r'href="(/static/css/slugline\.[0-9a-f]{12}\.css)"', page).group(1)
    response = client.get(href, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]


def test_with_https_plain_http_redirects_except_for_health_probes(client, settings, db):
    """Readers are sent to https; load balancers' probes over http still get their answer."""
    settings.SECURE_SSL_REDIRECT = True
    home = client.get(reverse("home"))
    assert home.status_code == 301 and home["Location"].startswith("https://")
    assert client.get(reverse("health_live")).status_code == 200
