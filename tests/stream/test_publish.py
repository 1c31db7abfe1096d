"""How tables.stream hands its messages out: from a request thread of the server, to the server's
event loop as soon as they are published, in order; through Redis, in order."""
import asyncio
import json
import threading

from channels.layers import get_channel_layer

from studio import http
from tables import stream

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
        stream._enqueue(_messages(40, groups))  # what a request thread's publish() schedules on the loop
        stream._enqueue(_messages(1, groups))  # queued behind the first batch
        got = await _receive(layer, channel, 41)
    finally:
        for group in groups:
            await layer.group_discard(group, channel)
    assert [json.loads(m["text"])["n"] for m in got] == [*range(40), 0]
    assert [m["group"] for m in got[:4]] == [groups[0], groups[1], groups[0], groups[1]]


async def test_a_request_threads_messages_leave_at_once_in_order_before_its_response():
    """publish() in a request thread of studio.http hands the messages to the loop and goes on: the
    loop sends them, in order and one group's as one message, while the request is still running
    (here it waits for them before it answers); nothing waits for the response."""
    groups = ["user.test-handoff"]
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
    assert responses == ["http.response.start", "http.response.body"]
    assert [json.loads(m["text"])["n"] for m in got] == [0, 1, 2]
    assert [m["type"] for m in received] == ["stream.events"]  # one group's events handed over together: one message


def test_outside_a_request_thread_nothing_is_handed_over():
    assert http.on_loop(print, "never") is False


async def test_plain_threads_publish_in_order_through_the_process_one_loop():
    """A Celery task, the virtual dealer or a command: publish() sends before it returns, every call
    on the same loop (one Redis connection), in order."""
    groups = ["user.test-plain-1", "user.test-plain-2"]
    layer, channel = await _listen(groups)
    loops = []

    def in_a_plain_thread(batch):
        loops.append(stream._publishing_loop())
        stream.publish(batch)

    try:
        for first in (0, 5):
            batch = [stream._message(groups[i % 2], {"type": "bet.placed", "n": first + i}) for i in range(5)]
            await asyncio.to_thread(in_a_plain_thread, batch)
        got = await _receive(layer, channel, 10)
    finally:
        for group in groups:
            await layer.group_discard(group, channel)
    assert [json.loads(m["text"])["n"] for m in got] == list(range(10))
    assert loops[0] is loops[1] and loops[0].is_running()
