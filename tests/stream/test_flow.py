"""The stream of a round dealt through the API, as a watcher sees it on the real ASGI app: a
snapshot, then round.opened ... round.settled, numbered without gaps; nothing before commit and
nothing at all from a transaction that rolls back."""
import asyncio
import threading

import pytest
from django.db import transaction

from tables import services
from tables.models import Round, Table

from .conftest import CARDS, Watcher, in_thread, play_round

pytestmark = pytest.mark.django_db(transaction=True)

EVENT_FIELDS = {
    "round.opened": {"joker", "first_side", "closes_at", "spots"},
    "betting.closed": {"closed_at"},
    "card.dealt": {"position", "side", "card", "next_side"},
    "round.finished": {"winner", "cards_dealt", "match"},
    "round.settled": {"totals"},
}


async def test_a_watcher_gets_a_snapshot_then_every_event_of_the_round_in_seq_order(dealer, dealer_api, alice_api, table):
    watcher = Watcher(table.pk)
    snapshot = await watcher.connect()
    try:
        round_id = await in_thread(play_round)(dealer_api, table.pk, bets=[(alice_api, "andar", "50")])
        events = await watcher.until("round.settled")
    finally:
        await watcher.close()

    assert snapshot["round"] is None and snapshot["history"] == []
    assert [e["type"] for e in events] == ["round.opened", "betting.closed", "card.dealt", "card.dealt", "card.dealt",
                                          "round.finished", "round.settled"]
    assert [e["seq"] for e in events] == list(range(snapshot["seq"] + 1, snapshot["seq"] + 8))
    for event in events:
        assert event["round"] == round_id and event["table"] == table.pk and event["at"]
        assert EVENT_FIELDS[event["type"]] <= event.keys(), event
    opened, cards, finished, settled = events[0], events[2:5], events[5], events[6]
    assert (opened["joker"], opened["first_side"]) == ("KS", "andar")
    assert opened["spots"][:2] == [{"spot": "andar", "pays": "0.9:1"}, {"spot": "bahar", "pays": "1:1"}]
    assert [(c["position"], c["side"], c["card"]) for c in cards] == [(1, "andar", "2H"), (2, "bahar", "3D"), (3, "andar", "KC")]
    assert [c["next_side"] for c in cards] == ["bahar", "andar", None]  # none after the card that matched
    assert (finished["winner"], finished["cards_dealt"], finished["match"]) == ("andar", 3, "KC")
    assert settled["totals"] == {"bets": 1, "staked": "50.00", "paid": "95.00", "house_result": "-45.00"}


async def test_a_watcher_that_connects_mid_round_gets_the_dealt_cards_in_its_snapshot_and_only_later_events(dealer, dealer_api, table):
    def open_and_deal_two():
        rnd = services.round_open(table_id=table.pk, joker="KS", dealer=dealer)
        services.round_close_betting(round_id=rnd.pk, actor=dealer)
        for card in CARDS[:2]:
            services.card_deal(round_id=rnd.pk, card=card, actor=dealer)
        return rnd.pk

    round_id = await in_thread(open_and_deal_two)()
    watcher = Watcher(table.pk)
    snapshot = await watcher.connect()
    try:
        await in_thread(services.card_deal)(round_id=round_id, card=CARDS[2], actor=dealer)
        events = await watcher.until("round.settled")
    finally:
        await watcher.close()

    assert snapshot["seq"] == 4  # opened, closed, two cards
    assert snapshot["round"]["status"] == "dealing"
    assert [c["card"] for c in snapshot["round"]["cards"]] == CARDS[:2]
    assert [(e["seq"], e["type"]) for e in events] == [(5, "card.dealt"), (6, "round.finished"), (7, "round.settled")]


async def test_a_rolled_back_service_call_sends_nothing_and_leaves_no_gap(dealer, table):
    watcher = Watcher(table.pk)
    snapshot = await watcher.connect()

    def open_then_fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            services.round_open(table_id=table.pk, joker="KS", dealer=dealer)
            raise RuntimeError("the request failed after the service")

    try:
        await in_thread(open_then_fail)()
        assert await watcher.nothing(0.5)
        assert await in_thread(lambda: (Round.objects.count(), Table.objects.get(pk=table.pk).stream_seq))() == (0, snapshot["seq"])
        await in_thread(services.round_open)(table_id=table.pk, joker="QS", dealer=dealer)
        opened = await watcher.next()
    finally:
        await watcher.close()
    assert (opened["type"], opened["seq"], opened["joker"]) == ("round.opened", snapshot["seq"] + 1, "QS")


async def test_an_event_is_sent_only_once_its_transaction_commits(dealer, table):
    watcher = Watcher(table.pk)
    await watcher.connect()
    in_transaction, commit = threading.Event(), threading.Event()

    def open_and_hold():
        with transaction.atomic():
            services.round_open(table_id=table.pk, joker="KS", dealer=dealer)
            in_transaction.set()
            assert commit.wait(10)

    try:
        task = asyncio.ensure_future(in_thread(open_and_hold)())
        assert await asyncio.to_thread(in_transaction.wait, 10)
        assert await watcher.nothing(0.5)  # the round exists in the open transaction only
        commit.set()
        await task
        assert (await watcher.next())["type"] == "round.opened"
    finally:
        commit.set()
        await watcher.close()


async def test_events_of_another_table_do_not_reach_the_watcher(dealer, dealer_api, make_table):
    mine, other = await in_thread(make_table)(), await in_thread(make_table)()
    watcher = Watcher(mine.pk)
    await watcher.connect()
    try:
        await in_thread(play_round)(dealer_api, other.pk)
        await in_thread(services.round_open)(table_id=mine.pk, joker="QS", dealer=dealer)
        first = await watcher.next()  # the first thing it gets is its own table's
    finally:
        await watcher.close()
    assert (first["type"], first["table"], first["joker"]) == ("round.opened", mine.pk, "QS")


async def test_a_watcher_of_a_table_that_does_not_exist_is_closed(db):
    watcher = Watcher(999999)
    connected, _ = await watcher.comm.connect()
    assert connected
    assert (await watcher.comm.receive_output(5)) == {"type": "websocket.close", "code": 4404}
    await watcher.close()
