"""The deploy checks on mail (slugline/checks.py): mail goes to a mail server, from an
address of a real domain."""

import pytest

from slugline import checks


@pytest.mark.parametrize("backend,fate", [
    ("django.core.mail.backends.filebased.EmailBackend", "written as files under /srv/var/mail"),
    ("django.core.mail.backends.console.EmailBackend", "printed on the terminal"),
    ("django.core.mail.backends.locmem.EmailBackend", "kept in memory"),
    ("django.core.mail.backends.dummy.EmailBackend", "thrown away"),
])
def test_mail_that_reaches_no_mail_server_is_a_deploy_warning(settings, backend, fate):
    settings.EMAIL_BACKEND, settings.EMAIL_FILE_PATH = backend, "/srv/var/mail"
    [warning] = checks.mail_delivered(None)
    assert warning.id == "cms.W003" and warning.msg == checks.MAIL_UNDELIVERED.format(fate=fate)
    assert "EMAIL_URL" in warning.hint


def test_mail_sent_by_smtp_passes(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert checks.mail_delivered(None) == []


@pytest.mark.parametrize("sender", [
    "Slugline <noreply@localhost>", "noreply@localhost", "root@myhost", "a@127.0.0.1", "a@[127.0.0.1]",
    "a@[::1]", "blog@laptop.local", "Slugline <noreply@LOCALHOST.>", "nobody", "a@app.localhost",
])
def test_a_local_sender_is_a_deploy_warning(settings, sender):
    settings.DEFAULT_FROM_EMAIL = sender
    [warning] = checks.mail_sender(None)
    assert warning.id == "cms.W004" and sender in warning.msg


@pytest.mark.parametrize("sender", ["Slugline <noreply@blog.example.com>", "news@example.org",
                                    "a@[192.0.2.10]"])
def test_a_sender_of_a_real_domain_passes(settings, sender):
    settings.DEFAULT_FROM_EMAIL = sender
    assert checks.mail_sender(None) == []
