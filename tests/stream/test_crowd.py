"""The table's crowd: while betting is open, how many players bet and the share of the main bets'
stakes on each side reach the table's watchers once a second when they changed (bets.crowd), never
who bet what; nothing is sent for a round no longer betting, or when nothing changed."""
import pytest

from bets import crowd
from tests.conftest import client_for

from .conftest import Watcher, api_post, in_thread

pytestmark = pytest.mark.django_db(transaction=True)


async def test_the_crowd_of_a_betting_round_reaches_its_watchers(make_table, dealer, alice, bob):
    table = await in_thread(make_table)(name="Lotus")
    dealer_api, alice_api, bob_api = [await in_thread(client_for)(u) for u in (dealer, alice, bob)]
    round_id = (await in_thread(api_post)(dealer_api, f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}))["id"]
    watcher = Watcher(table.pk)
    await watcher.connect()
    try:
        await in_thread(api_post)(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "30"})
        await in_thread(api_post)(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "count_1_5", "amount": "10"})
        await in_thread(api_post)(bob_api, f"/api/rounds/{round_id}/bets/", {"spot": "bahar", "amount": "10"})
        assert await in_thread(crowd.crowd_publish)() == 1
        [*_, event] = await watcher.until("round.crowd")
        assert {k: event[k] for k in ("table", "round", "players", "andar_share", "bahar_share")} == {
            "table": table.pk, "round": round_id, "players": 2, "andar_share": "75.0", "bahar_share": "25.0"}
        assert "alice" not in str(event) and "bets" not in event  # never who bet what
        assert await in_thread(crowd.crowd_publish)() == 0  # nothing changed: nothing sent
        assert await watcher.nothing()
        await in_thread(api_post)(dealer_api, f"/api/rounds/{round_id}/close-betting/", status=200)
        assert await in_thread(crowd.crowd_publish)() == 0  # betting is over
    finally:
        await watcher.close()
