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

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

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
    """Send channel-layer messages, in order, in one trip to the event loop. Never raises: the
    stream must not break the studio (a watcher that misses an event sees the gap in `seq`)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send_all():
        for message in messages:
            try:
                await layer.group_send(message["group"], message)
            except Exception:
                log.exception("stream publish to %s failed", message["group"])

    try:
        async_to_sync(send_all)()
    except Exception:
        log.exception("stream publish failed")


def _next_seq(table_id: int) -> int:
    from .models import Table

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
