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
        stream._enqueue(layer, messages)  # what a request thread's publish() schedules on the loop
        stream._enqueue(layer, _messages(1, groups))  # queued behind the first batch
        got = await _receive(layer, channel, 41)
    finally:
        for group in groups:
            await layer.group_discard(group, channel)
    assert [json.loads(m["text"])["n"] for m in got] == [*range(40), 0]
    assert [m["group"] for m in got[:4]] == [groups[0], groups[1], groups[0], groups[1]]


async def test_a_request_thread_hands_its_messages_to_the_loop_and_goes_on():
    """publish() in a thread that studio.http marked as the server's returns at once, while the loop
    is still blocked (here: waiting for that very thread); the loop sends the messages afterwards.
    Waiting for the loop instead, as async_to_sync does, would never return here."""
    groups = ["user.test-handoff"]
    layer, channel = await _listen(groups)
    loop = asyncio.get_running_loop()

    def request_thread():
        http._request.loop = loop
        try:
            stream.publish(_messages(3, groups))
        finally:
            http._request.loop = None

    thread = threading.Thread(target=request_thread, daemon=True)
    thread.start()
    thread.join(TIMEOUT)  # blocks the loop: nothing can be sent while the thread runs
    try:
        assert not thread.is_alive(), "publish() waited for the blocked event loop"
        got = await _receive(layer, channel, 3)
    finally:
        await layer.group_discard(groups[0], channel)
    assert [json.loads(m["text"])["n"] for m in got] == [0, 1, 2]
