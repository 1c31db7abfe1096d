"""Voiding a round: every bet refunded its stake (and a settled round's wins reversed) exactly once,
whether the void is retried, races the settlement or races another void (real parallel PostgreSQL
connections); a voided round is never settled again; the stream and players are told."""
import asyncio
import json
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection, transaction

from bets.models import Bet, LedgerEntry
from bets.settlement import round_resettle, round_settle
from studio.errors import ApplicationError
from tables import stream
from incidents import services as incidents
from tables.locking import lock_round
from tables.models import Incident
from tables.transitions import check_transition
from tests.parallel import at_once

from .conftest import (
    assert_books_balance, balance, close, deal, fresh, ledger_snapshot, open_round, place, quick_player, raise_incident,
)

D = Decimal


def void(api, incident, reason="shoe fault"):
    return api.post(f"/api/incidents/{incident.pk}/void/", {"reason": reason}, format="json")


def refunds_of(rnd, version):
    return {(e.bet_id, e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, kind="refund", version=version,
                                                                     account__kind="player")}


@pytest.mark.django_db
@pytest.mark.parametrize("phase", ["betting", "dealing"])
def test_voiding_an_open_round_refunds_every_bet_once(dealer, supervisor, supervisor_api, dealer_api, alice, bob, table, phase):
    rnd = open_round(table, dealer, "KS")
    bets = [place(alice, rnd, "andar", 50), place(alice, rnd, "first_andar", 20), place(bob, rnd, "bahar", 100)]
    taken_back = place(bob, rnd, "count_1_5", 10)
    from bets.services import bet_cancel

    bet_cancel(bet_id=taken_back.pk, player=bob)
    if phase == "dealing":
        close(rnd, dealer)
        deal(rnd, dealer, ["2C", "3D"])
    incident = raise_incident(rnd, dealer, "equipment", "shoe fault")
    assert (balance(alice), balance(bob)) == (D(930), D(900))

    response = void(supervisor_api, incident, "shoe cannot be fixed")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["round_status"]) == ("voided", "voided")
    assert response.json()["resolution"] == "shoe cannot be fixed"
    assert (balance(alice), balance(bob)) == (D(1000), D(1000))
    assert {b.pk: (b.status, b.payout) for b in Bet.objects.filter(round=rnd)} == {
        **{b.pk: ("refunded", b.amount) for b in bets}, taken_back.pk: ("cancelled", D(0))}
    assert refunds_of(rnd, 1) == {(b.pk, b.amount) for b in bets}
    assert not LedgerEntry.objects.filter(bet=taken_back, kind="refund").exists()
    house = LedgerEntry.objects.get(round_id=rnd.pk, kind="refund", account__kind="house")
    assert (house.amount, house.version) == (D(-170), 1)
    after = fresh(rnd)
    assert (after.status, after.settlement_version, after.bet_count, after.total_staked, after.total_paid) == (
        "voided", 1, 3, D(170), D(170))
    assert_books_balance()
    # The table is free again: the dealer opens the next round.
    assert dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "2H"}, format="json").status_code == 201


@pytest.mark.django_db
def test_voiding_a_settled_round_reverses_wins_and_puts_everyone_back(dealer, supervisor, supervisor_api, alice, bob, table):
    rnd = open_round(table, dealer, "KS")
    won = [place(alice, rnd, "andar", 100), place(alice, rnd, "count_1_5", 10)]
    lost = [place(bob, rnd, "bahar", 100), place(bob, rnd, "first_three", 10)]
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "3D", "KH"])
    assert round_settle(round_id=rnd.pk)
    assert (balance(alice), balance(bob)) == (D(1000) - 110 + 190 + 30, D(890))
    settled = ledger_snapshot(round_id=rnd.pk)

    incident = raise_incident(rnd, supervisor, "settlement", "the stream showed another card")
    assert void(supervisor_api, incident, "result disputed").status_code == 200
    assert (balance(alice), balance(bob)) == (D(1000), D(1000))
    assert ledger_snapshot(round_id=rnd.pk, version__lte=1) == settled
    v2 = {(e.bet_id, e.kind, e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, version=2, account__kind="player")}
    assert v2 == {(won[0].pk, "reversal", D(-190)), (won[1].pk, "reversal", D(-30))} | {
        (b.pk, "refund", b.amount) for b in won + lost}
    house = {(e.kind, e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, version=2, account__kind="house")}
    assert house == {("reversal", D(220)), ("refund", D(-220))}
    assert set(Bet.objects.filter(round=rnd).values_list("status", flat=True)) == {"refunded"}
    assert (fresh(rnd).status, fresh(rnd).settlement_version) == ("voided", 2)
    assert_books_balance()


@pytest.mark.django_db
def test_a_retried_void_is_refused_and_refunds_nothing_more(dealer, supervisor, supervisor_api, dealer_api, alice, table):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    incident = raise_incident(rnd, dealer)
    other = raise_incident(rnd, supervisor, "stream")
    assert void(supervisor_api, incident).status_code == 200
    entries, money = LedgerEntry.objects.count(), balance(alice)
    assert Incident.objects.get(pk=other.pk).status == "voided"  # the round's other incidents close with it

    for target in (incident, other):
        response = void(supervisor_api, target)
        assert (response.status_code, response.json()["code"]) == (409, "incident_voided")
    with pytest.raises(ApplicationError) as refused:
        incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="again")
    assert refused.value.code == "incident_voided"
    assert dealer_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "other"}, format="json").status_code == 409
    assert (LedgerEntry.objects.count(), balance(alice)) == (entries, money)
    assert refunds_of(rnd, 1) == {(Bet.objects.get().pk, D(100))}


@pytest.mark.django_db
def test_a_void_needs_a_reason(dealer, supervisor_api, table):
    rnd = open_round(table, dealer, "KS")
    incident = raise_incident(rnd, dealer)
    response = supervisor_api.post(f"/api/incidents/{incident.pk}/void/", {"reason": " "}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert fresh(rnd).status == "paused"


@pytest.mark.django_db
def test_a_voided_round_is_never_settled_again(dealer, supervisor, supervisor_api, alice, table):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["KH"])  # finished; its settlement task has not run yet
    incident = raise_incident(rnd, supervisor, "settlement")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="dealt before betting closed")
    books = ledger_snapshot()

    from bets.tasks import settle_round, sweep_unsettled_rounds

    assert round_settle(round_id=rnd.pk) is False
    assert settle_round(rnd.pk) is False and sweep_unsettled_rounds() == 0
    with pytest.raises(ApplicationError) as refused, transaction.atomic():  # an explicit check, not an assert: it holds under python -O
        round_resettle(lock_round(rnd.pk), actor=supervisor)
    assert (refused.value.status, refused.value.code) == (409, "round_voided")
    with pytest.raises(ApplicationError):
        check_transition("voided", "settled")
    response = supervisor_api.post(f"/api/rounds/{rnd.pk}/corrections/replace/", {"position": 1, "card": "KD"}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "round_voided")
    assert ledger_snapshot() == books
    assert (balance(alice), fresh(rnd).status) == (D(1000), "voided")


# --- races: real parallel connections ------------------------------------------------------------

def race(*calls):
    """The calls at the same moment (tests.parallel.at_once): for each, ("ok", result) or ("error", exception)."""
    return [("error", r) if isinstance(r, Exception) else ("ok", r) for r in at_once(*calls, timeout=60)]


@pytest.fixture
def crowd(db):
    return [quick_player(f"p{i:02d}", 1000) for i in range(16)]


def finished_round_with_bets(table, dealer, players, joker="KS", cards=("2C", "3D", "4H", "KH")):
    """A finished round (its settlement held back) where each player has a main bet and a side bet."""
    rnd = open_round(table, dealer, joker)
    for i, player in enumerate(players):
        place(player, rnd, "andar" if i % 2 else "bahar", 10 + i)
        place(player, rnd, "count_1_5" if i % 3 else "first_three", 10)
    close(rnd, dealer)
    assert deal(rnd, dealer, list(cards))
    return fresh(rnd)


@pytest.mark.django_db(transaction=True)
def test_a_void_racing_the_settlement_leaves_everyone_where_they_started(dealer, supervisor, make_table, crowd, held_tasks):
    for _ in range(4):  # whichever gets the round's lock first, the books end the same
        rnd = finished_round_with_bets(make_table(), dealer, crowd)
        incident = raise_incident(rnd, supervisor, "settlement")
        settle, voided = race(lambda: round_settle(round_id=rnd.pk),
                              lambda: incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="race"))
        assert settle[0] == "ok" and voided[0] == "ok", (settle, voided)
        after = fresh(rnd)
        assert after.status == "voided"
        assert all(balance(p) == D(1000) for p in crowd), [balance(p) for p in crowd]
        bets = list(Bet.objects.filter(round=rnd))
        assert {b.status for b in bets} == {"refunded"}
        refund_version = 2 if settle[1] else 1
        assert after.settlement_version == refund_version
        assert refunds_of(rnd, refund_version) == {(b.pk, b.amount) for b in bets}
        wins = {(e.bet_id, e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, kind="win", account__kind="player")}
        reversals = {(e.bet_id, -e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, kind="reversal", account__kind="player")}
        assert wins == reversals and (bool(wins) is settle[1])
        assert_books_balance()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_incident", [True, False], ids=["same-incident", "two-incidents"])
def test_two_voids_at_once_one_succeeds(dealer, supervisor, make_table, crowd, held_tasks, same_incident):
    for _ in range(2):
        rnd = open_round(make_table(), dealer, "KS")
        for player in crowd:
            place(player, rnd, "andar", 20)
        first = raise_incident(rnd, dealer, "equipment")
        second = first if same_incident else raise_incident(rnd, supervisor, "stream")
        results = race(*(lambda i=i: incidents.incident_void(incident_id=i.pk, actor=supervisor, reason="race")
                         for i in (first, second)))
        assert sorted(r[0] for r in results) == ["error", "ok"], results
        error = next(r[1] for r in results if r[0] == "error")
        assert isinstance(error, ApplicationError) and error.code == "incident_voided", error
        assert all(balance(p) == D(1000) for p in crowd)
        assert LedgerEntry.objects.filter(round_id=rnd.pk, kind="refund", account__kind="player").count() == len(crowd)
        assert_books_balance()


# --- the stream and personal messages ------------------------------------------------------------

async def collect(layer, channel, done, timeout=5.0):
    """Messages on `channel` until `done(messages)` holds (or the timeout)."""
    got = []

    async def loop():
        while not done(got):
            message = await layer.receive(channel)  # tables.stream: the event travels encoded, once
            got.extend(json.loads(part["text"]) for part in stream.parts(message))

    try:
        await asyncio.wait_for(loop(), timeout)
    except asyncio.TimeoutError:
        pass
    return got


@pytest.mark.django_db(transaction=True)
async def test_pauses_corrections_and_voids_reach_the_table_stream_and_players(dealer, supervisor, alice, table):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    groups = [stream.table_group(table.pk), stream.user_group(alice.pk)]
    for group in groups:
        await layer.group_add(group, channel)
    try:
        def play():
            rnd = open_round(table, dealer, "KS")
            place(alice, rnd, "andar", 50)
            first = raise_incident(rnd, dealer, "stream")
            incidents.incident_resume(incident_id=first.pk, actor=supervisor)
            close(rnd, dealer)
            deal(rnd, dealer, ["2C", "3D"])
            second = raise_incident(rnd, dealer, "misread")
            incidents.card_replace(round_id=rnd.pk, position=2, card="5D", actor=supervisor)
            incidents.incident_void(incident_id=second.pk, actor=supervisor, reason="camera lost")
            return rnd

        def play_and_disconnect():
            try:
                return play()
            finally:
                connection.close()  # this worker thread's own connection

        rnd = await sync_to_async(play_and_disconnect)()
        events = await collect(layer, channel, lambda got: {"round.voided", "bet.refunded"} <= {e["type"] for e in got})
    finally:
        for group in groups:
            await layer.group_discard(group, channel)

    table_events = [e for e in events if "seq" in e]
    assert [e["type"] for e in table_events] == [
        "round.opened", "round.paused", "round.resumed", "betting.closed", "card.dealt", "card.dealt",
        "round.paused", "round.corrected", "round.voided",
    ]
    seqs = [e["seq"] for e in table_events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    by_type = {e["type"]: e for e in table_events}  # the last of each type
    assert by_type["round.paused"]["kind"] == "misread" and by_type["round.paused"]["betting_left_ms"] is None
    assert table_events[1]["kind"] == "stream" and table_events[1]["betting_left_ms"] > 0
    assert by_type["round.resumed"]["status"] == "betting"
    corrected = by_type["round.corrected"]
    assert (corrected["action"], corrected["position"], corrected["before"], corrected["after"]) == ("replace", 2, "3D", "5D")
    assert corrected["cards"] == [{"position": 1, "side": "andar", "card": "2C"}, {"position": 2, "side": "bahar", "card": "5D"}]
    assert (by_type["round.voided"]["round"], by_type["round.voided"]["reason"]) == (rnd.pk, "camera lost")
    assert (by_type["round.voided"]["bets"], D(by_type["round.voided"]["refunded"])) == (1, D(50))

    personal = [e for e in events if "seq" not in e]
    assert [e["type"] for e in personal] == ["bet.placed", "bet.refunded"]
    refunded = personal[1]
    assert (refunded["round"], D(refunded["refunded"]), D(refunded["balance"])) == (rnd.pk, D(50), D(1000))
    assert [(b["spot"], D(b["amount"]), b["status"]) for b in refunded["bets"]] == [("andar", D(50), "refunded")]


@pytest.mark.django_db(transaction=True)
def test_a_resume_racing_a_void_one_wins_the_other_is_refused_whole(dealer, supervisor, make_table, crowd, held_tasks):
    for _ in range(4):  # whichever gets the round's lock first, the other changes nothing
        rnd = open_round(make_table(), dealer, "KS")
        for player in crowd:
            place(player, rnd, "andar", 20)
        incident = raise_incident(rnd, dealer, "equipment")
        staking = [balance(p) for p in crowd]
        resumed, voided = race(lambda: incidents.incident_resume(incident_id=incident.pk, actor=supervisor),
                               lambda: incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="race"))
        assert sorted([resumed[0], voided[0]]) == ["error", "ok"], (resumed, voided)
        after = fresh(rnd)
        actions = list(after.events.filter(action__in=["resumed", "voided"]).values_list("action", flat=True))
        if resumed[0] == "ok":
            assert isinstance(voided[1], ApplicationError) and voided[1].code == "incident_resolved", voided
            assert (after.status, actions, incident_status(incident)) == ("betting", ["resumed"], "resolved")
            assert [balance(p) for p in crowd] == staking  # the stakes stay on the felt
        else:
            assert isinstance(resumed[1], ApplicationError) and resumed[1].code == "incident_voided", resumed
            assert (after.status, actions, incident_status(incident)) == ("voided", ["voided"], "voided")
            assert [balance(p) for p in crowd] == [b + 20 for b in staking]  # every stake refunded
        assert_books_balance()


def incident_status(incident) -> str:
    return Incident.objects.values_list("status", flat=True).get(pk=incident.pk)


@pytest.mark.django_db
def test_a_voided_round_says_why_in_its_detail_and_the_stream_snapshot(dealer, supervisor_api, anon_api, alice, table):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 50)
    assert anon_api.get(f"/api/rounds/{rnd.pk}/").json()["void_reason"] is None
    incident = raise_incident(rnd, dealer, "equipment", "shoe fault")
    assert void(supervisor_api, incident, "shoe cannot be fixed").status_code == 200
    assert anon_api.get(f"/api/rounds/{rnd.pk}/").json()["void_reason"] == "shoe cannot be fixed"
    snapshot = anon_api.get(f"/api/tables/{table.pk}/stream-snapshot/").json()
    assert (snapshot["round"]["status"], snapshot["round"]["void_reason"]) == ("voided", "shoe cannot be fixed")
