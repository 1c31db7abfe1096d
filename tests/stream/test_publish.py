"""How tables.stream sends its messages: through the channel layer's group_send, from any thread
(async_to_sync), in order, a group's consecutive messages as one; a transaction's table events
together, after it commits."""
import asyncio
import importlib.metadata
import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction

from studio import http
from tables.locking import lock_table
from tables import events, stream

TIMEOUT = 10


async def _listen(groups: list[str]):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    for group in groups:
        await layer.group_add(group, channel)
    return layer, channel


async def _receive(layer, channel, count: int, received: list | None = None) -> list[dict]:
    """`count` events off the channel, in order, each with its group (`received`: the layer's
    messages themselves, which may carry several events of one group)."""
    got = []
    while len(got) < count:
        message = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
        if received is not None:
            received.append(message)
        got.extend({**part, "group": message["group"]} for part in stream.parts(message))
    return got


def _messages(n: int, groups: list[str]) -> list[dict]:
    return [stream._message(groups[i % len(groups)], {"type": "bet.placed", "n": i}) for i in range(n)]


async def test_a_burst_goes_to_redis_in_order():
    groups = ["user.test-burst-1", "user.test-burst-2"]
    layer, channel = await _listen(groups)
    assert type(layer).__name__ == "RedisPubSubChannelLayer"
    try:
        await asyncio.to_thread(stream.publish, _messages(40, groups))  # as from a Celery task
        await asyncio.to_thread(stream.publish, _messages(1, groups))
        got = await _receive(layer, channel, 41)
    finally:
        for group in groups:
            await layer.group_discard(group, channel)
    assert [json.loads(m["text"])["n"] for m in got] == [*range(40), 0]
    assert [m["group"] for m in got[:4]] == [groups[0], groups[1], groups[0], groups[1]]


async def test_a_send_from_a_plain_thread_opens_its_connection_without_reading_redis_pys_metadata(monkeypatch):
    """Each such send opens a connection (async_to_sync runs it on a new loop); redis-py is handed its
    version (settings.REDIS_DRIVER) instead of reading its package metadata for each one, which cost
    about a third of the send (scripts/bench_publish.py)."""
    read = []
    version = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: read.append(name) or version(name))
    groups = ["user.test-metadata"]
    layer, channel = await _listen(groups)
    try:
        await asyncio.to_thread(stream.publish, _messages(2, groups))
        got = await _receive(layer, channel, 2)
    finally:
        await layer.group_discard(groups[0], channel)
    assert [json.loads(m["text"])["n"] for m in got] == [0, 1]
    assert "redis" not in read


async def test_a_request_threads_messages_leave_before_its_response_one_groups_as_one_message():
    """publish() in a request thread of studio.http sends before it returns: the watchers have the
    messages, in order and one group's as one message, while the request is still running."""
    groups = ["user.test-request"]
    layer, channel = await _listen(groups)
    arrived = threading.Event()
    waited = []

    def app(environ, start_response):
        stream.publish(_messages(3, groups))
        waited.append(arrived.wait(TIMEOUT))  # the request goes on only once the watchers have them
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    responses, received = [], []

    async def send(message):
        responses.append(message["type"])

    async def listen():
        got = await _receive(layer, channel, 3, received)
        arrived.set()
        return got

    bridge = http.WsgiHttp(app, threads=1)
    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": [], "http_version": "1.1"}
    listening = asyncio.create_task(listen())
    try:
        await bridge(scope, receive, send)
        got = await listening
    finally:
        await layer.group_discard(groups[0], channel)
    assert waited == [True]
    assert responses[0] == "http.response.start"
    assert [json.loads(m["text"])["n"] for m in got] == [0, 1, 2]
    assert [m["type"] for m in received] == ["stream.events"]


@pytest.mark.django_db(transaction=True)
async def test_a_transactions_table_events_leave_after_its_commit_as_one_message(table):
    """Two events of one table in one transaction: nothing before the commit, then one message with
    both, in order; a rolled-back transaction's events are never sent, and its numbers are taken again."""
    group = stream.table_group(table.pk)
    layer, channel = await _listen([group])

    def two_events(then_fail: bool):
        with transaction.atomic():
            held = lock_table(table.pk)
            for state in ("closed", "open"):
                stream.table_event(held, events.TableState(state=state, reason=""))
            if then_fail:
                raise RuntimeError("rolled back")

    try:
        try:
            await sync_to_async(two_events)(True)
        except RuntimeError:
            pass
        await sync_to_async(two_events)(False)
        message = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
        assert await asyncio.wait_for(_nothing(layer, channel), TIMEOUT)
    finally:
        await layer.group_discard(group, channel)
    assert message["type"] == "stream.events" and [p["seq"] for p in stream.parts(message)] == [1, 2]
    assert [json.loads(p["text"])["state"] for p in stream.parts(message)] == ["closed", "open"]


async def _nothing(layer, channel) -> bool:
    try:
        await asyncio.wait_for(layer.receive(channel), 0.5)
    except TimeoutError:
        return True
    return False


async def test_a_close_order_is_in_redis_when_the_revoking_call_returns():
    layer, channel = await _listen([stream.REVOCATIONS])
    message = {"type": stream.REVOKED, "group": stream.REVOCATIONS, "seq": None, "user": -1, "credentials": ["x"], "sessions": False}
    try:
        await asyncio.to_thread(stream._publish_and_wait, message)
        got = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
    finally:
        await layer.group_discard(stream.REVOCATIONS, channel)
    assert got == message
