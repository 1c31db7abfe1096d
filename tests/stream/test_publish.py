"""How tables.stream hands its messages out: from a request thread of the server, to the server's
event loop without waiting, in order; through Redis, many at once in one pipeline."""
import asyncio
import json
import threading

import pytest
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


async def _receive(layer, channel, count: int) -> list[dict]:
    got = []
    while len(got) < count:
        got.append(await asyncio.wait_for(layer.receive(channel), TIMEOUT))
    return got


def _messages(n: int, groups: list[str]) -> list[dict]:
    return [stream._message(groups[i % len(groups)], {"type": "bet.placed", "n": i}) for i in range(n)]


@pytest.mark.redis
async def test_a_burst_goes_to_redis_in_one_pipeline_in_order():
    groups = ["user.test-burst-1", "user.test-burst-2"]
    layer, channel = await _listen(groups)
    assert type(layer).__name__ == "RedisPubSubChannelLayer"
    try:
        messages = _messages(40, groups)
        stream._enqueue(messages)  # what a request thread's publish() schedules on the loop
        stream._enqueue(_messages(1, groups))  # queued behind the first batch
        got = await _receive(layer, channel, 41)
    finally:
        for group in groups:
            await layer.group_discard(group, channel)
    assert [json.loads(m["text"])["n"] for m in got] == [*range(40), 0]
    assert [m["group"] for m in got[:4]] == [groups[0], groups[1], groups[0], groups[1]]


async def test_a_request_thread_hands_its_messages_to_the_loop_with_its_response():
    """publish() in a request thread of studio.http sends nothing itself: the messages go back to the
    loop with the response, and the loop sends them, in order."""
    groups = ["user.test-handoff"]
    layer, channel = await _listen(groups)
    pending = []

    def request_thread():
        http._request.pending = pending
        try:
            stream.publish(_messages(3, groups))
        finally:
            http._request.pending = None

    thread = threading.Thread(target=request_thread)
    thread.start()
    thread.join(TIMEOUT)
    try:
        assert len(pending) == 1  # nothing was sent from the thread
        for callback, args in pending:  # what WsgiHttp does on the loop with the response
            callback(*args)
        got = await _receive(layer, channel, 3)
    finally:
        await layer.group_discard(groups[0], channel)
    assert [json.loads(m["text"])["n"] for m in got] == [0, 1, 2]


def test_outside_a_request_thread_nothing_is_deferred():
    assert http.on_loop_after(print, "never") is False
