"""Placing, taking back and repeating bets through the API, and reading bets, balances and ledgers.
Every refusal leaves the balance exactly as it was."""
from datetime import timedelta

import pytest
from django.utils import timezone

from bets.ledger import chips_issue, chips_set
from bets.models import Bet, LedgerEntry
from tables.models import Round
from tests.bets.flow import D, EXAMPLE_2_CARDS, balance, bet, close, deal, open_round, placed
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_id(dealer_api, table):
    """A round taking bets at the default table: classic, chip_unit 1, bets 10..500 a round."""
    return open_round(dealer_api, table)


def refused(api, round_id, spot, amount, status, user, field=None, code=None, key=None):
    before = balance(user)
    bets_before = Bet.objects.count()
    response = bet(api, round_id, spot, amount, key=key)
    assert response.status_code == status, response.content
    body = response.json()
    if field:
        assert field in body["fields"], body
    if code:
        assert body["code"] == code, body
    assert balance(user) == before
    assert Bet.objects.count() == bets_before
    return body


# --- placing --------------------------------------------------------------------------------------

def test_a_bet_is_placed_and_debited(alice_api, alice, round_id):
    body = placed(alice_api, round_id, "andar", "50")
    assert set(body) >= {"id", "spot", "amount", "status", "balance"}
    assert (body["spot"], D(body["amount"]), body["status"], D(body["balance"])) == ("andar", D("50"), "open", D("950"))
    assert balance(alice) == D("950")
    debit = LedgerEntry.objects.get(bet_id=body["id"], account__user=alice)
    assert (debit.kind, debit.amount) == ("bet", D("-50"))


def test_the_same_idempotency_key_returns_the_same_bet_and_debits_once(alice_api, alice, round_id):
    first = bet(alice_api, round_id, "andar", "50", key="tap-1")
    again = bet(alice_api, round_id, "andar", "50", key="tap-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert D(again.json()["balance"]) == D("950") == balance(alice)
    assert LedgerEntry.objects.filter(account__user=alice, kind="bet").count() == 1
    assert Bet.objects.filter(player=alice).count() == 1


def test_an_idempotency_key_reused_for_another_spot_is_refused(alice_api, alice, round_id):
    placed_bet = bet(alice_api, round_id, "andar", "50", key="tap-1").json()
    body = refused(alice_api, round_id, "count_6_10", "50", 409, alice, code="idempotency_key_reused", key="tap-1")
    assert body["message"]
    assert Bet.objects.get().pk == placed_bet["id"]


def test_a_bet_after_close_is_refused(alice_api, alice, dealer_api, round_id):
    close(dealer_api, round_id)
    refused(alice_api, round_id, "andar", "50", 409, alice, code="betting_closed")


def test_a_bet_after_the_deadline_is_refused_before_anyone_closes(alice_api, alice, round_id):
    Round.objects.filter(pk=round_id).update(closes_at=timezone.now() - timedelta(seconds=1))
    refused(alice_api, round_id, "andar", "50", 409, alice, code="betting_closed")
    assert Round.objects.get(pk=round_id).status == "betting"


def test_a_spot_the_table_does_not_offer_is_a_400_on_spot(alice_api, alice, dealer_api, make_table):
    round_id = open_round(dealer_api, make_table(mode="no_commission", chip_unit=D("0.01")))
    refused(alice_api, round_id, "first_three", "10", 400, alice, field="spot")
    refused(alice_api, round_id, "middle", "10", 400, alice, field="spot")


@pytest.mark.parametrize("amount", ["0", "-5", "2.5", "abc", "", "NaN", "Infinity", "1e40", "1e13"])
def test_an_amount_that_is_not_a_positive_multiple_of_the_chip_unit_is_a_400_on_amount(alice_api, alice, round_id, amount):
    refused(alice_api, round_id, "andar", amount, 400, alice, field="amount")


def test_cents_are_refused_at_a_play_table_and_taken_at_a_cash_table(alice_api, alice, dealer_api, make_table):
    cash = open_round(dealer_api, make_table(chip_unit=D("0.01")))
    assert D(placed(alice_api, cash, "andar", "10.25")["balance"]) == D("989.75")
    refused(alice_api, cash, "bahar", "0.001", 400, alice, field="amount")


def test_a_round_total_over_max_bet_is_refused(alice_api, alice, round_id):
    body = refused(alice_api, round_id, "andar", "501", 400, alice, field="amount", code="over_max_bet")
    assert (body["max_bet"], body["would_stake"]) == ("500.00", "501.00")  # the figures, for a page to say in its language
    placed(alice_api, round_id, "andar", "300")
    body = refused(alice_api, round_id, "count_6_10", "201", 400, alice, field="amount", code="over_max_bet")
    assert body["would_stake"] == "501.00"
    placed(alice_api, round_id, "count_6_10", "200")  # exactly max_bet in all
    assert balance(alice) == D("500")


def test_a_round_total_under_min_bet_is_refused(alice_api, alice, round_id):
    body = refused(alice_api, round_id, "andar", "5", 400, alice, field="amount", code="under_min_bet")
    assert (body["min_bet"], body["would_stake"]) == ("10.00", "5.00")
    placed(alice_api, round_id, "andar", "10")
    placed(alice_api, round_id, "count_6_10", "5")  # the round total (15) is what counts


def test_a_player_with_less_than_min_bet_may_stake_exactly_all_of_it(alice_api, alice, bob_api, bob, round_id):
    chips_set(user=alice, balance=D("7"))
    chips_set(user=bob, balance=D("7"))
    refused(bob_api, round_id, "andar", "5", 400, bob, field="amount", code="under_min_bet")
    assert D(placed(alice_api, round_id, "andar", "7")["balance"]) == D("0")


def test_more_than_the_balance_is_refused(alice_api, alice, round_id):
    chips_set(user=alice, balance=D("100"))
    refused(alice_api, round_id, "andar", "200", 400, alice, field="amount", code="insufficient_funds")
    assert refused(alice_api, round_id, "andar", "101", 400, alice, field="amount", code="insufficient_funds")["balance"] == "100.00"
    assert D(placed(alice_api, round_id, "andar", "100")["balance"]) == D("0")


def test_both_main_sides_are_refused_unless_the_table_allows_them(alice_api, alice, dealer_api, round_id, make_table):
    placed(alice_api, round_id, "andar", "50")
    refused(alice_api, round_id, "bahar", "50", 400, alice, field="spot", code="both_sides")
    placed(alice_api, round_id, "andar", "20")  # more on the same side is fine
    both = open_round(dealer_api, make_table(allow_both_sides=True))
    placed(alice_api, both, "andar", "50")
    placed(alice_api, both, "bahar", "50")


def test_a_cancelled_side_no_longer_blocks_the_other(alice_api, round_id):
    mine = placed(alice_api, round_id, "andar", "50")
    assert alice_api.delete(f"/api/bets/{mine['id']}/").status_code == 200
    placed(alice_api, round_id, "bahar", "50")


def test_only_players_may_bet(dealer_api, supervisor_api, round_id, outsider):
    for api in (dealer_api, supervisor_api, client_for(outsider)):
        response = bet(api, round_id, "andar", "50")
        assert response.status_code == 403, response.content
    assert Bet.objects.count() == 0


def test_an_anonymous_bet_is_a_401(anon_api, round_id):
    assert bet(anon_api, round_id, "andar", "50").status_code == 401
    assert anon_api.get("/api/me/").status_code == 401


def test_a_bet_on_an_unknown_round_is_a_404(alice_api, alice, db):
    assert bet(alice_api, 999999, "andar", "50").status_code == 404


# --- taking a bet back ----------------------------------------------------------------------------

def test_a_bet_taken_back_while_betting_is_open_returns_the_stake(alice_api, alice, round_id):
    mine = placed(alice_api, round_id, "andar", "50")
    response = alice_api.delete(f"/api/bets/{mine['id']}/")
    assert response.status_code == 200, response.content
    assert D(response.json()["balance"]) == D("1000") == balance(alice)
    assert response.json()["currency"] == "CHIPS"
    assert Bet.objects.get(pk=mine["id"]).status == "cancelled"
    assert sorted(LedgerEntry.objects.filter(bet_id=mine["id"], account__user=alice).values_list("kind", "amount")) == [
        ("bet", D("-50")), ("cancel", D("50"))]
    again = alice_api.delete(f"/api/bets/{mine['id']}/")
    assert again.status_code == 409 and balance(alice) == D("1000")


def test_a_bet_cannot_be_taken_back_after_close(alice_api, alice, dealer_api, round_id):
    mine = placed(alice_api, round_id, "andar", "50")
    close(dealer_api, round_id)
    response = alice_api.delete(f"/api/bets/{mine['id']}/")
    assert response.status_code == 409, response.content
    assert balance(alice) == D("950")
    assert Bet.objects.get(pk=mine["id"]).status == "open"


def test_someone_elses_bet_cannot_be_taken_back(alice_api, alice, bob_api, bob, round_id):
    mine = placed(alice_api, round_id, "andar", "50")
    assert bob_api.delete(f"/api/bets/{mine['id']}/").status_code == 404
    assert (balance(alice), balance(bob)) == (D("950"), D("1000"))
    assert Bet.objects.get(pk=mine["id"]).status == "open"


# --- repeating the previous round -----------------------------------------------------------------

def _play_a_round(alice_api, dealer_api, table, bets, cancel=()):
    rid = open_round(dealer_api, table)
    for spot, amount in bets:
        placed(alice_api, rid, spot, amount)
    for spot, amount in cancel:
        alice_api.delete(f"/api/bets/{placed(alice_api, rid, spot, amount)['id']}/")
    close(dealer_api, rid)
    deal(dealer_api, rid, EXAMPLE_2_CARDS)
    return rid


def test_repeat_places_the_previous_rounds_bets_again(alice_api, alice, dealer_api, table):
    _play_a_round(alice_api, dealer_api, table, [("andar", "50"), ("count_6_10", "20")], cancel=[("first_three", "10")])
    before = balance(alice)
    rid = open_round(dealer_api, table, joker="7H")
    response = alice_api.post(f"/api/rounds/{rid}/bets/repeat/")
    assert response.status_code == 201, response.content
    assert [(b["spot"], D(b["amount"]), b["status"]) for b in response.json()] == [
        ("andar", D("50"), "open"), ("count_6_10", D("20"), "open")]
    assert D(response.json()[-1]["balance"]) == before - 70 == balance(alice)


def test_repeat_is_all_or_nothing(alice_api, alice, dealer_api, table):
    _play_a_round(alice_api, dealer_api, table, [("andar", "300"), ("count_6_10", "150")])
    table.max_bet = D("400")  # the second bet no longer fits in the round's limit
    table.save()
    before = balance(alice)
    rid = open_round(dealer_api, table, joker="7H")
    response = alice_api.post(f"/api/rounds/{rid}/bets/repeat/")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "over_max_bet"
    assert Bet.objects.filter(round_id=rid).count() == 0
    assert balance(alice) == before


def test_repeat_that_cannot_be_afforded_places_nothing(alice_api, alice, dealer_api, table):
    _play_a_round(alice_api, dealer_api, table, [("andar", "300"), ("count_6_10", "150")])
    chips_set(user=alice, balance=D("400"))
    rid = open_round(dealer_api, table, joker="7H")
    response = alice_api.post(f"/api/rounds/{rid}/bets/repeat/")
    assert response.status_code == 400 and response.json()["code"] == "insufficient_funds"
    assert Bet.objects.filter(round_id=rid).count() == 0 and balance(alice) == D("400")


def test_repeat_with_nothing_to_repeat_is_a_409(alice_api, alice, round_id):
    response = alice_api.post(f"/api/rounds/{round_id}/bets/repeat/")
    assert response.status_code == 409 and response.json()["code"] == "nothing_to_repeat"
    assert balance(alice) == D("1000")


# --- reading bets, balances and ledgers -----------------------------------------------------------

def test_a_player_sees_only_their_bets_and_a_supervisor_sees_all_with_totals(alice_api, bob_api, supervisor_api, round_id):
    placed(alice_api, round_id, "andar", "50")
    placed(alice_api, round_id, "count_6_10", "20")
    placed(bob_api, round_id, "andar", "30")
    mine = alice_api.get(f"/api/rounds/{round_id}/bets/").json()
    assert [(b["player"], b["spot"]) for b in mine["bets"]] == [("alice", "andar"), ("alice", "count_6_10")]
    assert D(mine["staked"]) == D("70")
    everyone = supervisor_api.get(f"/api/rounds/{round_id}/bets/").json()
    assert len(everyone["bets"]) == 3 and D(everyone["staked"]) == D("100")
    assert {s: (t["count"], D(t["staked"])) for s, t in everyone["totals"].items()} == {
        "andar": (2, D("80")), "count_6_10": (1, D("20"))}


def test_me_shows_username_roles_and_balance(alice_api, alice, round_id):
    placed(alice_api, round_id, "andar", "50")
    me = alice_api.get("/api/me/").json()
    assert (me["username"], me["roles"], D(me["balance"])) == ("alice", ["player"], D("950"))


def test_my_ledger_is_paginated_newest_first(alice_api, alice, bob):
    for _ in range(55):
        chips_issue(user=alice, amount=D("1"))
    chips_issue(user=bob, amount=D("5"))
    first = alice_api.get("/api/me/ledger/").json()
    assert first["count"] == 56  # the 1000 issued at creation, and 55 more
    assert len(first["results"]) == 50 and first["next"]
    ids = [e["id"] for e in first["results"]]
    assert ids == sorted(ids, reverse=True)
    second = alice_api.get(first["next"]).json()
    assert len(second["results"]) == 6 and second["next"] is None
    assert sum(D(e["amount"]) for e in first["results"] + second["results"]) == balance(alice) == D("1055")


def test_a_supervisor_may_read_any_players_ledger_and_a_player_may_not(supervisor_api, alice_api, alice, bob, round_id):
    placed(alice_api, round_id, "andar", "50")
    hers = supervisor_api.get("/api/me/ledger/?player=alice")
    assert hers.status_code == 200
    assert [(e["kind"], D(e["amount"])) for e in hers.json()["results"]] == [("bet", D("-50")), ("issue", D("1000"))]
    assert alice_api.get("/api/me/ledger/?player=bob").status_code == 403
    assert alice_api.get("/api/me/ledger/?player=alice").status_code == 200
    assert supervisor_api.get("/api/me/ledger/?player=nobody").status_code == 404
