"""The lobby's stream: `ws://HOST/ws/lobby/` (docs/STREAM.md). One connection for every table a
lobby page shows: on connect the lobby (tables.lobby.lobby, what `GET /api/lobby/` answers, as
`{"type": "lobby", "tables": [...]}`), then a `lobby.table` event each time a public table's round
opens, closes betting, pauses, resumes, finishes, is settled or voided, or the table changes state
(tables.stream), and a `lobby.players` each time the player count of a public table's betting round
changes (bets.crowd). The events are not numbered: each says the newest state of one row.

A private table (a friends' match) is in the lobby of its players and supervisors, read on
connect; its changes are not sent to the lobby's group (anyone may listen there): their pages
read the lobby again. A watcher that does not read is closed with 4408 after STREAM_SEND_TIMEOUT.
"""
from __future__ import annotations

import asyncio
import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder

from .lobby import lobby
from .stream import LOBBY, parts

CLOSE_TOO_SLOW = 4408


@database_sync_to_async
def _lobby(user) -> list[dict]:
    return lobby(user=user)


class LobbyConsumer(AsyncWebsocketConsumer):

    async def connect(self):
        self.joined = False
        await self.accept()
        await self.channel_layer.group_add(LOBBY, self.channel_name)  # join first, then read: no change falls between
        self.joined = True
        tables = await _lobby(self.scope.get("user") or AnonymousUser())
        await self._send(json.dumps({"type": "lobby", "tables": tables}, cls=DjangoJSONEncoder, separators=(",", ":")))

    async def disconnect(self, code):
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(LOBBY, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        return None  # nothing to say to the lobby

    async def stream_event(self, message):
        await self._send(message["text"])

    async def stream_events(self, message):
        for part in parts(message):
            await self._send(part["text"])

    async def _send(self, text: str) -> None:
        try:
            async with asyncio.timeout(settings.STREAM_SEND_TIMEOUT):
                await self.send(text_data=text)
        except TimeoutError:
            await self.close(code=CLOSE_TOO_SLOW)
        except Exception:  # the client is gone; its disconnect is on the way
            pass
