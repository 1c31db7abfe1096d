"""A watcher's stream messages (a personal message, a table's event) come through the process's
reader (tables/fanout.py) and reach the socket without Channels' database hop
(`aclose_old_connections`, which waits for Channels' one database thread); the socket's own
messages (a ping) go through Channels' dispatch, and wait for it."""
import asyncio
import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from accounts.tokens import token_issue
from tables.stream import encode, table_group, user_group

from .conftest import Watcher, in_thread

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_personal_message_reaches_the_socket_while_the_database_thread_is_busy_and_a_ping_waits_for_it(table, alice):
    watcher = Watcher(table.pk, token=await in_thread(lambda: token_issue(user=alice).key)())
    snapshot = await watcher.connect()
    started, release = threading.Event(), threading.Event()

    def hold():
        started.set()
        release.wait(30)

    busy = asyncio.ensure_future(sync_to_async(hold, thread_sensitive=True)())  # Channels' database thread
    try:
        assert await asyncio.to_thread(started.wait, 10)
        seq = snapshot["seq"]
        text = encode({"type": "bet.placed", "round": 1, "bet": 1, "spot": "andar", "amount": "10.00", "balance": "990.00", "at": ""})
        group = user_group(alice.pk)
        await get_channel_layer().group_send(group, {"type": "stream.event", "group": group, "seq": None, "text": text})
        event = await watcher.next(5)  # no hop to the busy thread
        seq += 1  # a table's event comes through the process's reader (tables/fanout.py): no hop either
        text = encode({"type": "card.dealt", "seq": seq, "table": table.pk, "round": 1, "at": "", "position": 1})
        await get_channel_layer().group_send(table_group(table.pk), {"type": "stream.event", "group": table_group(table.pk),
                                                                     "seq": seq, "text": text})
        card = await watcher.next(5)
        await watcher.comm.send_to(text_data=json.dumps({"type": "ping"}))  # Channels' dispatch: it waits for the thread
        assert await watcher.nothing(0.3), "the ping was answered while the database thread was busy"
    finally:
        release.set()
        await busy
    try:
        pong = await watcher.next(5)
    finally:
        await watcher.close()
    assert (event["type"], card["seq"], pong) == ("bet.placed", seq, {"type": "pong", "seq": seq})
