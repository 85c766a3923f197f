"""Webhook deliveries against a real HTTP receiver on loopback: stored in the request,
sent only by the sender, signed with the webhook's secret, retried after a 500 with
the same id and body, and bounded: no redirect followed, a slow or huge answer cut
off, a private address refused without WEBHOOKS_ALLOW_PRIVATE."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from comments.records import Viewer
from comments.rest import moderate
from comments.votes.rules import vote_on_comment
from webhooks import deliveries, events, hooks, sender, targets, transport


def hook_at(receiver, path: str, events=hooks.DEFAULT_EVENTS):
    return hooks.create_hook(url=receiver.base + path, events=events, created_by="eve")


def make_due_now(mongo_db) -> None:
    """The back-off's wait, skipped: every waiting delivery is due now."""
    mongo_db.webhook_deliveries.update_many({"status": deliveries.DUE}, {"$set": {"due": datetime.now(UTC)}})


def only_delivery(hook) -> deliveries.Delivery:
    [delivery] = deliveries.for_hook(hook_id=hook.id)
    return delivery


def test_a_posted_comment_is_stored_then_sent_signed_by_the_sender(receiver, make_post, make_comment):
    hook = hook_at(receiver, "/ok")
    post = make_post()
    comment = make_comment(post, text="Hello *hooks*")
    assert receiver.requests == []  # nothing is sent in the request
    assert sender.deliver_due() == sender.Round(delivered=1)
    [(path, headers, body)] = receiver.requests
    assert headers["Slugline-Event"] == "comment.posted" and headers["Content-Type"] == "application/json"
    stamp, signature = re.fullmatch(r"t=(\d+),v1=([0-9a-f]{64})", headers["Slugline-Signature"]).groups()
    assert abs(int(stamp) - time.time()) < 60
    expected = hmac.new(hook.secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    assert signature == expected
    sent = json.loads(body)
    assert sent["id"] == only_delivery(hook).event_id and sent["event"] == "comment.posted"
    data = sent["data"]
    assert data["comment"]["id"] == str(comment.id)
    assert data["comment"]["html"].strip() == "<p>Hello <em>hooks</em></p>"
    assert data["comment"]["status"] == "approved" and data["discussion"]["post"] == post.slug
    assert data["permalink"].startswith("http") and data["permalink"].endswith("#" + comment.anchor)
    assert only_delivery(hook).status == deliveries.DELIVERED and only_delivery(hook).attempts[0].code == 200


def test_status_changes_flags_and_votes_make_their_events(receiver, make_post, make_comment):
    hook = hook_at(receiver, "/ok", events=hooks.EVENTS)
    comment = make_comment(make_post())
    moderate(action="delete", comment_ids=[comment.id], editor="eve")
    moderate(action="approve", comment_ids=[comment.id], editor="eve")
    vote_on_comment(comment=comment, viewer=Viewer(), voter="t:someone", vote="up")
    vote_on_comment(comment=comment, viewer=Viewer(), voter="t:someone", vote="up")  # no change: no event
    sender.deliver_due()
    events = [json.loads(body)["event"] for _, _, body in receiver.requests]
    assert sorted(events) == ["comment.approved", "comment.deleted", "comment.posted", "comment.voted"]
    voted = next(json.loads(b) for _, _, b in receiver.requests if json.loads(b)["event"] == "comment.voted")
    assert voted["data"]["vote"] == "up" and voted["data"]["comment"]["votes"]["votes_up"] == 1
    assert len(deliveries.for_hook(hook_id=hook.id)) == 4


def test_a_500_is_retried_later_with_the_same_id_and_body(receiver, make_post, make_comment, mongo_db):
    hook = hook_at(receiver, "/flaky")
    receiver.failures["/flaky"] = 1
    make_comment(make_post())
    assert sender.deliver_due() == sender.Round(failed=1)
    waiting = only_delivery(hook)
    assert waiting.status == deliveries.DUE and waiting.due > datetime.now(UTC) + timedelta(seconds=20)
    assert sender.deliver_due() == sender.Round()  # not due yet
    make_due_now(mongo_db)
    assert sender.deliver_due() == sender.Round(delivered=1)
    (_, _, first), (_, _, second) = receiver.requests
    assert first == second and [a.code for a in only_delivery(hook).attempts] == [500, 200]


def test_a_redirect_is_not_followed(receiver, make_post, make_comment):
    hook = hook_at(receiver, "/redirect")
    make_comment(make_post())
    sender.deliver_due()
    assert receiver.paths() == ["/redirect"] and only_delivery(hook).attempts[0].code == 302
    assert only_delivery(hook).status == deliveries.DUE


def test_a_slow_answer_is_cut_off_at_the_timeout(receiver, settings, make_post, make_comment):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.3
    hook = hook_at(receiver, "/slow")
    make_comment(make_post())
    started = time.monotonic()
    sender.deliver_due()
    assert time.monotonic() - started < 3
    assert only_delivery(hook).attempts[0].error == transport.TIMED_OUT


def test_a_huge_answer_is_cut_off_at_the_byte_limit(receiver, settings, make_post, make_comment):
    settings.WEBHOOKS_MAX_ANSWER_BYTES = 4096
    hook = hook_at(receiver, "/huge")
    make_comment(make_post())
    sender.deliver_due()
    attempt = only_delivery(hook).attempts[0]
    assert attempt.code is None and attempt.error == transport.TOO_LARGE


def test_a_private_address_is_refused_at_send_without_the_setting(receiver, settings, make_post,
                                                                  make_comment):
    hook = hook_at(receiver, "/ok")
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    make_comment(make_post())
    sender.deliver_due()
    assert receiver.requests == [] and only_delivery(hook).attempts[0].error == targets.PRIVATE


def test_a_delivery_is_given_up_after_the_retry_window(receiver, settings, make_post, make_comment):
    settings.WEBHOOKS_RETRY_HOURS = 0
    hook = hook_at(receiver, "/flaky")
    receiver.failures["/flaky"] = 5
    make_comment(make_post())
    sender.deliver_due()
    assert only_delivery(hook).status == deliveries.FAILED


@pytest.mark.parametrize("off", ["inactive", "not_listening"])
def test_a_webhook_that_is_off_or_deaf_to_the_event_gets_nothing(receiver, make_post, make_comment, off):
    hook = hook_at(receiver, "/ok", events=["comment.approved"] if off == "not_listening" else hooks.EVENTS)
    if off == "inactive":
        hooks.update_hook(hook_id=hook.id, url=hook.url, events=hook.events, active=False)
    make_comment(make_post())
    assert deliveries.for_hook(hook_id=hook.id) == [] and sender.deliver_due() == sender.Round()


def wait_for(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


def test_a_slow_receiver_with_a_burst_waiting_does_not_hold_up_another_webhook(receiver, settings, make_post,
                                                                              make_comment):
    settings.WEBHOOKS_TIMEOUT_SECONDS, settings.WEBHOOKS_CONCURRENCY = 0.5, 2  # one each at most
    slow = hook_at(receiver, "/slow", events=["comment.posted"])
    post = make_post()
    for n in range(3):
        make_comment(post, text=f"Burst {n}")
    fast = hook_at(receiver, "/ok")
    events.send_test(fast)  # due after the whole burst
    assert sender.deliver_due() == sender.Round(delivered=1, failed=3)
    tries = sorted((a for d in deliveries.for_hook(hook_id=slow.id) for a in d.attempts), key=lambda a: a.at)
    assert [a.error for a in tries] == [transport.TIMED_OUT] * 3
    # The slow webhook had one attempt in flight at a time, and the other's went beside the first.
    assert all(later.at >= earlier.at + timedelta(milliseconds=earlier.ms)
               for earlier, later in zip(tries, tries[1:]))
    assert only_delivery(fast).attempts[0].at < tries[-1].at


def test_the_loop_sends_what_falls_due_while_a_slow_receiver_is_answering(receiver, settings, make_post,
                                                                         make_comment):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 2
    slow = hook_at(receiver, "/slow", events=["comment.posted"])
    make_comment(make_post())
    stop, reports = threading.Event(), []
    loop = threading.Thread(target=sender.run, kwargs={"stop": stop, "every": 0.05, "report": reports.append})
    loop.start()
    try:
        wait_for(lambda: receiver.paths() == ["/slow"])
        events.send_test(hook_at(receiver, "/ok"))  # queued while the slow attempt hangs
        wait_for(lambda: "/ok" in receiver.paths())
        assert only_delivery(slow).status == deliveries.SENDING  # still in flight
        wait_for(lambda: sum(r.delivered + r.failed for r in reports) == 2)
    finally:
        stop.set()
        loop.join(timeout=10)
    assert not loop.is_alive() and receiver.paths() == ["/slow", "/ok"]
    assert sum(r.delivered for r in reports) == 1
    assert only_delivery(slow).attempts[0].error == transport.TIMED_OUT
