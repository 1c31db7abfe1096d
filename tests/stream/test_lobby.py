"""The lobby's one stream (ws/lobby/): every table a visitor may see on connect, then a `lobby.table`
per change of a public table's round or state; a private match table stays out of an outsider's
lobby and out of the lobby's events."""
from __future__ import annotations

import json

import pytest
from accounts.tokens import token_issue

from bets import crowd
from tables.lobby import lobby
from tables.models import Table
from tests.conftest import client_for
from tests.matches.play import MatchPlay

from .conftest import ORIGIN, TIMEOUT, WebsocketCommunicator, api_post, application, in_thread

pytestmark = pytest.mark.django_db(transaction=True)


class LobbyWatcher:
    def __init__(self, token: str | None = None):
        self.comm = WebsocketCommunicator(application, "/ws/lobby/" + (f"?token={token}" if token else ""), headers=ORIGIN)

    async def connect(self) -> dict:
        connected, _ = await self.comm.connect(timeout=TIMEOUT)
        assert connected
        first = json.loads(await self.comm.receive_from(timeout=TIMEOUT))
        assert first["type"] == "lobby"
        return first

    async def next(self) -> dict:
        return json.loads(await self.comm.receive_from(timeout=TIMEOUT))


async def test_the_lobby_follows_each_public_tables_round(make_table, dealer, alice):
    table = await in_thread(make_table)(name="Lotus", multipliers={"spots": ["count_1_5", "count_6_10"], "draws": 1, "values": [[2, 1]]})
    watcher = LobbyWatcher()
    first = await watcher.connect()
    [row] = first["tables"]
    assert (row["name"], row["round"], row["road"], row["multipliers"]) == ("Lotus", None, [], {"draws": 1, "spots": 2, "highest": 2})
    dealer_api, alice_api = await in_thread(client_for)(dealer), await in_thread(client_for)(alice)
    try:
        opened = await in_thread(api_post)(dealer_api, f"/api/tables/{table.pk}/rounds/", {"joker": "KS"})
        event = await watcher.next()
        assert (event["type"], event["table"], event["round"], event["change"]) == ("lobby.table", table.pk, opened["id"], "round.opened")
        assert event["betting_seconds"] == 15 and "closes_at" in event
        await in_thread(api_post)(alice_api, f"/api/rounds/{opened['id']}/bets/", {"spot": "andar", "amount": "10"})
        await in_thread(api_post)(dealer_api, f"/api/rounds/{opened['id']}/close-betting/", status=200)
        assert (await watcher.next())["change"] == "betting.closed"
        for card in ("2C", "KD"):
            await in_thread(api_post)(dealer_api, f"/api/rounds/{opened['id']}/cards/", {"card": card})
        finished = await watcher.next()
        assert (finished["change"], finished["winner"], finished["cards_dealt"]) == ("round.finished", "bahar", 2)
        assert (await watcher.next())["change"] == "round.settled"  # the settlement follows (tasks run eagerly here)
        assert await watcher.comm.receive_nothing(timeout=0.3)  # the cards themselves are not the lobby's
    finally:
        await watcher.comm.disconnect()
    [row] = await in_thread(lobby)(user=None)
    assert (row["round"]["status"], row["round"]["winner"], row["road"], row["players"]) == (
        "settled", "bahar", [{"winner": "bahar", "cards_dealt": 2}], 1)


async def test_a_private_match_table_is_only_in_its_players_lobby(alice, bob, make_table):
    await in_thread(make_table)(name="Public")
    clients = {"alice": await in_thread(client_for)(alice), "bob": await in_thread(client_for)(bob)}
    play = await in_thread(MatchPlay.start)(clients)
    names = lambda first: sorted(t["name"] for t in first["tables"])  # noqa: E731
    outsider = LobbyWatcher()
    member = LobbyWatcher(token=await in_thread(lambda: token_issue(user=alice).key)())
    try:
        assert names(await outsider.connect()) == ["Public"]
        private = await in_thread(lambda: Table.objects.get(pk=play.table_id).name)()
        assert names(await member.connect()) == sorted(["Public", private])
        await in_thread(play.open)("andar")  # the match's round opens: not an event of the lobby's group
        assert await outsider.comm.receive_nothing(timeout=0.5)
        assert await member.comm.receive_nothing(timeout=0.1)
    finally:
        await outsider.comm.disconnect()
        await member.comm.disconnect()


async def test_the_lobby_counts_the_players_while_betting_and_a_pause_keeps_the_time_left(make_table, dealer, alice, bob):
    """A public table's seat count reaches the lobby while betting is open (bets.crowd, when it
    changes), and a round paused in betting says what is left of its countdown."""
    table = await in_thread(make_table)(name="Lotus")
    dealer_api, alice_api, bob_api = [await in_thread(client_for)(u) for u in (dealer, alice, bob)]
    watcher = LobbyWatcher()
    await watcher.connect()
    try:
        round_id = (await in_thread(api_post)(dealer_api, f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}))["id"]
        assert (await watcher.next())["change"] == "round.opened"
        await in_thread(api_post)(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "10"})
        await in_thread(crowd.crowd_publish)()
        seated = await watcher.next()
        assert {k: seated[k] for k in ("type", "table", "round", "players")} == {
            "type": "lobby.players", "table": table.pk, "round": round_id, "players": 1}
        await in_thread(api_post)(bob_api, f"/api/rounds/{round_id}/bets/", {"spot": "bahar", "amount": "10"})
        await in_thread(crowd.crowd_publish)()
        assert (await watcher.next())["players"] == 2
        await in_thread(api_post)(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "count_1_5", "amount": "10"})
        await in_thread(api_post)(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "20"})
        await in_thread(crowd.crowd_publish)()  # the shares changed, the count did not: nothing for the lobby
        assert await watcher.comm.receive_nothing(timeout=0.3)
        await in_thread(api_post)(dealer_api, f"/api/rounds/{round_id}/incidents/", {"kind": "other", "notes": "camera"})
        paused = await watcher.next()
        assert paused["change"] == "round.paused" and 0 < paused["betting_left_ms"] <= 15_000
    finally:
        await watcher.comm.disconnect()


async def test_a_private_tables_players_are_not_counted_in_the_lobby(alice, bob):
    clients = {"alice": await in_thread(client_for)(alice), "bob": await in_thread(client_for)(bob)}
    play = await in_thread(MatchPlay.start)(clients)
    outsider = LobbyWatcher()
    await outsider.connect()
    try:
        await in_thread(play.open)("andar")
        await in_thread(play.bet)("alice", ("andar", 10))
        assert await in_thread(crowd.crowd_publish)() == 1  # the table's own watchers have it
        assert await outsider.comm.receive_nothing(timeout=0.5)
    finally:
        await outsider.comm.disconnect()
