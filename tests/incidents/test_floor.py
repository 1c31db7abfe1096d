"""The floor (GET /api/floor/): every table a supervisor sees with its current round, players,
stakes, exposure and open incidents, in a number of queries that does not grow with the tables."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from bets.settlement import round_settle
from incidents.selectors import expected_silence
from tables.models import DealtCard

from .conftest import close, deal, open_round, place, quick_player, raise_incident

pytestmark = pytest.mark.django_db
D = Decimal


def floor(api):
    response = api.get("/api/floor/")
    assert response.status_code == 200, response.content
    return {row["name"]: row for row in response.json()}


@pytest.mark.parametrize("who, code", [("dealer_api", 403), ("alice_api", 403), ("anon_api", 401)])
def test_the_floor_is_for_supervisors_only(request, who, code):
    assert request.getfixturevalue(who).get("/api/floor/").status_code == code


def test_a_table_without_a_round_is_listed_with_none(supervisor_api, make_table):
    make_table(name="Empty", min_bet=D(5), max_bet=D(200))
    row = floor(supervisor_api)["Empty"]
    assert row["round"] is None and row["incidents"] == []
    assert (row["min_bet"], row["max_bet"], row["currency"], row["driver"]) == ("5.00", "200.00", "CHIPS", "person")


def test_a_betting_round_shows_its_players_stakes_and_exposure(supervisor_api, make_table, dealer):
    table = make_table(name="Salon", betting_seconds=600)
    rnd = open_round(table, dealer)
    alice, bob = quick_player("alice"), quick_player("bob")
    place(alice, rnd, "andar", 100)
    place(bob, rnd, "bahar", 50)
    place(bob, rnd, "count_6_10", 25)
    got = floor(supervisor_api)["Salon"]["round"]
    assert (got["id"], got["status"], got["joker"], got["cards_dealt"], got["last_card_at"]) == (rnd.pk, "betting", "KS", 0, None)
    assert (got["players"], got["bets"], got["staked"]) == (2, 3, "175.00")
    # The worst case: Andar (the first side, 0.9:1) wins on card 7 or 9, in the 6-10 box (3:1):
    # 190 + 100 back for 175 staked.
    assert (got["worst_payout"], got["exposure"]) == ("290.00", "115.00")
    assert got["betting_left_ms"] > 590_000 and got["stalled"] is False and got["silent_seconds"] is None


def test_cards_dealt_narrow_the_worst_case(supervisor_api, make_table, dealer):
    table = make_table(name="Salon", betting_seconds=600)
    rnd = open_round(table, dealer, joker="KS")
    alice = quick_player("alice")
    place(alice, rnd, "first_three", 10)  # 120:1 on a straight flush
    assert floor(supervisor_api)["Salon"]["round"]["exposure"] == "1200.00"
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "9D"])  # K, 2, 9: no First 3 hand any more
    got = floor(supervisor_api)["Salon"]["round"]
    assert (got["status"], got["cards_dealt"], got["exposure"], got["worst_payout"]) == ("dealing", 2, "0.00", "0.00")
    assert got["last_card_at"] is not None


def test_a_dealing_table_silent_for_longer_than_expected_is_flagged(supervisor_api, make_table, dealer, settings):
    settings.FLOOR_SILENCE_SECONDS = 20
    table = make_table(name="Salon")
    rnd = open_round(table, dealer)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C"])
    got = floor(supervisor_api)["Salon"]["round"]
    assert (got["stalled"], got["expected_seconds"]) == (False, 20.0)
    DealtCard.objects.filter(round=rnd).update(dealt_at=timezone.now() - timedelta(seconds=45))
    got = floor(supervisor_api)["Salon"]["round"]
    assert got["stalled"] is True and 45 <= got["silent_seconds"] < 60


def test_open_incidents_and_a_voided_round(supervisor_api, make_table, dealer, supervisor):
    table = make_table(name="Salon", betting_seconds=600)
    rnd = open_round(table, dealer)
    place(quick_player("alice"), rnd, "andar", 100)
    incident = raise_incident(rnd, supervisor, kind="equipment", notes="Shoe jammed")
    got = floor(supervisor_api)["Salon"]
    assert got["round"]["status"] == "paused"
    assert [(i["id"], i["round"], i["kind"], i["round_status"], i["raised_by"], i["notes"]) for i in got["incidents"]] == [
        (incident.pk, rnd.pk, "equipment", "paused", "supervisor", 1)]
    supervisor_api.post(f"/api/incidents/{incident.pk}/void/", {"reason": "shoe"}, format="json")
    got = floor(supervisor_api)["Salon"]
    assert got["incidents"] == [] and (got["round"]["status"], got["round"]["exposure"], got["round"]["staked"]) == (
        "voided", "0.00", "100.00")


def busy_tables(make_table, dealer, supervisor, n):
    """n tables, each with a round in dealing with two players' bets, a card and an open incident."""
    players = [quick_player(f"p{k}") for k in range(2)]
    for k in range(n):
        rnd = open_round(make_table(name=f"T{k}", betting_seconds=600), dealer)
        for p in players:
            place(p, rnd, "andar", 10)
            place(p, rnd, "count_1_5", 10)
        close(rnd, dealer)
        deal(rnd, dealer, ["2C"])
        raise_incident(rnd, supervisor)


@pytest.mark.parametrize("tables", [1, 20])
def test_the_floor_costs_the_same_queries_for_1_or_20_tables(tables, supervisor_api, make_table, dealer, supervisor,
                                                            django_assert_max_num_queries):
    busy_tables(make_table, dealer, supervisor, tables)
    make_table(name="Idle")
    # The token (with its user and roles) is one query; the floor seven.
    with django_assert_max_num_queries(8):
        rows = floor(supervisor_api)
    assert len(rows) == tables + 1
    assert all(rows[f"T{k}"]["round"]["players"] == 2 and len(rows[f"T{k}"]["incidents"]) == 1 for k in range(tables))


def test_each_shift_shows_its_settled_rounds_turnover_and_ggr(supervisor_api, make_table, dealer):
    table = make_table(name="Salon", betting_seconds=600)
    alice, bob = quick_player("alice"), quick_player("bob")
    shift = floor(supervisor_api)["Salon"]["on_shift"]
    assert shift is None
    for cards in (["2C", "KD"], ["2C", "3D", "KH"]):  # Bahar wins on card 2, then Andar on card 3 (0.9:1)
        rnd = open_round(table, dealer, joker="KS")
        place(alice, rnd, "andar", 100)
        place(bob, rnd, "bahar", 40)
        close(rnd, dealer)
        assert deal(rnd, dealer, cards)
        assert round_settle(round_id=rnd.pk)
    open_round(table, dealer, joker="QS")  # a round under way counts when it is settled
    shift = floor(supervisor_api)["Salon"]["on_shift"]
    # staked 280; paid back 80 (Bahar 40 at 1:1) and 190 (Andar 100 at 0.9:1)
    assert (shift["rounds"], shift["turnover"], shift["ggr"]) == (2, "280.00", "10.00")


def test_a_virtual_table_is_expected_at_its_own_pace(supervisor_api, make_table):
    """Five deal intervals, and never less than 3 s."""
    slow, quick = make_table(name="Slow", virtual_dealer=True, deal_interval_ms=2000), make_table(name="Quick", virtual_dealer=True, deal_interval_ms=100)
    assert (expected_silence(slow, "virtual"), expected_silence(quick, "virtual")) == (10.0, 3)


def test_a_finished_round_costs_what_settlement_paid(supervisor_api, make_table, dealer):
    table = make_table(name="Salon", betting_seconds=600)
    rnd = open_round(table, dealer, joker="KS")
    place(quick_player("alice"), rnd, "andar", 100)  # the first side, 0.9:1
    place(quick_player("bob"), rnd, "count_1_5", 10)  # 2:1
    close(rnd, dealer)
    assert deal(rnd, dealer, ["2C", "KD"])  # Bahar wins on card 2
    got = floor(supervisor_api)["Salon"]["round"]
    assert (got["status"], got["winner"]) == ("finished", "bahar")
    assert (got["worst_payout"], got["exposure"], got["staked"]) == ("30.00", "0.00", "110.00")
    assert round_settle(round_id=rnd.pk)
    rnd.refresh_from_db()
    got = floor(supervisor_api)["Salon"]["round"]
    assert got["status"] == "settled" and D(got["worst_payout"]) == rnd.total_paid


def test_the_floor_shows_each_tables_state_dealer_shift_length_and_rotation_due(supervisor_api, make_table, dealer):
    from tables import services
    from tables.models import Shift

    closed, dealt, due = make_table(name="Closed"), make_table(name="Dealt"), make_table(name="Due", shift_minutes=20)
    services.table_state_set(table_id=closed.pk, state="maintenance", reason="Shoe jammed", actor=None, source="command")
    open_round(dealt, dealer)  # the implicit shift
    other = quick_player("dealer2")
    Shift.objects.create(table=due, dealer=other, started_at=timezone.now() - timedelta(minutes=25))
    rows = floor(supervisor_api)
    assert (rows["Closed"]["state"], rows["Closed"]["state_reason"], rows["Closed"]["on_shift"]) == ("maintenance", "Shoe jammed", None)
    shift = rows["Dealt"]["on_shift"]
    assert (rows["Dealt"]["state"], shift["dealer"], shift["rotation_due"], rows["Dealt"]["shift_minutes"]) == ("open", "dealer", False, 30)
    assert 0 <= shift["seconds"] < 60
    assert rows["Due"]["on_shift"]["rotation_due"] is True and rows["Due"]["on_shift"]["seconds"] >= 25 * 60
