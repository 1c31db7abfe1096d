"""The one way out to the live stream. Every event of a table goes through `table_event`, every
personal message through `user_event`; both are sent only after the transaction commits.

A table event takes the table's next sequence number inside the transaction (an UPDATE on the
table row, so events of one table are numbered in commit order with no gaps) and is published once
to the table's group: with the Redis pub/sub layer that is one PUBLISH, whatever the audience.
"""
from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.utils import timezone

log = logging.getLogger(__name__)

TABLE_EVENTS = (
    "round.opened", "betting.closed", "card.dealt", "round.finished", "round.settled",
    "round.paused", "round.resumed", "round.corrected", "round.voided",
)
USER_EVENTS = ("bet.placed", "bet.cancelled", "bet.settled", "bet.refunded", "balance")


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _send(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "stream.event", "event": event})
    except Exception:  # the stream must never break the studio: watchers recover with the snapshot
        log.exception("stream publish to %s failed", group)


def _next_seq(table_id: int) -> int:
    from .models import Table

    rows = Table.objects.filter(pk=table_id).update(stream_seq=F("stream_seq") + 1)
    assert rows == 1
    return Table.objects.values_list("stream_seq", flat=True).get(pk=table_id)


def table_event(table_id: int, event_type: str, round_id: int | None, **data: Any) -> None:
    assert event_type in TABLE_EVENTS, event_type
    seq = _next_seq(table_id)
    event = {"type": event_type, "seq": seq, "table": table_id, "round": round_id, "at": timezone.now().isoformat(), **data}
    transaction.on_commit(lambda: _send(table_group(table_id), event))


def user_event(user_id: int, event_type: str, **data: Any) -> None:
    assert event_type in USER_EVENTS, event_type
    event = {"type": event_type, "at": timezone.now().isoformat(), **data}
    transaction.on_commit(lambda: _send(user_group(user_id), event))


def user_events(events: list[tuple[int, str, dict[str, Any]]]) -> None:
    """Many personal messages from one transaction (settlement, void), sent after commit."""
    now = timezone.now().isoformat()
    batch = [(user_group(uid), {"type": t, "at": now, **d}) for uid, t, d in events]

    def send_all():
        for group, event in batch:
            _send(group, event)

    transaction.on_commit(send_all)
