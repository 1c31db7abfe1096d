"""The one way out to the live stream. Every event of a table goes through `table_event`, every
personal message through `user_event` / `user_events`; all are sent only after the transaction
commits (a rolled-back transaction sends nothing).

A table event takes the table's next sequence number inside the transaction (an UPDATE on the
table row, which holds the row lock until commit, so events of one table are numbered in commit
order with no gaps) and is published once to the table's group: with the Redis pub/sub layer that
is one PUBLISH, whatever the audience. The event is encoded to JSON here, once; consumers forward
the text as is (see tables/consumers.py). The message on the channel layer is

    {"type": "stream.event", "group": "table.7", "seq": 42, "text": "{\"type\": \"card.dealt\", ...}"}

("seq" is None for personal messages), so a consumer can order and route it without decoding it.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import weakref
from collections import deque
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from studio import metrics
from studio.http import on_loop_after

from .models import Table

log = logging.getLogger(__name__)

TABLE_EVENTS = (
    "round.opened", "betting.closed", "card.dealt", "round.finished", "round.settled",
    "round.paused", "round.resumed", "round.corrected", "round.voided",
    "match.started", "match.round", "match.finished",
)
USER_EVENTS = ("bet.placed", "bet.cancelled", "bet.settled", "bet.refunded", "balance")


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def encode(event: dict[str, Any]) -> str:
    return json.dumps(event, cls=DjangoJSONEncoder, separators=(",", ":"), ensure_ascii=False)


def _message(group: str, event: dict[str, Any]) -> dict[str, Any]:
    return {"type": "stream.event", "group": group, "seq": event.get("seq"), "text": encode(event)}


def publish(messages: list[dict[str, Any]]) -> None:
    """Send channel-layer messages, in order. Never raises: the stream must not break the studio (a
    watcher that misses an event sees the gap in `seq`).

    In a request thread of the ASGI server (studio.http) the messages go to the server's event loop
    with the response, and in a WebSocket consumer's database thread they are handed to its loop;
    either way the thread goes on at once, and one task per loop sends them in the order they came.
    Elsewhere (a Celery task, a command) they are sent before this returns, in one trip to a loop."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    for message in messages:
        metrics.STREAM_MESSAGES.labels(kind="table" if message["seq"] is not None else "user").inc()
    if on_loop_after(_enqueue, messages):
        return
    loop = _consumer_loop()
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_enqueue, messages)
            return
        except RuntimeError:  # the loop is closed (the server is stopping): send them here instead
            pass

    async def send_all():
        for message in messages:
            await _send(layer, message)

    try:
        async_to_sync(send_all)()
    except Exception:
        log.exception("stream publish failed")


def _consumer_loop():
    """The event loop whose sync_to_async thread this is (asgiref records it for async_to_sync)."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    return getattr(SyncToAsync.threadlocal, "main_event_loop", None)


async def _send(layer, message: dict[str, Any]) -> None:
    try:
        await layer.group_send(message["group"], message)
    except Exception:
        log.exception("stream publish to %s failed", message["group"])


_outboxes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop -> messages not yet sent
_draining: set = set()


def _enqueue(messages: list[dict[str, Any]]) -> None:
    """On the server's loop: queue the messages; one task per loop sends its queue in order."""
    loop = asyncio.get_running_loop()
    outbox = _outboxes.get(loop)
    if outbox is None:
        outbox = _outboxes[loop] = deque()
    idle = not outbox
    outbox.extend(messages)
    if idle:
        task = loop.create_task(_drain(outbox))
        _draining.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(_draining.discard)


async def _drain(outbox: deque) -> None:
    while outbox:
        batch = list(outbox)  # whatever queued up while the last batch was being sent
        await _send_batch(get_channel_layer(), batch)
        for _ in batch:
            outbox.popleft()  # after sending: while it is non-empty, _enqueue knows a task is at work


async def _send_batch(layer, batch: list[dict[str, Any]]) -> None:
    """Send queued messages in order. Through channels_redis' pub/sub layer, all of them go in one
    trip: a pipeline of PUBLISH commands on the layer's own connection, exactly what its
    group_send would publish one round trip at a time (under load, the saving is most of the
    publishing cost). Any other layer gets one group_send per message."""
    if not isinstance(layer, RedisPubSubChannelLayer) or len(batch) == 1:
        for message in batch:
            await _send(layer, message)
        return
    try:
        loop_layer = layer._get_layer()
        shards: dict[Any, list] = {}
        for message in batch:
            channel = loop_layer._get_group_channel_name(message["group"])
            shards.setdefault(loop_layer._get_shard(channel), []).append((channel, layer.serialize(message)))
        for shard, items in shards.items():
            async with shard._lock:
                shard._ensure_redis()
                pipe = shard._redis.pipeline(transaction=False)
                for channel, payload in items:
                    pipe.publish(channel, payload)
                await pipe.execute()
    except Exception:
        log.exception("stream publish of %d messages failed", len(batch))


def _next_seq(table_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute(f"UPDATE {Table._meta.db_table} SET stream_seq = stream_seq + 1 WHERE id = %s RETURNING stream_seq",
                    [table_id])
        row = cur.fetchone()
    assert row is not None, f"no table {table_id}"
    return row[0]


def table_event(table_id: int, event_type: str, round_id: int | None, **data: Any) -> None:
    assert event_type in TABLE_EVENTS, event_type
    assert connection.in_atomic_block, "a table event belongs to the transaction that makes it true"
    seq = _next_seq(table_id)
    event = {"type": event_type, "seq": seq, "table": table_id, "round": round_id, "at": timezone.now().isoformat(), **data}
    message = _message(table_group(table_id), event)
    transaction.on_commit(lambda: publish([message]))


def user_event(user_id: int, event_type: str, **data: Any) -> None:
    user_events([(user_id, event_type, data)])


def user_events(events: list[tuple[int, str, dict[str, Any]]]) -> None:
    """Personal messages (one per player: settlement, void), sent after commit in one trip."""
    now = timezone.now().isoformat()
    batch = []
    for user_id, event_type, data in events:
        assert event_type in USER_EVENTS, event_type
        batch.append(_message(user_group(user_id), {"type": event_type, "at": now, **data}))
    transaction.on_commit(lambda: publish(batch))
