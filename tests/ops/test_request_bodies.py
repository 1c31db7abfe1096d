"""Request bodies against a real web process (uvicorn, studio.http): a body announced over the limit
is refused at once, before it is read, and the bodies a process holds stay within its budget, so
that a thousand connections sending large bodies slowly leave its memory (VmRSS in
/proc/<pid>/status) where it was; a WebSocket message is bounded by the same limit. Each
connection waits for what the server does, never for a fixed time."""
from __future__ import annotations

import asyncio
import http.client
import json
import selectors
import socket
import time
from urllib.parse import urlsplit

import pytest
import websockets

from studio.limits import MAX_BODY
from tests.servers import studio_process

pytestmark = pytest.mark.django_db  # the test database exists (the server runs on it); no test here writes to it
BUDGET = 1024 * 1024  # the process's HTTP_BODY_BUDGET here: a megabyte
LENGTH = 60 * 1024  # each slow upload's announced body, under MAX_BODY
CONNECTIONS = 1000
GROWTH = 16 * 1024 * 1024  # the most VmRSS may grow: the budget is a megabyte; 1,000 bodies held grew it by some 45 MB
WAIT = 60  # seconds for the server's answers, at most (a loaded machine)


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    """One web process on the test database for the module."""
    with studio_process(log_dir=tmp_path_factory.mktemp("bodies"), name="bodies", HTTP_BODY_BUDGET=str(BUDGET)) as (url, proc):
        parts = urlsplit(url)
        yield (parts.hostname, parts.port), proc.pid


def rss(pid: int) -> int:
    """The process's resident memory, in bytes."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def head(path: str, length: int) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def answer(sock: socket.socket) -> tuple[int, dict, dict]:
    """The status, headers and JSON body of the answer on `sock` (blocking, within WAIT)."""
    sock.settimeout(WAIT)
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, json.loads(response.read())


def send(sock: socket.socket, data: bytes) -> None:
    """Send what the server takes: one that answered and closed before the last of it may refuse the rest."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:  # closed with bytes of ours unread
        return True


def warm(address) -> None:
    """A few requests first, so that what the process loads once (the URLconf, the views) is loaded."""
    for _ in range(3):
        with socket.create_connection(address) as sock:
            sock.sendall(head("/api/nothing/", 2) + b"{}")
            assert answer(sock)[0] == 404


def test_bodies_announced_over_the_limit_are_refused_before_they_are_read(server):
    address, pid = server
    warm(address)
    before = rss(pid)
    socks = []
    try:
        for _ in range(CONNECTIONS):  # 9.9 MB announced, its first 16 KiB sent, the rest held back
            sock = socket.create_connection(address)
            socks.append(sock)
            send(sock, head("/api/operator/sessions/", 9_900_000) + b"x" * 16384)
        for sock in socks:
            status, headers, body = answer(sock)
            assert status == 413 and headers["connection"] == "close", (status, headers)
            assert body["code"] == "too_large" and str(MAX_BODY) in body["message"], body
            assert closed_by_server(sock)  # and the server closed the connection: the rest is never read
    finally:
        for sock in socks:
            sock.close()
    assert rss(pid) - before < GROWTH, (before, rss(pid))


def test_slow_uploads_are_held_within_the_budget_and_the_rest_are_busy(server):
    """Each connection sends all but the last byte of a body under the limit. The process holds as
    many as its budget has room for (BUDGET // LENGTH); every other is answered 503 `busy` with
    Retry-After before its body is read. Once the held ones end, the budget is free again."""
    address, pid = server
    warm(address)
    before = rss(pid)
    held_room = BUDGET // LENGTH
    socks, selector = [], selectors.DefaultSelector()
    try:
        for _ in range(CONNECTIONS):
            sock = socket.create_connection(address)
            socks.append(sock)
            send(sock, head("/api/nothing/", LENGTH) + b" " * (LENGTH - 1))
            selector.register(sock, selectors.EVENT_READ)
        busy = set()
        deadline = time.monotonic() + WAIT
        while len(busy) < CONNECTIONS - held_room:  # the answers the server owes at once
            assert time.monotonic() < deadline, f"{len(busy)} busy answers of {CONNECTIONS - held_room} after {WAIT} s"
            for key, _ in selector.select(timeout=1):
                selector.unregister(key.fileobj)
                status, headers, body = answer(key.fileobj)
                assert (status, body["code"], headers.get("retry-after")) == (503, "busy", "1"), (status, headers, body)
                busy.add(key.fileobj)
        assert rss(pid) - before < GROWTH, (before, rss(pid))
        held = [sock for sock in socks if sock not in busy]
        assert len(held) == held_room
        for sock in held:  # their last byte: each is answered as usual
            sock.sendall(b"{")
            status, _, body = answer(sock)
            assert (status, body["code"]) == (404, "not_found"), body
    finally:
        selector.close()
        for sock in socks:
            sock.close()
    with socket.create_connection(address) as sock:  # the budget is whole again: a body as large is read
        sock.sendall(head("/api/nothing/", LENGTH) + b" " * (LENGTH - 2) + b"{}")
        assert answer(sock)[0] == 404


@pytest.mark.django_db(transaction=True)
def test_a_websocket_message_over_the_limit_closes_the_connection(server, table):
    (host, port), _ = server

    async def watch() -> int:
        async with websockets.connect(f"ws://{host}:{port}/ws/tables/{table.pk}/", open_timeout=WAIT, max_size=None) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), WAIT))["type"] == "snapshot"
            await ws.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), WAIT))["type"] == "pong"
            await ws.send(json.dumps({"type": "ping", "pad": "x" * MAX_BODY}))
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), WAIT)
            return closed.value.rcvd.code

    assert asyncio.run(watch()) == 1009  # "message too big"
