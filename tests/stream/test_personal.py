"""Personal messages (bet.placed, bet.cancelled, bet.settled) reach their owner only: Alice by her
API token, Bob by his session cookie, and never an anonymous watcher."""
from decimal import Decimal

import pytest
from django.test import Client

from tables.events import USER_EVENTS

from .conftest import CARDS, Watcher, api_post, in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def _token(user) -> str:
    from accounts.tokens import token_issue

    return token_issue(user=user).key


def _session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def _round_with_bets(dealer_api, alice_api, bob_api, table_id) -> dict:
    """Alice bets 50 on Andar; Bob bets 30 on Bahar, takes it back, bets 20; Andar wins."""
    round_id = api_post(dealer_api, f"/api/tables/{table_id}/rounds/", {"joker": "KS"})["id"]
    alice_bet = api_post(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "50"})
    taken_back = api_post(bob_api, f"/api/rounds/{round_id}/bets/", {"spot": "bahar", "amount": "30"})
    assert bob_api.delete(f"/api/bets/{taken_back['id']}/").status_code in (200, 204)
    bob_bet = api_post(bob_api, f"/api/rounds/{round_id}/bets/", {"spot": "bahar", "amount": "20"})
    api_post(dealer_api, f"/api/rounds/{round_id}/close-betting/", status=200)
    for card in CARDS:
        api_post(dealer_api, f"/api/rounds/{round_id}/cards/", {"card": card})
    # The next round's opening comes after every message of this one: the end of what we read.
    api_post(dealer_api, f"/api/tables/{table_id}/rounds/", {"joker": "QS"})
    return {"round": round_id, "alice": alice_bet["id"], "bob": [taken_back["id"], bob_bet["id"]]}


async def test_each_player_sees_their_own_bets_and_results_and_nobody_else_sees_them(
        dealer_api, alice, bob, alice_api, bob_api, table):
    alice_w = Watcher(table.pk, token=await in_thread(_token)(alice))
    bob_w = Watcher(table.pk, cookie=await in_thread(_session_cookie)(bob))
    anon_w = Watcher(table.pk)
    watchers = (alice_w, bob_w, anon_w)
    for w in watchers:
        await w.connect()
    try:
        ids = await in_thread(_round_with_bets)(dealer_api, alice_api, bob_api, table.pk)
        personal = {}
        for name, w in zip(("alice", "bob", "anon"), watchers):
            received = []
            while not received or received[-1].get("joker") != "QS":
                received += await w.until("round.opened")
            personal[name] = [m for m in received if "seq" not in m]
    finally:
        for w in watchers:
            await w.close()

    assert personal["anon"] == []
    assert [m["type"] for m in personal["alice"]] == ["bet.placed", "bet.settled"]
    assert [m["type"] for m in personal["bob"]] == ["bet.placed", "bet.cancelled", "bet.placed", "bet.settled"]
    assert all(m["type"] in {e.name for e in USER_EVENTS} and m["round"] == ids["round"] and m["at"] for m in personal["alice"] + personal["bob"])

    placed, settled = personal["alice"]
    assert (placed["bet"], placed["spot"], Decimal(placed["amount"]), Decimal(placed["balance"])) == (ids["alice"], "andar", 50, 950)
    assert [(b["bet"], b["status"], Decimal(b["payout"])) for b in settled["bets"]] == [(ids["alice"], "won", 95)]
    assert (Decimal(settled["payout"]), Decimal(settled["balance"])) == (95, 1045)

    placed, cancelled, placed_again, settled = personal["bob"]
    assert (placed["bet"], cancelled["bet"], placed_again["bet"]) == (ids["bob"][0], ids["bob"][0], ids["bob"][1])
    assert [Decimal(m["balance"]) for m in (placed, cancelled, placed_again)] == [970, 1000, 980]
    assert [(b["bet"], b["status"], Decimal(b["payout"])) for b in settled["bets"]] == [(ids["bob"][1], "lost", 0)]
    assert Decimal(settled["balance"]) == 980


@pytest.mark.parametrize("credentials", [{"token": "not-a-token"}, {"cookie": "sessionid=not-a-session"}])
async def test_bad_credentials_watch_anonymously(credentials, dealer, dealer_api, alice_api, table):
    watcher = Watcher(table.pk, **credentials)
    await watcher.connect()
    try:
        def round_with_a_bet():
            round_id = api_post(dealer_api, f"/api/tables/{table.pk}/rounds/", {"joker": "KS"})["id"]
            api_post(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "50"})
            api_post(dealer_api, f"/api/rounds/{round_id}/close-betting/", status=200)

        await in_thread(round_with_a_bet)()
        received = await watcher.until("betting.closed")
    finally:
        await watcher.close()
    assert [m["type"] for m in received] == ["round.opened", "betting.closed"]
