"""The webhooks' pure parts: the signature a receiver checks, which URLs may be
called, the retry schedule, and the HTTP exchange's bytes."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from datetime import UTC, datetime, timedelta

import pytest

from webhooks import deliveries, signing, targets, transport


def test_the_signature_is_the_hmac_of_the_time_a_dot_and_the_body():
    body = b'{"id":"evt_1"}'
    expected = hmac.new(b"whsec_k", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert signing.header(secret="whsec_k", timestamp=1700000000, body=body) == f"t=1700000000,v1={expected}"


@pytest.mark.parametrize("change", ["secret", "body", "old", "garbled"])
def test_a_signature_fails_for_another_secret_body_time_or_form(change):
    body, now = b'{"id":"evt_1"}', 1700000000
    value = signing.header(secret="whsec_k", timestamp=now, body=body)
    assert signing.verify(secret="whsec_k", value=value, body=body, now=now + 60)
    checked = {"secret": "whsec_k", "value": value, "body": body, "now": now}
    assert signing.verify(**checked)
    checked.update({"secret": {"secret": "whsec_other"}, "body": {"body": body + b" "},
                    "old": {"now": now + 301}, "garbled": {"value": "t=x,v1=00"}}[change])
    assert not signing.verify(**checked)


def test_new_secrets_differ_and_carry_the_prefix():
    first, second = signing.new_secret(), signing.new_secret()
    assert first != second and first.startswith(signing.PREFIX) and len(first) > 40


@pytest.mark.parametrize("url, code", [
    ("ftp://example.com/", "bad_url"), ("example.com/hook", "bad_url"), ("https:///x", "bad_url"),
    ("https://exa mple.com/", "bad_url"), ("http://example.com:99999/", "bad_url"),
    ("https://user:pw@example.com/", "credentials"), ("https://example.com/" + "a" * 2000, "too_long"),
])
def test_urls_a_webhook_may_not_have(url, code):
    with pytest.raises(targets.BadTarget) as refused:
        targets.parse(url)
    assert refused.value.code == code


def test_a_url_gives_its_port_and_path_with_query():
    assert targets.parse("https://example.com/in?k=1") == ("https", "example.com", 443, "/in?k=1")
    assert targets.parse("http://example.com:8080") == ("http", "example.com", 8080, "/")


@pytest.mark.parametrize("address, public", [
    ("93.184.216.34", True), ("2606:2800:220:1::1", True), ("127.0.0.1", False), ("10.1.2.3", False),
    ("172.16.0.1", False), ("192.168.1.1", False), ("169.254.169.254", False), ("100.64.0.1", False),
    ("0.0.0.0", False), ("::1", False), ("fe80::1", False), ("fd00::1", False), ("::ffff:127.0.0.1", False),
    ("::ffff:93.184.216.34", True), ("224.0.0.1", False),
])
def test_only_public_addresses_are_public(address, public):
    assert targets.is_public(ipaddress.ip_address(address)) is public


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/hook", "http://[::1]/", "http://169.254.169.254/latest"])
def test_a_private_address_is_refused_unless_allowed(url):
    with pytest.raises(targets.BadTarget, match=targets.PRIVATE):
        targets.check(url, allow_private=False)
    assert targets.check(url, allow_private=True).addresses


def test_the_retry_schedule_doubles_to_an_hour_and_ends_after_a_day():
    assert [deliveries.retry_delay(n).total_seconds() for n in range(1, 10)] == [
        30, 60, 120, 240, 480, 960, 1920, 3600, 3600]
    created = now = datetime(2025, 1, 1, tzinfo=UTC)
    failures = 0
    while (due := deliveries.next_attempt(created=created, failures=failures + 1, now=now,
                                          window=timedelta(days=1))) is not None:
        failures, now = failures + 1, due
    assert 25 <= failures + 1 <= 32 and created + timedelta(hours=23) <= now <= created + timedelta(days=1)


def test_the_request_names_the_host_and_closes_and_the_status_line_is_read():
    target = targets.Target(scheme="https", host="example.com", port=8443, path="/in", addresses=("1.2.3.4",))
    sent = transport.request_bytes(target, body=b"{}", headers={"Slugline-Event": "comment.posted"})
    assert sent.startswith(b"POST /in HTTP/1.1\r\nHost: example.com:8443\r\n")
    assert sent.endswith(b"\r\n\r\n{}")
    assert b"Connection: close\r\n" in sent and b"Content-Length: 2\r\n" in sent
    assert transport.status_of(b"HTTP/1.1 204 No Content\r\n") == 204
    assert transport.status_of(b"SSH-2.0-OpenSSH\r\n") is None
    assert transport.status_of(b"HTTP/1.1 2000 x") is None
