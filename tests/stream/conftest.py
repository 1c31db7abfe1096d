"""Helpers of the stream tests: watchers on the real ASGI app (web.asgi.application) through
WebsocketCommunicator, and a round played through the real API views."""
from __future__ import annotations

import asyncio
import json
import sys
import types

import pytest
from asgiref.sync import sync_to_async

try:
    from channels.testing import WebsocketCommunicator
except ModuleNotFoundError:  # channels.testing imports daphne for its live-server test case, not installed here
    sys.modules["channels.testing.live"] = types.SimpleNamespace(ChannelsLiveServerTestCase=None)
    from channels.testing import WebsocketCommunicator

from web.asgi import application

TIMEOUT = 10  # generous: the whole suite shares two cores
ORIGIN = [(b"origin", b"http://testserver"), (b"host", b"testserver")]


class Watcher:
    """One watcher of a table's stream; `messages` are the decoded messages received so far."""

    def __init__(self, table_id: int, token: str | None = None, cookie: str | None = None):
        path = f"/ws/tables/{table_id}/" + (f"?token={token}" if token else "")
        headers = ORIGIN + ([(b"cookie", cookie.encode())] if cookie else [])
        self.comm = WebsocketCommunicator(application, path, headers=headers)
        self.messages: list[dict] = []

    async def connect(self) -> dict:
        connected, _ = await self.comm.connect(timeout=TIMEOUT)
        assert connected
        snapshot = await self.next()
        assert snapshot["type"] == "snapshot"
        return snapshot

    async def next(self, timeout: float = TIMEOUT) -> dict:
        message = json.loads(await self.comm.receive_from(timeout=timeout))
        self.messages.append(message)
        return message

    async def until(self, event_type: str, timeout: float = TIMEOUT) -> list[dict]:
        """Every message up to and including the first of `event_type`."""
        got = []
        async with asyncio.timeout(timeout):
            while not got or got[-1]["type"] != event_type:
                got.append(await self.next(timeout))
        return got

    async def until_closed(self, timeout: float = TIMEOUT) -> int:
        """The code the server closes the socket with; the messages before it join `messages`."""
        async with asyncio.timeout(timeout):
            while True:
                output = await self.comm.receive_output(timeout)
                if output["type"] == "websocket.close":
                    return output.get("code")
                self.messages.append(json.loads(output["text"]))

    async def nothing(self, timeout: float = 0.3) -> bool:
        return await self.comm.receive_nothing(timeout=timeout)

    async def close(self):
        await self.comm.disconnect()


def in_thread(fn):
    """Call sync Django code (the API views, services) from an async test: it runs in the
    thread Channels uses for the database, and its broadcasts reach the test's event loop."""
    return sync_to_async(fn, thread_sensitive=True)


def api_post(client, url: str, body: dict | None = None, status: int = 201) -> dict:
    response = client.post(url, body or {}, format="json")
    assert response.status_code == status, response.content
    return response.json()


# Joker KS, first card to Andar: 2H (Andar), 3D (Bahar), KC (Andar) -> Andar wins on card 3.
CARDS = ["2H", "3D", "KC"]


def play_round(dealer_api, table_id: int, bets: list[tuple] = (), cards: list[str] = CARDS) -> int:
    """Open a round, place `bets` ((api, spot, amount), ...), close betting and deal `cards`
    through the API. Settlement runs in-process after the last card commits."""
    round_id = api_post(dealer_api, f"/api/tables/{table_id}/rounds/", {"joker": "KS"})["id"]
    for api, spot, amount in bets:
        api_post(api, f"/api/rounds/{round_id}/bets/", {"spot": spot, "amount": amount})
    api_post(dealer_api, f"/api/rounds/{round_id}/close-betting/", status=200)
    for card in cards:
        api_post(dealer_api, f"/api/rounds/{round_id}/cards/", {"card": card})
    return round_id


@pytest.fixture(autouse=True)
async def _close_thread_connections():
    """sync_to_async runs the tests' database calls in a thread of its own: close its connection."""
    yield
    from django.db import connections

    await sync_to_async(connections.close_all, thread_sensitive=True)()
