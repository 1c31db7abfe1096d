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

so that each watcher's consumer takes both off its channel at once, and the second waits for
no other message. `parts(message)` reads either form.

How it is sent: with the channel layer's `group_send`, from whatever thread commits: in a request
thread of the web process on the server's own loop (studio.serverloop, with the figure that
justifies it), anywhere else (a Celery task, the virtual dealer, a command) through `async_to_sync`,
asgiref's bridge for sync code, as Channels documents it. A table's events of one transaction are one batch (keyed by the
transaction's id in PostgreSQL, which `_next_seq` reads with the number), sent by one `on_commit`
callback, so they leave as one message per group, in order.

Closing sockets whose credentials were revoked (accounts.hooks.credentials_revoked: a logout, a
password set, a change of a user's roles, permissions or flags): after the commit, one message
to the `revocations` group, which every web process with an authenticated socket listens to,

    {"type": "stream.revoked", "group": "revocations", "seq": None, "user": 3, "credentials": ["<digest>", ...], "sessions": true}

and each socket of that user opened with one of those credentials (accounts.tokens.credential_digest
of its token's or session's key), or with a session cookie when `sessions` is true, is closed with
4401 (`revokes`). This one is sent before the revoking call returns, wherever it runs (REVOKE_WAIT
at most): when the logout answers, Redis has the message, so a personal message published after it
reaches each process after it, and is never delivered to a socket it closed.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from studio import metrics, serverloop

from .locking import Held, require_held
from .events import TABLE_EVENTS, USER_EVENTS, CrowdEvent, LobbyPlayers, LobbyTable, TableEvent, UserEvent

from .models import Table

log = logging.getLogger(__name__)

_TABLE_EVENTS = frozenset(TABLE_EVENTS)
_USER_EVENTS = frozenset(USER_EVENTS)


REVOCATIONS = "revocations"  # the group of the close orders for revoked credentials
REVOKED = "stream.revoked"
REVOKE_WAIT = 5.0  # seconds a revoking call waits at most for its close order to be published
SEND_WAIT = 10.0  # seconds a request thread waits at most for its sends on the server's loop


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def encode(event: dict[str, Any]) -> str:
    return json.dumps(event, cls=DjangoJSONEncoder, separators=(",", ":"), ensure_ascii=False)


def _message(group: str, event: dict[str, Any]) -> dict[str, Any]:
    return {"type": "stream.event", "group": group, "seq": event.get("seq"), "text": encode(event)}


def publish(messages: list[dict[str, Any]]) -> None:
    """Send channel-layer messages now, in order, a group's consecutive ones as one message. Never
    raises: the stream must not break the studio (a watcher that misses an event sees the gap in
    `seq`); Redis's socket timeouts (settings.CHANNEL_LAYERS) bound the wait."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    for message in messages:
        metrics.STREAM_MESSAGES.labels(kind="table" if message["seq"] is not None else "user").inc()
    try:
        _run(_send_all, layer, messages)
    except Exception:  # Redis away, or called on an event loop's thread (a bug: logged, never raised)
        log.exception("stream publish failed")


def _run(coroutine_function, *args) -> None:
    """Run the send: on the web server's loop from its request threads (studio.serverloop),
    through async_to_sync anywhere else."""
    if serverloop.usable():
        serverloop.run(coroutine_function, *args, timeout=SEND_WAIT)
    else:
        async_to_sync(coroutine_function)(*args)


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


class _Batch:
    """The table events of one transaction, sent together after it commits. An event made in a
    savepoint that rolls back is dropped when a later event of its table takes its number again;
    services make their events as the last steps of their transaction, never in a savepoint they
    roll back."""

    def __init__(self, xid: str):
        self.xid, self.messages = xid, []

    def add(self, message: dict[str, Any]) -> None:
        # a number taken again in this transaction: the event that had it was in a savepoint rolled back
        self.messages = [m for m in self.messages if m["group"] != message["group"] or m["seq"] < message["seq"]]
        self.messages.append(message)


_open = threading.local()  # .batch: the thread's current transaction's (a connection is a thread's own)


def _send_batch(batch: _Batch) -> None:
    if getattr(_open, "batch", None) is batch:
        _open.batch = None
    # the lobby's messages after the tables': each group's messages stay consecutive, one message a group
    publish(sorted(batch.messages, key=lambda m: m["group"] == LOBBY))


def _next_seq(table_id: int) -> tuple[int, str]:
    """The table's next number, and the id of the transaction that takes it: an UPDATE of the
    table's row, whose lock the caller holds (tables.locking)."""
    with connection.cursor() as cur:
        cur.execute(f"UPDATE {Table._meta.db_table} SET stream_seq = stream_seq + 1 WHERE id = %s "
                    "RETURNING stream_seq, pg_current_xact_id()::text", [table_id])
        row = cur.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"No table {table_id} to number an event of.")
    return row[0], row[1]


LOBBY = "lobby"  # the lobby pages' group (tables/lobby.py): a `lobby.table` per change a lobby row shows
# The table events a lobby row follows, with the fields of theirs it shows.
LOBBY_CHANGES = {"round.opened": ("closes_at", "betting_seconds"), "betting.closed": (), "round.paused": ("betting_left_ms",),
                 "round.resumed": ("status", "closes_at"), "round.finished": ("winner", "cards_dealt"),
                 "round.settled": ("winner",), "round.voided": (), "table.state": ("state", "reason")}


def _in_lobby(held: Held) -> bool:
    """A public table's change (a private table is no table at all to the lobby's visitors)."""
    if held.round is not None:
        return not held.round.settings.get("private")
    return held.table is not None and not held.table.is_private


def table_event(held: Held, payload: TableEvent, *, round_id: int | None = None) -> None:
    """Send `payload` to the watchers of the table `held` locks (tables.locking) after commit,
    numbered with the table's next `seq`; of `held`'s round, or of `round_id` when given."""
    if type(payload) not in _TABLE_EVENTS:
        raise TypeError(f"not a table event: {payload!r}")
    require_held(held, what="a table event (it belongs to the transaction that makes it true)")
    table_id = held.table_id
    seq, xid = _next_seq(table_id)
    event = {"type": payload.name, "seq": seq, "table": table_id, "round": held.round_id if round_id is None else round_id,
             "at": timezone.now().isoformat(), **payload.fields()}
    batch = getattr(_open, "batch", None)
    if batch is None or batch.xid != xid:  # the transaction's first (a batch of one rolled back is left behind)
        batch = _open.batch = _Batch(xid)
        transaction.on_commit(lambda: _send_batch(batch))
    batch.add(_message(table_group(table_id), event))
    if payload.name in LOBBY_CHANGES and _in_lobby(held):  # the lobby's own event, unnumbered: a row's newest state wins
        lobby = LobbyTable(table=table_id, round=event["round"], change=payload.name, at=event["at"],
                           **{k: event[k] for k in LOBBY_CHANGES[payload.name]})
        batch.messages.append(_message(LOBBY, {"type": lobby.name, **lobby.fields()}))


def crowd_events(events: list[CrowdEvent], lobby: list[LobbyPlayers] = ()) -> None:
    """Live figures of tables (bets.crowd), each to its table's watchers, and the seat counts of
    public tables to the lobby's; unnumbered, now (no transaction: they say what was committed), in
    one publish."""
    now = timezone.now().isoformat()
    publish([*(_message(table_group(e.table), {"type": e.name, "at": now, **e.fields()}) for e in events),
             *(_message(LOBBY, {"type": e.name, "at": now, **e.fields()}) for e in lobby)])


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
        _run(_send_within, layer, message, REVOKE_WAIT)
    except Exception:  # Redis away or slow: the socket still closes at its token's expiry
        log.exception("stream: close order for user %s failed", message["user"])


async def _send_within(layer, message: dict[str, Any], seconds: float) -> None:
    await asyncio.wait_for(layer.group_send(message["group"], message), seconds)


def revokes(message: dict[str, Any], *, user_id: int | None, credential) -> bool:
    """Whether a close order (`REVOKED`) concerns a socket of `user_id` opened with `credential`
    (accounts.asgi_auth.Credential; None: an anonymous socket, which no order concerns)."""
    if credential is None or message["user"] != user_id:
        return False
    return credential.digest in message["credentials"] or (message["sessions"] and credential.session)
