"""Matches of several rounds (RULES.md, "Matches of several rounds"), played through the API: the
lobby (create, join by code, start), the match's own chips, whole matches in both scorings (most
chips, a shared win, a draw, the early end, points), betting that ends early or times out, the
bets set out again, a player who watches, a voided round, the ledger, and the stream."""
import asyncio
import json
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connections

from bets.models import Account, Bet, LedgerEntry
from tables import services
from virtual import dealer as virtual
from tables.models import Match, Round, Table, TableChange
from tables.stream import parts, table_group
from tests.conftest import client_for, make_user

from .play import SIT_OUT, MatchPlay, assert_match_chips_balance, ledger_sum

D = Decimal
S = Round.Status
whole_match = pytest.mark.django_db(transaction=True)


@pytest.fixture
def carol(db):
    return make_user("carol", "player")


@pytest.fixture
def carol_api(carol):
    return client_for(carol)


def create(client, status=201, **body):
    response = client.post("/api/matches/", body, format="json")
    assert response.status_code == status, response.content
    return response.json()


def join(client, code, status=200):
    response = client.post("/api/matches/join/", {"code": code}, format="json")
    assert response.status_code == status, response.content
    return response.json()


def start(client, match_id, status=200):
    response = client.post(f"/api/matches/{match_id}/start/")
    assert response.status_code == status, response.content
    return response.json()


def result(play: MatchPlay) -> dict:
    state = play.state()
    assert state["status"] == "finished"
    return state["result"]


# --- the lobby ----------------------------------------------------------------------------------

def test_a_player_creates_a_match_on_a_new_private_table_and_plays_in_it(alice_api, alice):
    body = create(alice_api, scoring="points", rounds=10)
    assert (body["scoring"], body["rounds"], body["status"], body["created_by"]) == ("points", 10, "lobby", "alice")
    assert len(body["code"]) == 6 and body["code"].isupper()
    assert [p["player"] for p in body["players"]] == ["alice"] and body["me"]["player"] == "alice"
    table = Table.objects.get(pk=body["table"])
    assert table.is_private and not table.virtual_dealer and table.currency == f"M{body['id']}" == body["currency"]
    assert Table.objects.count() == 1  # a new table, of its own


def test_a_match_is_20_rounds_of_chips_unless_chosen_otherwise(alice_api):
    body = create(alice_api)
    assert (body["scoring"], body["rounds"]) == ("chips", 20)


def test_a_supervisor_creates_a_match_without_playing_in_it(supervisor_api):
    body = create(supervisor_api, rounds=30)
    assert body["rounds"] == 30 and body["players"] == [] and body["me"] is None


def test_a_dealer_cannot_create_a_match(dealer_api):
    assert create(dealer_api, status=403)["code"] == "permission_denied"
    assert not Match.objects.exists()


@pytest.mark.parametrize("body, field", [({"rounds": 15}, "rounds"), ({"scoring": "x"}, "scoring"),
                                         ({"betting_seconds": 2}, "betting_seconds")])
def test_a_match_is_10_20_or_30_rounds_scored_in_chips_or_points(alice_api, body, field):
    error = create(alice_api, status=400, **body)
    assert field in error["fields"]
    assert not Match.objects.exists() and not Table.objects.exists()


def test_players_join_by_the_code_in_any_case_and_joining_twice_changes_nothing(alice_api, bob_api):
    code = create(alice_api)["code"]
    body = join(bob_api, f"  {code.lower()} ")
    assert [p["player"] for p in body["players"]] == ["alice", "bob"] and body["me"]["player"] == "bob"
    again = join(bob_api, code)
    assert [p["player"] for p in again["players"]] == ["alice", "bob"]
    assert join(alice_api, code)["me"]["player"] == "alice"  # the creator is in it already


def test_an_unknown_code_is_refused(alice_api, bob_api):
    code = create(alice_api)["code"]
    unknown = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    error = join(bob_api, unknown, status=400)
    assert error["code"] == "unknown_code" and "code" in error["fields"]


def test_a_seventh_player_is_refused(alice_api):
    code = create(alice_api)["code"]
    for n in range(2, 7):
        join(client_for(make_user(f"player{n}", "player")), code)
    error = join(client_for(make_user("player7", "player")), code, status=409)
    assert error["code"] == "match_full"
    assert Match.objects.get(code=code).players.count() == 6


def test_joining_after_the_start_is_refused(alice_api, bob_api, carol_api):
    body = create(alice_api)
    join(bob_api, body["code"])
    start(alice_api, body["id"])
    assert join(carol_api, body["code"], status=409)["code"] == "match_started"
    assert join(bob_api, body["code"])["me"]["player"] == "bob"  # already in: still fine


def test_only_the_creator_or_a_supervisor_starts_the_match(alice_api, bob_api, carol_api, dealer_api, supervisor_api):
    body = create(alice_api)
    join(bob_api, body["code"])
    assert start(bob_api, body["id"], status=403)["code"] == "permission_denied"  # in the match, not its creator
    assert start(carol_api, body["id"], status=404)["code"] == "not_found"  # not in the match: no such match to her
    assert start(dealer_api, body["id"], status=404)["code"] == "not_found"  # a dealer does not see matches
    assert Match.objects.get(pk=body["id"]).status == "lobby"
    assert start(supervisor_api, body["id"])["status"] == "running"
    assert start(alice_api, body["id"], status=409)["code"] == "match_running"


def test_a_match_needs_two_players_to_start(alice_api, supervisor_api):
    body = create(alice_api)
    assert start(alice_api, body["id"], status=409)["code"] == "too_few_players"
    empty = create(supervisor_api)
    assert start(supervisor_api, empty["id"], status=409)["code"] == "too_few_players"
    assert not Account.objects.filter(currency__startswith="M").exists()


def test_each_player_gets_1000_match_chips_apart_from_their_own_wallet(alice_api, bob_api, alice, bob):
    body = create(alice_api)
    join(bob_api, body["code"])
    chips_entries = LedgerEntry.objects.filter(account__currency="CHIPS").count()
    state = start(alice_api, body["id"])
    currency = f"M{body['id']}"
    assert state["status"] == "running" and state["started_at"]
    assert {p["player"]: p["chips"] for p in state["players"]} == {"alice": "1000.00", "bob": "1000.00"}
    assert Table.objects.get(pk=body["table"]).virtual_dealer
    for client in (alice_api, bob_api):
        me = client.get("/api/me/").json()
        assert (me["currency"], me["balance"]) == ("CHIPS", "1000.00")  # the player's own wallet is untouched
    issued = [e for e in alice_api.get("/api/me/ledger/").json()["results"] if f"match {body['code']}" in e["memo"]]
    assert [(e["kind"], e["amount"]) for e in issued] == [("issue", "1000.00")]
    assert LedgerEntry.objects.filter(account__currency="CHIPS").count() == chips_entries
    for user in (alice, bob):
        wallet = Account.objects.get(user=user, currency=currency)
        assert wallet.balance == D(1000)
        assert list(wallet.entries.values_list("kind", "amount")) == [("issue", D(1000))]
    mint = Account.objects.get(kind="mint", currency=currency)
    assert ledger_sum(account=mint) == D(-2000) and ledger_sum(account__currency=currency) == 0


def test_match_tables_are_hidden_from_players_but_not_from_supervisors(alice_api, bob_api, supervisor_api, make_table):
    make_table(name="Studio 1")
    body = create(alice_api)
    assert [t["name"] for t in bob_api.get("/api/tables/").json()] == ["Studio 1"]
    assert body["table"] in [t["id"] for t in supervisor_api.get("/api/tables/").json()]


def test_only_its_players_and_supervisors_see_a_match(alice_api, bob_api, supervisor_api):
    body = create(alice_api)
    assert bob_api.get(f"/api/matches/{body['id']}/").status_code == 404
    assert bob_api.get("/api/matches/").json() == []
    assert supervisor_api.get(f"/api/matches/{body['id']}/").json()["code"] == body["code"]
    assert [m["id"] for m in alice_api.get("/api/matches/").json()] == [body["id"]]


# --- whole matches ------------------------------------------------------------------------------

@whole_match
def test_most_chips_wins_a_ten_round_chips_match_and_its_chips_never_leak(alice_api, bob_api, alice, bob):
    chips_entries = sorted(LedgerEntry.objects.filter(account__currency="CHIPS").values_list("id", "amount"))
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    play.play("andar", alice=("andar", 100), bob=("bahar", 100))  # alice 1090, bob 900
    play.play("bahar", alice=("andar", 50), bob=[("bahar", 200), ("count_1_5", 10)])  # alice 1040, bob 1125
    play.play("andar", alice=("andar", 200), bob=SIT_OUT)  # alice 1220, bob 1125
    for n in range(4, 11):
        assert play.refresh().rounds_played == n - 1 and play.match.status == "running"
        play.nobody_bets()
    outcome = result(play)
    assert outcome["winners"] == ["alice"] and not outcome["shared"] and not outcome["draw"] and not outcome["early"]
    assert [(r["player"], r["chips"], r["rank"]) for r in outcome["ranking"]] == [("alice", "1220.00", 1), ("bob", "1125.00", 2)]
    state = play.state()
    assert state["rounds_played"] == 10 and state["finished_at"]
    history = {p["player"]: p["history"] for p in state["players"]}
    assert [h["chips"] for h in history["alice"][:4]] == ["1090.00", "1040.00", "1220.00", "1220.00"]
    assert [h["chips"] for h in history["bob"][:3]] == ["900.00", "1125.00", "1125.00"]
    assert [h["n"] for h in history["alice"]] == list(range(1, 11))
    assert not Table.objects.get(pk=play.table_id).virtual_dealer
    assert virtual.tick(table_id=play.table_id)[0] == "off"
    assert Round.objects.filter(table_id=play.table_id).count() == 10
    # The chips stayed in the match: the ledger balances, the house holds what the players lost, and
    # the players' own wallets never saw an entry.
    assert_match_chips_balance(play.match)
    house = Account.objects.get(kind="house", currency=play.match.currency)
    assert ledger_sum(account=house) == D(2000) - D(1220) - D(1125)
    assert sorted(LedgerEntry.objects.filter(account__currency="CHIPS").values_list("id", "amount")) == chips_entries
    for client in (alice_api, bob_api):
        assert client.get("/api/me/").json()["balance"] == "1000.00"
    # What the match did to its table is in the change log, like any other table's change.
    log = list(TableChange.objects.filter(table_id=play.table_id).order_by("id").values_list("field", "old", "new", "source", "actor_name"))
    assert log == [("created", "", log[0][2], "match", "alice"), ("name", log[0][2], f"Match {play.match.pk}", "match", "alice"),
                   ("currency", "M", play.match.currency, "match", "alice"), ("virtual_dealer", "false", "true", "match", "alice"),
                   ("virtual_dealer", "true", "false", "match", "the match")]


@whole_match
def test_players_level_at_the_top_share_the_win(alice_api, bob_api, carol_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api, "carol": carol_api})
    play.play("bahar", alice=("bahar", 100), bob=("bahar", 100), carol=("andar", 10))  # 1100, 1100, 990
    for _ in range(9):
        play.nobody_bets()
    outcome = result(play)
    assert sorted(outcome["winners"]) == ["alice", "bob"] and outcome["shared"] and not outcome["draw"]
    assert [(r["player"], r["rank"]) for r in outcome["ranking"]] == [("alice", 1), ("bob", 1), ("carol", 3)]


@whole_match
def test_the_state_gives_each_player_a_rank_and_each_finisher_a_net_result(alice_api, bob_api, carol_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api, "carol": carol_api})
    state = play.state()
    assert (state["start_chips"], state["betting_seconds"]) == ("1000", 20)
    assert {p["player"]: p["rank"] for p in state["players"]} == {"alice": 1, "bob": 1, "carol": 1}
    play.play("bahar", alice=("bahar", 100), bob=("bahar", 100), carol=("andar", 10))  # 1100, 1100, 990
    assert {p["player"]: p["rank"] for p in play.state()["players"]} == {"alice": 1, "bob": 1, "carol": 3}
    for _ in range(9):
        play.nobody_bets()
    ranking = play.state("carol")["result"]["ranking"]
    assert [(r["player"], r["rank"], r["net"]) for r in ranking] == [("alice", 1, "100.00"), ("bob", 1, "100.00"), ("carol", 3, "-10.00")]
    assert "net" not in Match.objects.get(pk=play.id).result["ranking"][0]  # computed for the answer, not stored


@whole_match
def test_everyone_level_at_the_end_is_a_draw(alice_api, bob_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    for n in range(10):
        play.everyone_sits_out("andar" if n % 2 else "bahar")
    outcome = result(play)
    assert outcome["draw"] and outcome["winners"] == [] and not outcome["shared"] and not outcome["early"]
    assert {r["chips"] for r in outcome["ranking"]} == {"1000.00"} and {r["rank"] for r in outcome["ranking"]} == {1}
    assert play.refresh().rounds_played == 10


@whole_match
def test_the_match_ends_early_when_only_one_player_has_chips(alice_api, bob_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    play.play("andar", alice=("bahar", 500), bob=SIT_OUT)
    assert play.refresh().status == "running"
    play.play("andar", alice=("bahar", 500), bob=("andar", 100))  # alice 0, bob 1090
    outcome = result(play)
    assert outcome["early"] and outcome["winners"] == ["bob"] and not outcome["draw"]
    assert [(r["player"], r["chips"]) for r in outcome["ranking"]] == [("bob", "1090.00"), ("alice", "0.00")]
    assert play.refresh().rounds_played == 2 < play.match.rounds_total
    assert not Table.objects.get(pk=play.table_id).virtual_dealer
    assert virtual.tick(table_id=play.table_id) == ("off", 5.0)
    assert Round.objects.filter(table_id=play.table_id).count() == 2  # no new round opens
    assert_match_chips_balance(play.match)


@whole_match
def test_a_teaching_match_scores_a_point_for_each_winning_main_bet(alice_api, bob_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api}, scoring="points")
    winners = ["andar"] * 6 + ["bahar"] * 4
    for n, winner in enumerate(winners):
        bob = [("bahar", 10), ("count_1_5", 10)] if n == 0 else ("bahar", 10)  # a winning side bet scores no point
        bob = SIT_OUT if n == 9 else bob  # bob sits out the last round: no point, even on Bahar
        play.play(winner, alice=("andar", 10), bob=bob)
    outcome = result(play)
    assert outcome["winners"] == ["alice"] and not outcome["shared"] and not outcome["draw"]
    assert [(r["player"], r["points"], r["score"]) for r in outcome["ranking"]] == [("alice", 6, "6"), ("bob", 3, "3")]
    alice_row = next(p for p in play.state()["players"] if p["player"] == "alice")
    assert [h["points"] for h in alice_row["history"]] == [1, 2, 3, 4, 5, 6, 6, 6, 6, 6]
    assert D(alice_row["chips"]) == D(1000) + 6 * 9 - 4 * 10  # the chips still move, they just don't score


@whole_match
def test_a_teaching_match_with_a_tie_at_the_top_shares_the_win(alice_api, bob_api, carol_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api, "carol": carol_api}, scoring="points")
    for n in range(10):
        winner = "andar" if n < 5 else "bahar"
        if n < 2:  # carol wins two side bets, which score no point
            play.play(winner, alice=("andar", 10), bob=("bahar", 10), carol=("count_1_5", 100))
        else:  # carol stops betting: her time runs out every round
            rnd = play.open(winner)
            play.bet("alice", ("andar", 10))
            play.bet("bob", ("bahar", 10))
            play.time_runs_out(rnd)
            play.deal_out(rnd)
    outcome = result(play)
    assert sorted(outcome["winners"]) == ["alice", "bob"] and outcome["shared"] and not outcome["draw"]
    assert [(r["player"], r["points"], r["rank"]) for r in outcome["ranking"]] == [("alice", 5, 1), ("bob", 5, 1), ("carol", 0, 3)]


# --- betting in a match -------------------------------------------------------------------------

@whole_match
def test_betting_ends_as_soon_as_every_active_player_has_bet_or_sat_out(alice_api, bob_api, alice):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    rnd = play.open("andar")
    state = play.bet("alice", ("andar", 100))
    assert state["current_round"] == {"id": rnd.pk, "status": "betting"}
    assert state["me"]["done"] and [p["done"] for p in state["players"]] == [True, False]
    assert play.bet("alice", ("andar", 10), status=409)["code"] == "already_done"
    state = play.sit_out("bob")
    rnd.refresh_from_db()
    assert rnd.status == S.DEALING and rnd.closed_at < rnd.closes_at
    assert state["current_round"]["status"] == "dealing"
    assert play.sit_out("bob", status=409)["code"] == "betting_closed"
    play.deal_out(rnd)
    assert play.chips() == {"alice": D(1090), "bob": D(1000)}
    assert Bet.objects.get(round=rnd, player=alice).status == "won"


@whole_match
def test_a_player_who_runs_out_of_time_sits_the_round_out(alice_api, bob_api, bob):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    rnd = play.open("andar")
    play.bet("alice", ("andar", 100))
    rnd.refresh_from_db()
    assert rnd.status == S.BETTING  # bob has not bet: betting waits for the countdown
    assert services.close_expired_betting() == 0
    play.time_runs_out(rnd)
    assert services.close_expired_betting() == 1
    play.deal_out(rnd)
    assert play.bet("bob", ("andar", 10), status=409)["code"] == "betting_closed"
    assert not Bet.objects.filter(round=rnd, player=bob).exists()
    assert play.refresh().rounds_played == 1  # the round counts
    bob_row = next(p for p in play.state()["players"] if p["player"] == "bob")
    assert bob_row["history"] == [{"round": rnd.pk, "scored": False, "n": 1, "points": 0, "chips": "1000.00"}]
    # The next round times out on the virtual dealer's own clock.
    nxt = play.open("bahar")
    play.time_runs_out(nxt)
    assert virtual.tick(table_id=play.table_id)[0] == "closed"
    play.deal_out(nxt)
    assert play.refresh().rounds_played == 2 and play.chips() == {"alice": D(1090), "bob": D(1000)}


@whole_match
def test_the_table_sets_out_the_last_bets_again_while_the_player_can_afford_them(alice_api, bob_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    assert play.state("alice")["me"]["proposal"] == []
    play.play("bahar", alice=("bahar", 400), bob=SIT_OUT)  # alice 1400
    assert play.state("alice")["me"]["proposal"] == [{"spot": "bahar", "amount": "400.00"}]
    assert play.state("bob")["me"]["proposal"] == []  # sat out: nothing to set out
    play.play("andar", alice=[("bahar", 400), ("count_6_10", 100)], bob=SIT_OUT)  # alice 900
    assert play.state("alice")["me"]["proposal"] == [{"spot": "bahar", "amount": "400.00"}, {"spot": "count_6_10", "amount": "100.00"}]
    play.play("andar", alice=("bahar", 500), bob=SIT_OUT)  # alice 400
    assert play.chips()["alice"] == D(400)
    assert play.state("alice")["me"]["proposal"] == []  # 500 is more than she has


@whole_match
def test_a_player_without_chips_watches_the_rest_of_the_match(alice_api, bob_api, carol_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api, "carol": carol_api})
    play.play("andar", alice=("bahar", 500), bob=SIT_OUT, carol=SIT_OUT)
    rnd = play.open("andar")
    state = play.bet("alice", ("bahar", 500))  # all in
    assert state["me"]["chips"] == "0.00" and not any(p["watching"] for p in state["players"])  # still playing
    play.sit_out("bob")
    play.sit_out("carol")
    play.deal_out(rnd)
    state = play.state("alice")
    assert state["status"] == "running"
    assert {p["player"]: p["watching"] for p in state["players"]} == {"alice": True, "bob": False, "carol": False}
    rnd = play.open("andar")
    assert play.bet("alice", ("andar", 10), status=409)["code"] == "watching"
    play.bet("bob", ("andar", 10))
    play.sit_out("carol")
    rnd.refresh_from_db()
    assert rnd.status == S.DEALING  # nobody waits for a player who watches
    play.deal_out(rnd)
    assert play.chips() == {"alice": D(0), "bob": D(1009), "carol": D(1000)}
    assert play.refresh().rounds_played == 3


@whole_match
def test_only_its_players_bet_in_a_match_and_only_while_betting_is_open(alice_api, bob_api, carol_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    play.clients["carol"] = carol_api
    assert play.bet("alice", ("andar", 10), status=409)["code"] == "betting_closed"  # no round open yet
    play.open("andar")
    assert play.bet("carol", ("andar", 10), status=404)["code"] == "not_found"  # not in the match: no such match to her
    assert play.sit_out("carol", status=404)["code"] == "not_found"
    assert play.bet("alice", ("andar", 600), status=400)["code"] == "over_max_bet"
    assert play.bet("alice", ("andar", 100), ("bahar", 100), status=400)["code"] == "both_sides"
    assert play.chips()["alice"] == D(1000)  # all or nothing
    assert not play.state("alice")["me"]["done"]


@whole_match
def test_once_in_a_match_bet_stays_for_the_round(alice_api, bob_api, alice):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    rnd = play.open("andar")
    play.bet("alice", ("bahar", 100))
    bet = Bet.objects.get(round=rnd, player=alice)
    assert alice_api.delete(f"/api/bets/{bet.pk}/").status_code == 409
    assert alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "200"}, format="json").status_code == 409
    assert play.chips()["alice"] == D(900)


# --- a voided round -----------------------------------------------------------------------------

@whole_match
def test_a_round_voided_during_betting_is_refunded_in_match_chips_and_does_not_count(alice_api, bob_api, supervisor_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    play.play("andar", alice=("andar", 100), bob=SIT_OUT)  # alice 1090
    rnd = play.open("bahar")
    play.bet("alice", ("andar", 200))
    assert play.chips()["alice"] == D(890)
    incident = supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "equipment"}, format="json")
    assert incident.status_code == 201, incident.content
    voided = supervisor_api.post(f"/api/incidents/{incident.json()['id']}/void/", {"reason": "shuffler jammed"}, format="json")
    assert voided.status_code == 200, voided.content
    rnd.refresh_from_db()
    assert rnd.status == S.VOIDED
    assert play.chips() == {"alice": D(1090), "bob": D(1000)}  # back in the match wallet
    state = play.state()
    assert state["rounds_played"] == 1 and state["status"] == "running"
    assert all([h["round"] for h in p["history"]] == [rnd.pk - 1] for p in state["players"])
    for client in (alice_api, bob_api):
        assert client.get("/api/me/").json()["balance"] == "1000.00"
    # The match goes on: the next round is round 2.
    play.play("andar", alice=SIT_OUT, bob=SIT_OUT)
    assert play.refresh().rounds_played == 2
    assert_match_chips_balance(play.match)


@whole_match
def test_voiding_a_settled_round_takes_back_its_wins_and_its_count(alice_api, bob_api, supervisor):
    from incidents import services as incidents

    play = MatchPlay.start({"alice": alice_api, "bob": bob_api}, scoring="points")
    rnd = play.play("andar", alice=("andar", 100), bob=("bahar", 50))
    assert play.refresh().rounds_played == 1 and play.chips() == {"alice": D(1090), "bob": D(950)}
    incident = incidents.incident_raise(round_id=rnd.pk, actor=supervisor, kind="misread")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="wrong pack")
    state = play.state()
    assert state["rounds_played"] == 0 and all(p["history"] == [] and p["points"] == 0 for p in state["players"])
    assert play.chips() == {"alice": D(1000), "bob": D(1000)}
    assert_match_chips_balance(play.match)


# --- the ledger and the stream ------------------------------------------------------------------

@whole_match
async def test_a_match_is_streamed_to_its_table_as_it_starts_plays_and_finishes(alice_api, bob_api):
    def create_and_join():
        created = create(alice_api, rounds=10)
        join(bob_api, created["code"])
        return created

    def play_it(match_id):
        start(alice_api, match_id)
        play = MatchPlay(match_id, {"alice": alice_api, "bob": bob_api})
        play.play("andar", alice=("bahar", 500), bob=SIT_OUT)
        play.play("andar", alice=("bahar", 500), bob=SIT_OUT)
        return play.refresh().result

    created = await sync_to_async(create_and_join, thread_sensitive=True)()
    layer = get_channel_layer()
    channel = await layer.new_channel("match-test.")
    await layer.group_add(table_group(created["table"]), channel)
    try:
        outcome = await sync_to_async(play_it, thread_sensitive=True)(created["id"])
        events = []
        while not events or events[-1]["type"] != "match.finished":
            message = await asyncio.wait_for(layer.receive(channel), timeout=10)
            events.extend(json.loads(part["text"]) for part in parts(message))
    finally:
        await layer.group_discard(table_group(created["table"]), channel)
        await sync_to_async(connections.close_all, thread_sensitive=True)()  # the worker thread's connection
    matches = [e for e in events if e["type"].startswith("match.")]
    assert [e["type"] for e in matches] == ["match.started", "match.round", "match.round", "match.finished"]
    started, first, second, finished = matches
    assert (started["match"], started["rounds"], started["players"], started["chips"]) == (created["id"], 10, ["alice", "bob"], "1000")
    assert [first["rounds_played"], second["rounds_played"]] == [1, 2]
    assert [(r["player"], r["chips"], r["rank"]) for r in second["standings"]] == [("bob", "1000.00", 1), ("alice", "0.00", 2)]
    assert finished["early"] and finished["winners"] == ["bob"] == outcome["winners"]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    settled = [i for i, e in enumerate(events) if e["type"] == "round.settled"]
    assert [events[i + 1]["type"] for i in settled] == ["match.round", "match.round"]


@whole_match
def test_a_double_tap_on_bet_places_the_bets_once(alice_api, bob_api, alice):
    """Two requests of one player race: the round row is held so both get past their first checks
    before either places a bet; the second must then find the player already done."""
    import threading
    import time

    from django.db import connection, transaction

    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    rnd = play.open("andar")
    answers, held, release = [], threading.Event(), threading.Event()

    def hold_round():
        with transaction.atomic():
            list(Round.objects.select_for_update().filter(pk=rnd.pk))
            held.set()
            release.wait(10)
        connections.close_all()

    def tap():
        answers.append(client_for(alice).post(f"/api/matches/{play.id}/bet/", {"bets": [{"spot": "andar", "amount": "100"}]},
                                              format="json").status_code)
        connections.close_all()

    holder = threading.Thread(target=hold_round)
    holder.start()
    held.wait(10)
    taps = [threading.Thread(target=tap) for _ in range(2)]
    for t in taps:
        t.start()
    try:
        for _ in range(200):  # both requests wait on a lock
            with connection.cursor() as cur:
                cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                if cur.fetchone()[0] >= 2:
                    break
            time.sleep(0.02)
    finally:
        release.set()
        for t in [holder, *taps]:
            t.join(20)
    assert sorted(answers) == [201, 409]
    assert Bet.objects.filter(round=rnd, player=alice).count() == 1
    assert play.chips()["alice"] == D(900)
