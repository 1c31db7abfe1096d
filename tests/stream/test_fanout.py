"""tables.fanout: a table's messages reach every local watcher from the process's one reader, and
each watcher's Writer writes at once when the socket takes the text, queues behind a send that
waits without holding up anyone, and gives up on a socket that takes nothing."""
import asyncio

import pytest
from channels.layers import get_channel_layer

from accounts.tokens import token_issue

from tables import fanout
from tables.fanout import Fanout, Writer
from tables.stream import encode, table_group, user_group

from .conftest import Watcher, in_thread


class Socket:
    """A socket's send: it takes each text at once while `open` is set, and waits while it is clear."""

    def __init__(self):
        self.texts, self.open = [], asyncio.Event()
        self.open.set()

    async def send(self, text):
        await self.open.wait()
        self.texts.append(text)


def _writer(socket, timeout=10.0):
    given_up = []
    return Writer(socket.send, lambda: given_up.append(True), timeout), given_up


async def test_a_write_the_socket_takes_is_done_before_write_returns_with_no_task_left():
    socket = Socket()
    writer, given_up = _writer(socket)
    writer.write("a")
    assert socket.texts == ["a"] and writer.task is None  # no turn of the loop in between
    writer.write("b")
    assert socket.texts == ["a", "b"] and not given_up


async def test_a_write_that_waits_becomes_a_task_and_later_texts_queue_behind_it_in_order():
    socket = Socket()
    writer, given_up = _writer(socket)
    socket.open.clear()
    writer.write("a")
    writer.write("b")
    assert socket.texts == [] and writer.task is not None and list(writer.backlog) == ["a", "b"]
    other, _ = _writer(Socket())
    other.write("x")  # another watcher's write does not wait for this one
    assert other.task is None
    socket.open.set()
    await asyncio.wait_for(writer.task, 2)
    writer.write("c")
    assert socket.texts == ["a", "b", "c"] and writer.task is None and not given_up


async def test_a_socket_that_takes_nothing_for_the_timeout_is_given_up_once_and_written_no_more():
    socket = Socket()
    writer, given_up = _writer(socket, timeout=0.05)
    socket.open.clear()
    writer.write("a")
    task = writer.task
    async with asyncio.timeout(5):
        while not given_up:
            await asyncio.sleep(0.01)
    await asyncio.wait([task])
    writer.write("b")
    socket.open.set()
    await asyncio.sleep(0)
    assert given_up == [True] and task.cancelled() and socket.texts == [] and not writer.backlog


async def test_a_socket_that_keeps_taking_slowly_is_not_given_up():
    socket = Socket()
    writer, given_up = _writer(socket, timeout=0.2)
    socket.open.clear()
    for text in "abcdef":
        writer.write(text)
    for n in range(1, 7):  # one text at a time, each within the timeout
        socket.open.set()
        async with asyncio.timeout(5):
            while len(socket.texts) < n:
                await asyncio.sleep(0)
        socket.open.clear()
        await asyncio.sleep(0.1)
    socket.open.set()
    assert socket.texts == list("abcdef") and not given_up


async def test_a_watcher_with_max_backlog_texts_waiting_is_given_up():
    socket = Socket()
    writer, given_up = _writer(socket)
    socket.open.clear()
    for n in range(fanout.MAX_BACKLOG + 1):
        writer.write(str(n))
    assert given_up == [True] and not writer.backlog


@pytest.fixture
def table_at_10(make_table):
    return make_table(stream_seq=10)


@pytest.mark.django_db(transaction=True)
async def test_one_reader_hands_a_table_message_to_every_local_watcher(table_at_10):
    table = table_at_10
    watchers = [Watcher(table.pk) for _ in range(3)]
    for watcher in watchers:
        await watcher.connect()
    group = table_group(table.pk)
    hub = Fanout.current()
    try:
        assert len(hub.members[group]) == 3 and len(hub.adding) == 1  # one subscription for the three
        text = encode({"type": "card.dealt", "seq": 11, "table": table.pk, "round": 1, "at": "", "position": 1})
        await get_channel_layer().group_send(group, {"type": "stream.event", "group": group, "seq": 11, "text": text})
        for watcher in watchers:
            assert (await watcher.next(2))["seq"] == 11
    finally:
        for watcher in watchers:
            await watcher.close()
    assert Fanout._by_loop.get(asyncio.get_running_loop()) is None  # the last one gone: the channel freed


@pytest.mark.django_db(transaction=True)
async def test_a_players_personal_messages_and_the_tables_events_reach_the_socket_in_publish_order(table_at_10, alice):
    """Both kinds come off the process's one channel: a bet.placed published before a table's event
    is sent before it, every time."""
    watcher = Watcher(table_at_10.pk, token=await in_thread(lambda: token_issue(user=alice).key)())
    await watcher.connect()
    layer, table, user = get_channel_layer(), table_group(table_at_10.pk), user_group(alice.pk)
    try:
        for n in range(20):
            personal = encode({"type": "bet.placed", "round": 1, "bet": n, "spot": "andar", "amount": "10.00",
                               "balance": "990.00", "at": ""})
            event = encode({"type": "card.dealt", "seq": 11 + n, "table": table_at_10.pk, "round": 1, "at": "", "position": n})
            await layer.group_send(user, {"type": "stream.event", "group": user, "seq": None, "text": personal})
            await layer.group_send(table, {"type": "stream.event", "group": table, "seq": 11 + n, "text": event})
        got = [(m["type"], m.get("bet", m.get("seq"))) for m in [await watcher.next(2) for _ in range(40)]]
    finally:
        await watcher.close()
    assert got == [pair for n in range(20) for pair in (("bet.placed", n), ("card.dealt", 11 + n))]
