"""Health endpoints: live never touches a database; ready names the failing part."""

import pytest
from django.db.utils import OperationalError

from slugline import health


def test_live_answers_without_any_database(client, mongodb_down, commands):
    """/healthz/live is 200 even with MongoDB gone, and sends it nothing."""
    commands.reset()
    response = client.get("/healthz/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert commands.count == 0


@pytest.mark.django_db
def test_ready_is_200_when_both_databases_answer(client):
    """Both checks pass on a healthy site."""
    response = client.get("/healthz/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"django_db": "ok", "mongodb": "ok"}}


@pytest.mark.django_db
def test_ready_names_mongodb_when_it_is_down_and_leaks_no_address(client, mongodb_down):
    """503 names the failing part; the server's address is not in the answer."""
    response = client.get("/healthz/ready")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "checks": {"django_db": "ok", "mongodb": "unavailable"}}
    assert b"127.0.0.1" not in response.content


class BrokenConnection:
    def cursor(self):
        raise OperationalError("unable to open database file")


def test_ready_names_the_django_database_when_it_is_down(client, monkeypatch):
    """A Django database that refuses connections makes ready 503 with that part named."""
    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = client.get("/healthz/ready")
    assert response.status_code == 503
    assert response.json()["checks"] == {"django_db": "unavailable", "mongodb": "ok"}


def test_every_answer_carries_a_request_id(client):
    """A new id per request, or the caller's own when it looks like one."""
    first = client.get("/healthz/live")["X-Request-Id"]
    second = client.get("/healthz/live")["X-Request-Id"]
    assert first != second and len(first) == 32
    assert client.get("/healthz/live", HTTP_X_REQUEST_ID="lb-1234abcd")["X-Request-Id"] == "lb-1234abcd"
    assert client.get("/healthz/live", HTTP_X_REQUEST_ID="bad id\n")["X-Request-Id"] != "bad id\n"
