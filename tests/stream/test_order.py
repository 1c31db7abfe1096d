"""Two processes may publish their after-commit events in the other order than they committed:
the watcher's consumer waits a moment for a missing event and always sends in `seq` order.
Events are injected on the channel layer as tables.stream publishes them."""
import asyncio
import json
import time

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from redis.asyncio import Redis

from tables import consumers, stream
from tables.stream import encode, table_group

from .conftest import Watcher

pytestmark = pytest.mark.django_db(transaction=True)


async def _publish(table_id: int, *seqs: int):
    for seq in seqs:
        event = {"type": "card.dealt", "seq": seq, "table": table_id, "round": 1, "at": "", "position": seq}
        await get_channel_layer().group_send(table_group(table_id), {
            "type": "stream.event", "group": table_group(table_id), "seq": seq, "text": encode(event)})


@pytest.fixture
def table_at_10(make_table):
    return make_table(stream_seq=10)


async def _watch(table):
    watcher = Watcher(table.pk)
    snapshot = await watcher.connect()
    assert snapshot["seq"] == 10
    return watcher


async def test_events_sent_together_travel_as_one_message_and_reach_every_watcher_in_order(table_at_10):
    """A transaction's events (the last card and the result) are one message on the layer; each
    watcher is passed all of them, in `seq` order."""
    watchers = [await _watch(table_at_10) for _ in range(3)]
    layer, group = get_channel_layer(), table_group(table_at_10.pk)
    listener = await layer.new_channel()
    await layer.group_add(group, listener)
    try:
        texts = [{"type": "card.dealt", "seq": 11, "table": table_at_10.pk, "round": 1, "at": "", "position": 11},
                 {"type": "round.finished", "seq": 12, "table": table_at_10.pk, "round": 1, "at": "", "winner": "andar"}]
        await stream._send_all(layer, [stream._message(group, event) for event in texts])
        message = await asyncio.wait_for(layer.receive(listener), 2)
        assert (message["type"], message["seq"], [p["seq"] for p in stream.parts(message)]) == ("stream.events", 12, [11, 12])
        for watcher in watchers:
            assert [(await watcher.next(2))["type"] for _ in range(2)] == ["card.dealt", "round.finished"]
    finally:
        await layer.group_discard(group, listener)
        for watcher in watchers:
            await watcher.close()


async def test_an_event_that_overtook_an_earlier_one_waits_for_it_and_both_go_out_in_order(table_at_10):
    watcher = await _watch(table_at_10)
    try:
        await _publish(table_at_10.pk, 12)
        assert await watcher.nothing(0.1)  # 12 waits for 11
        await _publish(table_at_10.pk, 11)
        assert [(await watcher.next(1))["seq"] for _ in range(2)] == [11, 12]
    finally:
        await watcher.close()


async def test_when_the_missing_event_never_comes_the_next_ones_go_out_after_300_ms_in_order(table_at_10):
    watcher = await _watch(table_at_10)
    try:
        start = time.monotonic()
        await _publish(table_at_10.pk, 13, 12)
        first = await watcher.next(2)
        waited = time.monotonic() - start
        second = await watcher.next(1)
        await _publish(table_at_10.pk, 11, 14)  # 11 is too late now: dropped; 14 is next
        third = await watcher.next(1)
        assert await watcher.nothing(0.4)
    finally:
        await watcher.close()
    assert consumers.GAP_WAIT * 0.9 <= waited < consumers.GAP_WAIT + 1.0
    assert [first["seq"], second["seq"], third["seq"]] == [12, 13, 14]


async def test_events_already_in_the_snapshot_and_duplicates_are_not_sent_again(table_at_10):
    watcher = await _watch(table_at_10)
    try:
        await _publish(table_at_10.pk, 9, 10, 11, 11, 12)
        got = [(await watcher.next(1))["seq"] for _ in range(2)]
        assert await watcher.nothing(0.4)
    finally:
        await watcher.close()
    assert got == [11, 12]


async def test_a_ping_gets_a_pong_with_the_last_seq_the_watcher_was_sent(table_at_10):
    watcher = await _watch(table_at_10)
    try:
        await watcher.comm.send_to(text_data=json.dumps({"type": "ping"}))
        assert (await watcher.next(2)) == {"type": "pong", "seq": 10}  # the snapshot's
        await _publish(table_at_10.pk, 11, 12)
        assert [(await watcher.next(1))["seq"] for _ in range(2)] == [11, 12]
        await watcher.comm.send_to(text_data=json.dumps({"type": "ping"}))
        assert (await watcher.next(2)) == {"type": "pong", "seq": 12}
        await _publish(table_at_10.pk, 14)  # 13 is late: 14 is held, and the pong says 12 still
        await watcher.comm.send_to(text_data=json.dumps({"type": "ping"}))
        assert (await watcher.next(2)) == {"type": "pong", "seq": 12}
    finally:
        await watcher.close()


async def test_the_last_watcher_leaving_frees_the_process_subscription(table_at_10):
    """The watcher's channel leaves its groups when it closes: the process's Redis subscription to
    the table's group ends with its last watcher; a new watcher subscribes again, and is sent events."""
    group = table_group(table_at_10.pk)
    redis = Redis.from_url(settings.REDIS_URL)

    async def subscribed() -> bool:
        return bool(await redis.pubsub_channels(f"*{group}"))
    try:
        watcher = await _watch(table_at_10)
        assert await subscribed()
        await watcher.close()
        async with asyncio.timeout(5):  # the consumer leaves its groups in its disconnect
            while await subscribed():
                await asyncio.sleep(0.01)
        again = await _watch(table_at_10)
        try:
            await _publish(table_at_10.pk, 11)
            assert (await again.next(2))["seq"] == 11
        finally:
            await again.close()
    finally:
        await redis.aclose()
