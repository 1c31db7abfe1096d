"""The real thing: two server processes (scripts/serve.py, one uvicorn worker each, on two ports)
and a Celery worker (settlement), all on the test PostgreSQL database and the Redis channel layer.
Watchers on both processes, connected with the `websockets` library, see the same events of a
round dealt through the HTTP API (through both processes), in the same order, through
round.settled; the servers do not negotiate per-message compression; a watcher that never
reads, its TCP buffers full, holds up no one and is let go; and a logout through one process closes
its token's sockets on both, before a bet placed right after it could reach them."""
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

from types import SimpleNamespace

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as dj_settings
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests import localhttp
from tests.servers import db_url_of_tests, free_ports, wait_until

from .conftest import CARDS

pytestmark = pytest.mark.django_db(transaction=True)

PORT_RANGE = range(8151, 8160)
STARTUP_TIMEOUT = 40
SEND_TIMEOUT = 2  # the servers' STREAM_SEND_TIMEOUT: a watcher that does not read is closed after it
ROUND = ["round.opened", "betting.closed", "card.dealt", "card.dealt", "card.dealt", "round.finished", "round.settled"]


def _stop(proc: subprocess.Popen) -> None:
    """serve.py stops its own uvicorn on SIGTERM; anything left in the group is killed."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def _serving(port: int) -> bool:
    try:
        return localhttp.get(f"http://127.0.0.1:{port}/api/tables/", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="module")
def studio(django_db_setup, tmp_path_factory):
    """Two servers and a Celery worker, production settings (DEBUG off, a secret key, Redis)."""
    tmp_path = tmp_path_factory.mktemp("studio")
    from studio.celery import app

    app.control.purge()  # no other test's leftover tasks
    env = {**os.environ, "DATABASE_URL": db_url_of_tests(), "REDIS_URL": dj_settings.REDIS_URL,
           "CHANNELS_PREFIX": dj_settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"], "DEBUG": "0",
           "SECRET_KEY": uuid.uuid4().hex * 2, "ALLOWED_HOSTS": "127.0.0.1,localhost",
           "DJANGO_SETTINGS_MODULE": "studio.settings", "STREAM_SEND_TIMEOUT": str(SEND_TIMEOUT)}
    procs, logs, ports = [], [], free_ports(PORT_RANGE, 2)

    def start(name, cmd):
        logs.append(tmp_path / f"{name}.log")
        procs.append(subprocess.Popen(cmd, cwd=dj_settings.BASE_DIR, env=env, start_new_session=True,
                                      stdout=open(logs[-1], "w"), stderr=subprocess.STDOUT))

    try:
        # The tests' STATIC_ROOT was collected at the session's start (tests/conftest.py): two launchers
        # collecting into it at once would rewrite the files the other's server reads as it starts.
        for port in ports:
            start(f"server-{port}", [sys.executable, "scripts/serve.py", "--port", str(port), "--workers", "1",
                                     "--no-celery", "--no-virtual-dealer", "--no-collectstatic"])
        start("celery", [sys.executable, "-m", "celery", "-A", "studio", "worker", "-l", "info", "--pool", "solo",
                         "-n", f"stream-{uuid.uuid4().hex[:8]}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"])
        wait_until(lambda: all(_serving(p) for p in ports) and " ready." in logs[-1].read_text(), "the studio to start",
                   timeout=STARTUP_TIMEOUT, procs=procs, logs=logs)
        yield SimpleNamespace(ports=ports, logs=logs)
    finally:
        for proc in procs:
            _stop(proc)


class RealWatcher:
    def __init__(self, port: int, table_id: int, token: str | None = None, compression=None):
        self.url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/" + (f"?token={token}" if token else "")
        self.origin, self.compression = f"http://127.0.0.1:{port}", compression
        self.messages: list[dict] = []

    async def __aenter__(self):
        self.ws = await connect(self.url, origin=self.origin, compression=self.compression, open_timeout=20)
        self.snapshot = json.loads(await asyncio.wait_for(self.ws.recv(), 20))
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def until_settled(self, timeout: float = 30) -> list[dict]:
        async with asyncio.timeout(timeout):
            while not any(m.get("type") == "round.settled" for m in self.messages):
                self.messages.append(json.loads(await self.ws.recv()))
        return self.messages

    async def until_closed(self, timeout: float = 10) -> int:
        """The code the server closed the socket with; the messages before it join `messages`."""
        async with asyncio.timeout(timeout):
            try:
                while True:
                    self.messages.append(json.loads(await self.ws.recv()))
            except ConnectionClosed:
                return self.ws.close_code

    async def personal(self, count: int, timeout: float = 10) -> list[dict]:
        async with asyncio.timeout(timeout):
            while len([m for m in self.messages if "seq" not in m]) < count:
                self.messages.append(json.loads(await self.ws.recv()))
        return [m for m in self.messages if "seq" not in m]


def _tokens(dealer, alice):
    from accounts.tokens import token_issue

    tokens = [token_issue(user=u).key for u in (dealer, alice)]
    return tokens


def _table(make_table, ports, **fields) -> int:
    """A table the servers can see (they read the test database through their own connections)."""
    from django.db import connection

    table_id = make_table(**fields).pk
    for port in ports:
        if localhttp.get(f"http://127.0.0.1:{port}/api/tables/{table_id}/", timeout=10).status_code != 200:
            with connection.cursor() as cur:
                cur.execute("SELECT current_database()")
                here = cur.fetchone()[0]
            pytest.fail(f"the servers do not see table {table_id}: this test wrote it to {here!r} "
                        f"(settings NAME {connection.settings_dict['NAME']!r}); the servers read {db_url_of_tests()}")
    return table_id


async def test_watchers_on_two_server_processes_see_the_same_round_in_the_same_order(studio, make_table, dealer, alice):
    a, b = studio.ports
    table_id = await sync_to_async(_table)(make_table, studio.ports, betting_seconds=60)
    dealer_token, alice_token = await sync_to_async(_tokens)(dealer, alice)
    watchers = [RealWatcher(a, table_id), RealWatcher(a, table_id), RealWatcher(b, table_id),
                RealWatcher(b, table_id, compression="deflate"), RealWatcher(b, table_id, token=alice_token)]
    dealer_http = {p: localhttp.AsyncClient(base_url=f"http://127.0.0.1:{p}", headers={"Authorization": f"Token {dealer_token}"}) for p in studio.ports}
    alice_http = localhttp.AsyncClient(base_url=f"http://127.0.0.1:{b}", headers={"Authorization": f"Token {alice_token}"})
    try:
        for w in watchers:
            await w.__aenter__()
        # Dealt through both processes, so their after-commit publishes can race each other.
        round_id = (await dealer_http[a].post(f"/api/tables/{table_id}/rounds/", json={"joker": "KS"})).json()["id"]
        assert (await alice_http.post(f"/api/rounds/{round_id}/bets/", json={"spot": "andar", "amount": "50"})).status_code == 201
        assert (await dealer_http[b].post(f"/api/rounds/{round_id}/close-betting/")).status_code == 200
        for card, port in zip(CARDS, (a, b, a)):
            assert (await dealer_http[port].post(f"/api/rounds/{round_id}/cards/", json={"card": card})).status_code == 201
        streams = await asyncio.gather(*(w.until_settled() for w in watchers))
        alice_personal = await watchers[-1].personal(2)
    except (TimeoutError, AssertionError):
        print("\n".join(log.read_text()[-2000:] for log in studio.logs))
        raise
    finally:
        for client in [*dealer_http.values(), alice_http]:
            await client.aclose()
        for w in watchers:
            if hasattr(w, "ws"):
                await w.__aexit__()

    table_events = [[(m["seq"], m["type"]) for m in stream if "seq" in m] for stream in streams]
    assert all(events == table_events[0] for events in table_events)
    assert [t for _, t in table_events[0]] == ROUND
    assert [s for s, _ in table_events[0]] == list(range(watchers[0].snapshot["seq"] + 1, watchers[0].snapshot["seq"] + 8))
    assert all(m["round"] == round_id for stream in streams for m in stream if "seq" in m)
    assert [m["type"] for m in alice_personal] == ["bet.placed", "bet.settled"]
    assert all("seq" in m for w in watchers[:-1] for m in w.messages)  # no one else's personal messages
    assert watchers[3].ws.response.headers.get("Sec-WebSocket-Extensions") is None  # deflate was offered, not agreed


def _never_reading_socket(port: int, table_id: int):
    """A watcher that completes the handshake, reads its snapshot, then stops reading, with a
    tiny receive buffer: the server's writes to it soon block, as to a stalled phone."""
    from websockets.client import ClientProtocol
    from websockets.frames import Frame
    from websockets.uri import parse_uri

    protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"), origin=f"http://127.0.0.1:{port}",
                              max_size=None)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(20)
    sock.connect(("127.0.0.1", port))
    protocol.send_request(protocol.connect())
    sock.sendall(b"".join(protocol.data_to_send()))
    while not any(isinstance(e, Frame) for e in protocol.events_received()):
        protocol.receive_data(sock.recv(65536))
    return sock, protocol


def _read_all(sock, protocol) -> list:
    """Everything the server sent it, once it reads again, up to the server's close frame, which it
    answers (the server would otherwise wait out its close timeout before it drops the connection)."""
    from websockets.frames import Frame

    frames = []
    while protocol.close_rcvd is None:
        data = sock.recv(1 << 20)
        if not data:
            break
        protocol.receive_data(data)
        frames += [e for e in protocol.events_received() if isinstance(e, Frame)]
    sock.sendall(b"".join(protocol.data_to_send()))
    return frames


async def test_a_watcher_that_never_reads_holds_up_no_one_and_is_let_go(studio, make_table):
    from channels.layers import get_channel_layer
    from websockets.frames import Opcode

    from tables.stream import encode, table_group

    table_id = await sync_to_async(_table)(make_table, studio.ports)
    stalled = await asyncio.to_thread(_never_reading_socket, studio.ports[0], table_id)
    count, padding = 1500, "x" * 8000  # 12 MB: more than its socket buffers
    async with RealWatcher(studio.ports[0], table_id) as reader:

        async def read_all():
            seqs = [json.loads(await reader.ws.recv())["seq"] for _ in range(count)]
            return seqs, time.monotonic()

        reading = asyncio.ensure_future(asyncio.wait_for(read_all(), 60))
        layer, group = get_channel_layer(), table_group(table_id)
        for seq in range(1, count + 1):
            text = encode({"type": "card.dealt", "seq": seq, "table": table_id, "round": 1, "at": "", "padding": padding})
            await layer.group_send(group, {"type": "stream.event", "group": group, "seq": seq, "text": text})
        published = time.monotonic()
        got, done = await reading
    assert got == list(range(1, count + 1))
    assert done - published < 5  # it kept up with the publisher: nothing waited for the stalled one
    async with asyncio.timeout(30):  # the stalled one's send gives up SEND_TIMEOUT after it began
        while "closing a watcher" not in studio.logs[0].read_text():
            await asyncio.sleep(0.05)
    frames = await asyncio.to_thread(_read_all, *stalled)
    stalled[0].close()
    seqs = [json.loads(f.data)["seq"] for f in frames if f.opcode is Opcode.TEXT]
    assert frames[-1].opcode is Opcode.CLOSE and stalled[1].close_rcvd.code == 4408
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) < count  # in order, then let go


async def test_a_logout_through_one_process_closes_the_tokens_sockets_on_both_before_a_later_bet_reaches_them(studio, make_table, dealer, alice):
    from accounts.services import COMMAND, user_password_set
    from accounts.tokens import token_issue

    a, b = studio.ports
    table_id = await sync_to_async(_table)(make_table, studio.ports, betting_seconds=60)
    dealer_token, revoked = await sync_to_async(_tokens)(dealer, alice)
    kept = (await sync_to_async(token_issue)(user=alice)).key
    gone = [RealWatcher(a, table_id, token=revoked), RealWatcher(b, table_id, token=revoked)]
    stays = RealWatcher(a, table_id, token=kept)
    dealer_http = localhttp.AsyncClient(base_url=f"http://127.0.0.1:{a}", headers={"Authorization": f"Token {dealer_token}"})
    logout_http = localhttp.AsyncClient(base_url=f"http://127.0.0.1:{a}", headers={"Authorization": f"Token {revoked}"})
    bet_http = localhttp.AsyncClient(base_url=f"http://127.0.0.1:{b}", headers={"Authorization": f"Token {kept}"})
    try:
        for w in [*gone, stays]:
            await w.__aenter__()
        round_id = (await dealer_http.post(f"/api/tables/{table_id}/rounds/", json={"joker": "KS"})).json()["id"]
        assert (await logout_http.post("/api/auth/logout/")).status_code == 204
        bet = await bet_http.post(f"/api/rounds/{round_id}/bets/", json={"spot": "andar", "amount": "50"})  # at once
        assert bet.status_code == 201
        codes = [await w.until_closed() for w in gone]
        placed = await stays.personal(1)
        await sync_to_async(user_password_set)(actor=None, source=COMMAND, user=alice, password="another-pw")
        codes.append(await stays.until_closed())
    except (TimeoutError, AssertionError):
        print("\n".join(log.read_text()[-2000:] for log in studio.logs))
        raise
    finally:
        for client in (dealer_http, logout_http, bet_http):
            await client.aclose()
        for w in [*gone, stays]:
            if hasattr(w, "ws"):
                await w.__aexit__()
    assert codes == [4401, 4401, 4401]
    assert all("seq" in m for w in gone for m in w.messages)  # no personal message reached them
    assert [(m["type"], m["bet"]) for m in placed] == [("bet.placed", bet.json()["id"])]
