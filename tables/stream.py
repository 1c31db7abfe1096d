"""The one way out to the live stream. Every event of a table goes through `table_event`, every
personal message through `user_event` / `user_events`, each with a payload declared in
tables/events.py; all are sent only after the transaction commits (a rolled-back transaction sends
nothing), and sending never raises.

A table event takes the table's next sequence number inside the transaction (an UPDATE on the
table row, whose lock its writer took in the order of tables.locking and holds until commit, so
events of one table are numbered in commit order with no gaps) and is published once to the table's group (`group_send`: with the Redis
pub/sub layer one PUBLISH, whatever the audience). The event is encoded to JSON here, once;
consumers forward the text as is (tables/consumers.py). The message on the channel layer is

    {"type": "stream.event", "group": "table.7", "seq": 42, "text": "{\"type\": \"card.dealt\", ...}"}

("seq" is None for personal messages), so a consumer can order and route it without decoding it.
Events of one group sent together (a transaction's, such as the last card's `card.dealt` and
`round.finished`) travel as one message, in order,

    {"type": "stream.events", "group": "table.7", "seq": 43, "events": [{"seq": 42, "text": ...}, {"seq": 43, "text": ...}]}

so that each watcher is written both before the next watcher is written either: the second event
waits for one watcher's frame, not for the whole audience's. `parts(message)` reads either form.

Where it is sent from: in a request thread of the server (studio/http.py) the messages are handed
to the server's event loop as they are published, at commit, the thread going on at once: what the
request does after its commit (the settlement's task sent to the broker, the response rendered and
written) is not in the watchers' way. One task per loop sends what was handed to it, in order, one
`group_send` after another; a transaction's events are handed over one right after the other, and
the task takes everything handed over by the time it runs as one batch. Anywhere
else (a Celery task, the virtual dealer, a command) they are sent before `publish` returns, on the
process's one publishing loop (a daemon thread started on first use): its channel layer keeps one
Redis connection, where a new event loop per call (`async_to_sync` from a plain thread) opened and
closed one for every message.

Closing sockets whose credentials were revoked (accounts.hooks.credentials_revoked: a logout, a
password set, a change of a user's roles, permissions or flags): after the commit, one message
to the `revocations` group, which every web process with an authenticated socket listens to,

    {"type": "stream.revoked", "group": "revocations", "seq": None, "user": 3, "credentials": ["<digest>", ...], "sessions": true}

and each socket of that user opened with one of those credentials (accounts.tokens.credential_digest
of its token's or session's key), or with a session cookie when `sessions` is true, is closed with
4401 (`revokes`). This one is sent before the revoking call returns, wherever it runs (in a request
thread too, on the process's publishing loop): when the logout answers, Redis has the message, so
a personal message published after it reaches each process after it, and is never delivered to a
socket it closed.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import threading
import weakref
from collections import deque
from typing import Any

from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from studio import metrics
from studio.http import on_loop

from .locking import Held, require_held
from .events import TABLE_EVENTS, USER_EVENTS, TableEvent, UserEvent

from .models import Table

log = logging.getLogger(__name__)

_TABLE_EVENTS = frozenset(TABLE_EVENTS)
_USER_EVENTS = frozenset(USER_EVENTS)


REVOCATIONS = "revocations"  # the group of the close orders for revoked credentials
REVOKED = "stream.revoked"
REVOKE_WAIT = 5.0  # seconds a revoking call waits at most for its close order to be published


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
    watcher that misses an event sees the gap in `seq`)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    for message in messages:
        metrics.STREAM_MESSAGES.labels(kind="table" if message["seq"] is not None else "user").inc()
    try:
        if on_loop(_enqueue, messages):
            return
        asyncio.run_coroutine_threadsafe(_send_all(layer, messages), _publishing_loop()).result()
    except Exception:  # a server's loop closed under a last request, the publishing loop's Redis away
        log.exception("stream publish failed")


_publisher: tuple[int, asyncio.AbstractEventLoop] | None = None  # (the process it belongs to, its loop)
_publisher_lock = threading.Lock()


def _publishing_loop() -> asyncio.AbstractEventLoop:
    """The process's loop for sending outside a server's request, started on first use. A forked
    child (Celery's pool) has no copy of the thread: it starts its own."""
    global _publisher
    with _publisher_lock:
        if _publisher is None or _publisher[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="stream-publisher", daemon=True).start()
            _publisher = (os.getpid(), loop)
        return _publisher[1]


def parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a channel-layer message carries, in order: each a dict with `seq` and `text`."""
    return message["events"] if message["type"] == "stream.events" else [message]


def _together(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages to one group as one message (the module docstring)."""
    out = []
    for group, run in itertools.groupby(messages, key=lambda m: m["group"]):
        run = list(run)
        out.append(run[0] if len(run) == 1 else {
            "type": "stream.events", "group": group, "seq": run[-1]["seq"],
            "events": [{"seq": m["seq"], "text": m["text"]} for m in run]})
    return out


async def _send_all(layer, messages: list[dict[str, Any]]) -> None:
    for message in _together(messages):
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
    layer = get_channel_layer()
    while outbox:
        batch = list(outbox)  # everything handed over meanwhile, a group's events together
        await _send_all(layer, batch)
        for _ in batch:  # after sending: while it is non-empty, _enqueue knows a task is at work
            outbox.popleft()


def _next_seq(table_id: int) -> int:
    """The table's next number: an UPDATE of its row, whose lock the caller holds (tables.locking)."""
    with connection.cursor() as cur:
        cur.execute(f"UPDATE {Table._meta.db_table} SET stream_seq = stream_seq + 1 WHERE id = %s RETURNING stream_seq",
                    [table_id])
        row = cur.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"No table {table_id} to number an event of.")
    return row[0]


def table_event(held: Held, payload: TableEvent, *, round_id: int | None = None) -> None:
    """Send `payload` to the watchers of the table `held` locks (tables.locking) after commit,
    numbered with the table's next `seq`; of `held`'s round, or of `round_id` when given."""
    if type(payload) not in _TABLE_EVENTS:
        raise TypeError(f"not a table event: {payload!r}")
    require_held(held, what="a table event (it belongs to the transaction that makes it true)")
    table_id = held.table_id
    seq = _next_seq(table_id)
    event = {"type": payload.name, "seq": seq, "table": table_id, "round": held.round_id if round_id is None else round_id,
             "at": timezone.now().isoformat(), **payload.fields()}
    message = _message(table_group(table_id), event)
    transaction.on_commit(lambda: publish([message]))


def user_event(user_id: int, payload: UserEvent) -> None:
    user_events([(user_id, payload)])


def user_events(events: list[tuple[int, UserEvent]]) -> None:
    """Personal messages (one per player: settlement, void), sent after commit, together."""
    now = timezone.now().isoformat()
    batch = []
    for user_id, payload in events:
        if type(payload) not in _USER_EVENTS:
            raise TypeError(f"not a personal event: {payload!r}")
        batch.append(_message(user_group(user_id), {"type": payload.name, "at": now, **payload.fields()}))
    transaction.on_commit(lambda: publish(batch))


def credentials_revoked(sender, *, user_id: int, digests: list[str], sessions: bool, **kwargs) -> None:
    """The receiver of accounts.hooks.credentials_revoked: after commit, tell every process to close
    the user's sockets opened with these credentials (and with a session cookie, when `sessions`)."""
    message = {"type": REVOKED, "group": REVOCATIONS, "seq": None, "user": user_id, "credentials": list(digests),
               "sessions": sessions}
    transaction.on_commit(lambda: _publish_and_wait(message))


def _publish_and_wait(message: dict[str, Any]) -> None:
    """Send `message` and return once Redis has it (REVOKE_WAIT at most), in any thread. Never raises."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        asyncio.run_coroutine_threadsafe(layer.group_send(message["group"], message), _publishing_loop()).result(REVOKE_WAIT)
    except Exception:  # Redis away or slow: the socket still closes at its token's expiry
        log.exception("stream: close order for user %s failed", message["user"])


def revokes(message: dict[str, Any], *, user_id: int | None, credential) -> bool:
    """Whether a close order (`REVOKED`) concerns a socket of `user_id` opened with `credential`
    (accounts.asgi_auth.Credential; None: an anonymous socket, which no order concerns)."""
    if credential is None or message["user"] != user_id:
        return False
    return credential.digest in message["credentials"] or (message["sessions"] and credential.session)
