"""The snapshot: what a watcher gets on connect, and what GET /api/tables/{id}/stream-snapshot/
returns to a client that saw a gap: the same shape, the same content."""
import asyncio
from datetime import timedelta

import pytest
from django.utils import timezone

from tables import services
from tables.models import Round

from .conftest import CARDS, Watcher, in_thread, play_round

pytestmark = pytest.mark.django_db(transaction=True)

HISTORY_KEYS = {"id", "winner", "cards_dealt", "joker"}


async def test_the_stream_snapshot_endpoint_returns_what_a_watcher_gets_on_connect(dealer, dealer_api, anon_api, table):
    def two_rounds_and_an_open_one():
        play_round(dealer_api, table.pk)
        play_round(dealer_api, table.pk, cards=["4C", "KD"])
        rnd = services.round_open(table_id=table.pk, joker="7H", dealer=dealer)
        services.round_close_betting(round_id=rnd.pk, actor=dealer)
        services.card_deal(round_id=rnd.pk, card="2C", actor=dealer)
        return anon_api.get(f"/api/tables/{table.pk}/stream-snapshot/")

    response = await in_thread(two_rounds_and_an_open_one)()
    watcher = Watcher(table.pk)
    on_connect = await watcher.connect()
    await watcher.close()

    assert response.status_code == 200
    over_http = response.json()
    assert set(over_http) == set(on_connect) == {"type", "seq", "table", "round", "history"}
    assert over_http == on_connect
    assert (on_connect["type"], on_connect["seq"]) == ("snapshot", 7 + 6 + 3)
    assert on_connect["table"]["id"] == table.pk and on_connect["table"]["betting_seconds"] == table.betting_seconds
    rnd = on_connect["round"]
    cards = [{k: c[k] for k in ("position", "side", "card")} for c in rnd["cards"]]
    assert (rnd["status"], rnd["joker"], cards) == ("dealing", "7H", [{"position": 1, "side": "andar", "card": "2C"}])
    assert rnd["cards"][0]["dealt_at"].endswith("Z") and len(rnd["cards"][0]["dealt_at"]) == len("2026-12-01T18:43:44.123Z")
    assert [(h["winner"], h["cards_dealt"], h["joker"]) for h in on_connect["history"]] == [("bahar", 2, "KS"), ("andar", 3, "KS")]
    assert all(set(h) == HISTORY_KEYS for h in on_connect["history"])


@pytest.mark.django_db
def test_the_history_is_the_last_50_finished_rounds_newest_first(anon_api, dealer, table):
    now = timezone.now()
    fields = {"table": table, "settings": table.snapshot(), "first_side": "andar", "opened_at": now, "closes_at": now}
    Round.objects.bulk_create(
        [Round(joker="KS", status="settled", winner="andar", cards_dealt=i % 49 + 1, **fields) for i in range(52)]
        + [Round(joker="QS", status="voided", **fields), Round(joker="JS", status="finished", winner="bahar", cards_dealt=9, **fields)])
    latest = Round.objects.create(joker="2S", status="betting", **{**fields, "closes_at": now + timedelta(seconds=30)})

    snapshot = anon_api.get(f"/api/tables/{table.pk}/stream-snapshot/").json()

    history = snapshot["history"]
    assert len(history) == 50
    assert history[0] == {"id": latest.pk - 1, "winner": "bahar", "cards_dealt": 9, "joker": "JS"}  # voided: left out
    assert [h["id"] for h in history] == sorted((h["id"] for h in history), reverse=True)
    assert all(set(h) == HISTORY_KEYS for h in history)
    assert snapshot["round"]["id"] == latest.pk and snapshot["round"]["status"] == "betting"


@pytest.mark.django_db
def test_the_stream_snapshot_of_a_table_that_does_not_exist_is_a_404(anon_api):
    response = anon_api.get("/api/tables/999999/stream-snapshot/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_after_a_round_the_snapshot_names_the_settled_round_and_its_totals(dealer_api, anon_api, alice_api, table):
    round_id = play_round(dealer_api, table.pk, bets=[(alice_api, "bahar", "20")], cards=CARDS)
    snapshot = anon_api.get(f"/api/tables/{table.pk}/stream-snapshot/").json()
    assert snapshot["seq"] == 7
    assert (snapshot["round"]["id"], snapshot["round"]["status"]) == (round_id, "settled")
    assert snapshot["round"]["totals"] == {"bets": 1, "staked": "20.00", "paid": "0.00", "house_result": "20.00"}


async def test_watchers_joining_together_share_snapshot_reads_and_the_countdown_runs_on(dealer, table, monkeypatch):
    from tables import consumers

    reads = []

    async def counting(table_id):
        reads.append(table_id)
        return await original(table_id)

    original = consumers._snapshot
    monkeypatch.setattr(consumers, "_snapshot", counting)
    await in_thread(services.round_open)(table_id=table.pk, joker="KS", dealer=dealer)
    first = [Watcher(table.pk) for _ in range(20)]
    snapshots = await asyncio.gather(*(w.connect() for w in first))
    await asyncio.sleep(0.3)
    late = Watcher(table.pk)
    later = await late.connect()
    for w in [*first, late]:
        await w.close()
    def without_countdown(snapshot):
        return {**snapshot, "round": {k: v for k, v in snapshot["round"].items() if k != "betting_left_ms"}}

    assert len(reads) <= len(first) // 2  # a read that began before a watcher joined is not its own: it shares the next
    assert all(without_countdown(s) == without_countdown(snapshots[0]) for s in snapshots)
    assert later["seq"] == snapshots[0]["seq"]
    assert 250 <= snapshots[0]["round"]["betting_left_ms"] - later["round"]["betting_left_ms"] < 1000


async def test_a_snapshot_is_read_again_once_an_event_has_come(dealer, table):
    first = Watcher(table.pk)
    before = await first.connect()
    await in_thread(services.round_open)(table_id=table.pk, joker="KS", dealer=dealer)
    assert (await first.next())["seq"] == before["seq"] + 1  # the process has seen the event
    second = Watcher(table.pk)
    after = await second.connect()
    assert await second.nothing(0.3)  # the event is in its snapshot, not sent again
    for w in (first, second):
        await w.close()
    assert after["seq"] == before["seq"] + 1 and after["round"]["joker"] == "KS"
