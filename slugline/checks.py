"""Slugline's own system checks, registered in `SluglineConfig.ready()`."""

from email.utils import parseaddr
from urllib.parse import urlsplit

from django.conf import settings
from django.core import checks

PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
    "django.core.cache.backends.filebased.FileBasedCache",
)
CACHE_PER_PROCESS = (
    "The cache is per process: gunicorn's workers would each keep their own copies of "
    "pages and rendered comments."
)
CACHE_HINT = "Set CACHE_URL to a shared cache, e.g. redis://127.0.0.1:6379/0 (docs/deploy.md)."


@checks.register(checks.Tags.security, checks.Tags.caches, deploy=True)
def shared_cache(app_configs, **kwargs):
    """A deployment's workers share one cache (pages' last good copies, rendered comments)."""
    if _pages_cache_backend() in PER_PROCESS_CACHES:
        return [checks.Warning(CACHE_PER_PROCESS, hint=CACHE_HINT, id="cms.W001")]
    return []


def _pages_cache_backend() -> str:
    """The backend pages and rendered comments are cached in: the default cache's, or
    with slugline.caches.SplitCache (a per-process default whose allauth keys alone go
    to a shared table) its local alias's."""
    default = settings.CACHES["default"]
    if default["BACKEND"] == "slugline.caches.SplitCache":
        return settings.CACHES[default["OPTIONS"]["LOCAL"]]["BACKEND"]
    return default["BACKEND"]


LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
SITE_URL_LOOPBACK = (
    "SITE_URL is {url}: every link in notification mail would lead to the reader's own "
    "machine."
)
SITE_URL_HINT = "Set SITE_URL to the address readers use, e.g. https://blog.example.com (docs/deploy.md)."


@checks.register(deploy=True)
def site_url(app_configs, **kwargs):
    """A deployment's mail links (SITE_URL) name the site, not this machine's loopback."""
    host = urlsplit(settings.SITE_URL).hostname or ""
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        return [checks.Warning(SITE_URL_LOOPBACK.format(url=settings.SITE_URL), hint=SITE_URL_HINT,
                               id="cms.W002")]
    return []


# Mail backends that deliver nothing to anyone: files, the terminal, memory, nowhere.
UNDELIVERED_MAIL_BACKENDS = {
    "django.core.mail.backends.filebased.EmailBackend": "written as files under {path}",
    "django.core.mail.backends.console.EmailBackend": "printed on the terminal",
    "django.core.mail.backends.locmem.EmailBackend": "kept in memory",
    "django.core.mail.backends.dummy.EmailBackend": "thrown away",
}
MAIL_UNDELIVERED = (
    "Notification mail is never delivered: without EMAIL_URL naming a mail server it is {fate}."
)
MAIL_HINT = (
    "Set EMAIL_URL to the mail server, e.g. smtp+tls://user:password@smtp.example.com:587, "
    "and run the mail sender (the Procfile's mail: process; docs/deploy.md)."
)
LOCAL_SENDER = (
    "DEFAULT_FROM_EMAIL is {sender}: readers' mail servers refuse or bury mail from a "
    "local address, and replies to it reach no one."
)
SENDER_HINT = (
    "Set DEFAULT_FROM_EMAIL to an address of the site's own domain, e.g. "
    "Slugline <noreply@blog.example.com> (docs/deploy.md)."
)
LOCAL_DOMAIN_ENDINGS = (".localhost", ".local", ".localdomain", ".internal")


@checks.register(deploy=True)
def mail_delivered(app_configs, **kwargs):
    """A deployment sends its mail to a mail server, not to files or the terminal."""
    fate = UNDELIVERED_MAIL_BACKENDS.get(settings.EMAIL_BACKEND)
    if fate is None:
        return []
    fate = fate.format(path=getattr(settings, "EMAIL_FILE_PATH", ""))
    return [checks.Warning(MAIL_UNDELIVERED.format(fate=fate), hint=MAIL_HINT, id="cms.W003")]


def is_local_domain(domain: str) -> bool:
    """Whether a mail domain names this machine or a private network, not the site."""
    domain = domain.strip("[]").rstrip(".").lower()
    return (not domain or ("." not in domain and ":" not in domain) or domain in LOOPBACK_HOSTS
            or domain.startswith("127.") or domain.endswith(LOCAL_DOMAIN_ENDINGS))


@checks.register(deploy=True)
def mail_sender(app_configs, **kwargs):
    """A deployment's mail comes from an address of a real domain (DEFAULT_FROM_EMAIL)."""
    sender = settings.DEFAULT_FROM_EMAIL
    address = parseaddr(sender)[1]
    if is_local_domain(address.rpartition("@")[2]):
        return [checks.Warning(LOCAL_SENDER.format(sender=sender), hint=SENDER_HINT, id="cms.W004")]
    return []
