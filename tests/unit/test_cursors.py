"""comments/reading/cursors.py: signed page cursors round-trip, and anything altered,
misplaced or malformed is refused with BadCursor."""

from __future__ import annotations

import re
import string
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId
from django.core import signing
from hypothesis import given, settings
from hypothesis import strategies as st

from comments.reading import cursors
from comments.reading.cursors import BAD_CURSOR, BadCursor, Cursor
from comments.records import ORDERS

SCOPE = "65a1b2c3d4e5f60718293a4b"
SUBTHREAD_SCOPE = f"{SCOPE}/abcdefgh/234567ab"
OID = ObjectId("65a1b2c3d4e5f60718293a4c")
WHEN = datetime(2026, 11, 29, 20, 41, 7, 123000, tzinfo=timezone.utc)
FULL = "2026.11.29.20.41.07.123456:abcdefgh/2026.11.29.20.41.08.000001:234567ab"
THREAD = "2026.11.29.20.41.07.123456:abcdefgh"

KEYS = {
    "threaded": (FULL,),
    "chronological": (WHEN, OID),
    "newest": (THREAD, FULL),
}


def refused(token: str, *, view: str, scope: str = SCOPE):
    """Assert decode refuses `token` with BadCursor and the reader's message."""
    with pytest.raises(BadCursor, match=re.escape(BAD_CURSOR)):
        cursors.decode(token, view=view, scope=scope)


def forge(payload) -> str:
    """A payload signed exactly as cursors signs, so only its shape is wrong."""
    return signing.dumps(payload, salt=cursors.SALT, compress=True)


def test_every_view_has_a_key_here():
    """The examples below cover every view of ORDERS, with keys of the right length."""
    assert set(KEYS) == set(ORDERS)
    assert all(len(KEYS[view]) == len(ORDERS[view]) for view in ORDERS)


# --- round trips ----------------------------------------------------------------------


@pytest.mark.parametrize("view", sorted(ORDERS))
@pytest.mark.parametrize("scope", [SCOPE, SUBTHREAD_SCOPE])
def test_encode_then_decode_gives_back_the_key_and_page(view, scope):
    """A cursor decodes, for its own view and scope, to the same key and page."""
    token = cursors.encode(view=view, scope=scope, key=KEYS[view], page=3)
    assert cursors.decode(token, view=view, scope=scope) == Cursor(key=KEYS[view], page=3)


def test_chronological_cursor_restores_object_id_and_aware_datetime_types():
    """The chronological key comes back as an aware datetime and an ObjectId, not strings."""
    token = cursors.encode(view="chronological", scope=SCOPE, key=(WHEN, OID), page=1)
    posted, oid = cursors.decode(token, view="chronological", scope=SCOPE).key
    assert isinstance(posted, datetime) and posted.utcoffset() == timedelta(0)
    assert posted == WHEN
    assert isinstance(oid, ObjectId) and oid == OID


def test_encoded_cursor_is_url_safe():
    """A token only uses characters that need no escaping in a query string."""
    token = cursors.encode(view="newest", scope=SCOPE, key=KEYS["newest"], page=12)
    assert set(token) <= set(string.ascii_letters + string.digits + "-_:.")


_offsets = st.sampled_from(
    [timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-11)),
     timezone(timedelta(hours=14))]
)


@settings(max_examples=100)
@given(
    posted=st.datetimes(
        min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=_offsets
    ),
    oid_bytes=st.binary(min_size=12, max_size=12),
    page=st.integers(1, 10**9),
    scope=st.text(min_size=1, max_size=30),
)
def test_chronological_cursor_round_trips_any_instant_and_object_id(posted, oid_bytes, page, scope):
    """Any aware datetime (to the microsecond, any offset) and ObjectId survive a round trip."""
    oid = ObjectId(oid_bytes)
    token = cursors.encode(view="chronological", scope=scope, key=(posted, oid), page=page)
    cursor = cursors.decode(token, view="chronological", scope=scope)
    assert cursor == Cursor(key=(posted, oid), page=page)
    assert cursor.key[0].utcoffset() == posted.utcoffset()


@settings(max_examples=100)
@given(thread=st.text(max_size=60), full_slug=st.text(max_size=120), page=st.integers(1, 10**6))
def test_string_keyed_cursors_round_trip_any_text(thread, full_slug, page):
    """threaded and newest cursors carry any text unchanged."""
    for view, key in (("threaded", (full_slug,)), ("newest", (thread, full_slug))):
        token = cursors.encode(view=view, scope=SCOPE, key=key, page=page)
        assert cursors.decode(token, view=view, scope=SCOPE) == Cursor(key=key, page=page)


# --- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize("view", sorted(ORDERS))
def test_decode_refuses_a_token_with_any_character_altered(view):
    """Changing any one character of a token, anywhere, makes it refused."""
    token = cursors.encode(view=view, scope=SCOPE, key=KEYS[view], page=2)
    for i, ch in enumerate(token):
        for replacement in {"A" if ch != "A" else "B", "_" if ch != "_" else "-"}:
            refused(token[:i] + replacement + token[i + 1 :], view=view)


@pytest.mark.parametrize("view", sorted(ORDERS))
def test_decode_refuses_a_truncated_or_extended_token(view):
    """A token with characters cut off or added is refused."""
    token = cursors.encode(view=view, scope=SCOPE, key=KEYS[view], page=2)
    refused(token[:-1], view=view)
    refused(token[1:], view=view)
    refused(token + "A", view=view)
    refused(token + token, view=view)


@pytest.mark.parametrize(
    ("made_for", "used_for"),
    [(a, b) for a in sorted(ORDERS) for b in sorted(ORDERS) if a != b],
)
def test_decode_refuses_a_token_made_for_another_view(made_for, used_for):
    """A cursor of one view is refused by every other view, even one with a key of the same length."""
    token = cursors.encode(view=made_for, scope=SCOPE, key=KEYS[made_for], page=2)
    refused(token, view=used_for)


@pytest.mark.parametrize("view", sorted(ORDERS))
@pytest.mark.parametrize(
    ("made_for", "used_for"),
    [
        (SCOPE, "65a1b2c3d4e5f60718293a4d"),
        (SCOPE, SUBTHREAD_SCOPE),
        (SUBTHREAD_SCOPE, SCOPE),
        (SUBTHREAD_SCOPE, f"{SCOPE}/abcdefgh"),
        (SCOPE, SCOPE.upper()),
    ],
)
def test_decode_refuses_a_token_made_for_another_scope(view, made_for, used_for):
    """A cursor of one discussion or sub-thread is refused for any other."""
    token = cursors.encode(view=view, scope=made_for, key=KEYS[view], page=2)
    refused(token, view=view, scope=used_for)


@pytest.mark.parametrize(
    "token",
    ["", ":", "::", "garbage", "a:b:c", "1", "{}", "null", '{"$ne": null}', "\x00", "é"],
)
def test_decode_refuses_garbage_and_the_empty_string(token):
    """Strings that are not signed tokens are refused."""
    refused(token, view="threaded")


@settings(max_examples=60)
@given(token=st.text(max_size=80))
def test_decode_refuses_arbitrary_text_with_bad_cursor_only(token):
    """Any unsigned text is refused with BadCursor, never another exception."""
    for view in ORDERS:
        refused(token, view=view)


def test_decode_refuses_a_payload_signed_with_another_salt():
    """A payload of the right shape signed for another purpose is refused."""
    payload = {"v": "threaded", "s": SCOPE, "k": [FULL], "p": 1}
    refused(signing.dumps(payload, salt="another.salt"), view="threaded")
    refused(signing.dumps(payload), view="threaded")


def test_a_forged_payload_of_the_right_shape_is_accepted():
    """Control for the shape tests: a well-formed payload signed with SALT decodes."""
    token = forge({"v": "chronological", "s": SCOPE, "k": [WHEN.isoformat(), str(OID)], "p": 4})
    assert cursors.decode(token, view="chronological", scope=SCOPE) == Cursor(key=(WHEN, OID), page=4)


GOOD = {"v": "chronological", "s": SCOPE, "k": [WHEN.isoformat(), str(OID)], "p": 2}


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param([GOOD["v"], GOOD["s"], GOOD["k"], GOOD["p"]], id="list-not-dict"),
        pytest.param("chronological", id="string-not-dict"),
        pytest.param(None, id="null"),
        pytest.param({k: v for k, v in GOOD.items() if k != "v"}, id="no-view"),
        pytest.param({k: v for k, v in GOOD.items() if k != "s"}, id="no-scope"),
        pytest.param({k: v for k, v in GOOD.items() if k != "k"}, id="no-key"),
        pytest.param({k: v for k, v in GOOD.items() if k != "p"}, id="no-page"),
        pytest.param({**GOOD, "k": GOOD["k"][:1]}, id="key-too-short"),
        pytest.param({**GOOD, "k": [*GOOD["k"], "extra"]}, id="key-too-long"),
        pytest.param({**GOOD, "k": []}, id="key-empty"),
        pytest.param({**GOOD, "k": "2026-11-29T20:41:07"}, id="key-not-a-list"),
        pytest.param({**GOOD, "k": {"posted": GOOD["k"][0], "_id": GOOD["k"][1]}}, id="key-a-dict"),
        pytest.param({**GOOD, "k": [GOOD["k"][0], 12345]}, id="id-not-a-string"),
        pytest.param({**GOOD, "k": [GOOD["k"][0], {"$ne": None}]}, id="id-an-operator"),
        pytest.param({**GOOD, "k": [GOOD["k"][0], "not-an-object-id"]}, id="id-malformed"),
        pytest.param({**GOOD, "k": [GOOD["k"][0], str(OID) + "0"]}, id="id-too-long"),
        pytest.param({**GOOD, "k": [1764448867, GOOD["k"][1]]}, id="posted-a-number"),
        pytest.param({**GOOD, "k": ["yesterday", GOOD["k"][1]]}, id="posted-malformed"),
        pytest.param({**GOOD, "k": [{"$gt": ""}, GOOD["k"][1]]}, id="posted-an-operator"),
        pytest.param({**GOOD, "p": "2"}, id="page-a-string"),
        pytest.param({**GOOD, "p": 2.0}, id="page-a-float"),
        pytest.param({**GOOD, "p": 1.5}, id="page-a-fraction"),
        pytest.param({**GOOD, "p": None}, id="page-null"),
        pytest.param({**GOOD, "p": [2]}, id="page-a-list"),
        pytest.param({**GOOD, "p": 0}, id="page-zero"),
        pytest.param({**GOOD, "p": -1}, id="page-negative"),
        pytest.param({**GOOD, "p": True}, id="page-a-boolean"),
    ],
)
def test_decode_refuses_a_signed_payload_of_the_wrong_shape(payload):
    """A correctly signed payload with a missing, wrongly typed or out-of-range part is refused."""
    refused(forge(payload), view="chronological")


@pytest.mark.parametrize(
    "values",
    [[123], [None], [["a"]], [{"$gt": ""}]],
    ids=["number", "null", "list", "operator"],
)
def test_decode_refuses_a_threaded_key_that_is_not_a_string(values):
    """A threaded cursor whose full_slug is not a string is refused (no operator reaches a query)."""
    refused(forge({"v": "threaded", "s": SCOPE, "k": values, "p": 1}), view="threaded")
