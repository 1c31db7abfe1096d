"""Rounds through the API alone: RULES.md's worked deals, card spellings, every refusal (409, round
unchanged), bad input (400), roles (403/401), the deadline, the settings snapshot and the audit."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tables.models import DealtCard, Round, RoundEvent

pytestmark = pytest.mark.django_db

A, B = "andar", "bahar"


def open_round(client, table, joker):
    response = client.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def close_betting(client, round_id):
    response = client.post(f"/api/rounds/{round_id}/close-betting/")
    assert response.status_code == 200, response.content
    return response.json()


def deal(client, round_id, card):
    return client.post(f"/api/rounds/{round_id}/cards/", {"card": card}, format="json")


def dealing_round(client, table, joker="KS"):
    rnd = open_round(client, table, joker)
    close_betting(client, rnd["id"])
    return rnd["id"]


def state(client, round_id):
    """Everything observable about a round (its JSON, less the ticking countdown; its rows)."""
    body = client.get(f"/api/rounds/{round_id}/").json()
    body.pop("betting_left_ms")
    return body, DealtCard.objects.filter(round_id=round_id).count(), RoundEvent.objects.filter(round_id=round_id).count()


def assert_refused(client, round_id, method, url, data, status, code):
    before = state(client, round_id)
    response = getattr(client, method)(url, data, format="json")
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code, body
    assert body["message"]
    assert state(client, round_id) == before
    return body


# --- the worked deals of RULES.md ----------------------------------------------------------------

WORKED_DEALS = [
    pytest.param({"mode": "no_commission"}, "KS", ["KC"], [A], A, id="example-1-no-commission-match-on-card-1"),
    pytest.param({}, "KS", ["KC"], [A], A, id="example-1-classic"),
    pytest.param({}, "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"], [A, B, A, B, A, B, A], A,
                 id="example-2-seven-cards-andar"),
    pytest.param({"chip_unit": "1", "card_count_paytable": "play", "min_bet": "10", "max_bet": "500"},
                 "5H", ["2C", "3D", "4S", "6H", "7C", "8D", "5S"], [A, B, A, B, A, B, A], A,
                 id="example-3-play-chips-match-on-andar-7th"),
    pytest.param({"first_card": "joker_colour"}, "Q♥", ["4♣", "7♦", "Q♠"], [B, A, B], B, id="teaching-red-joker"),
    pytest.param({"first_card": "joker_colour"}, "QC", ["4H", "QD"], [A, B], B, id="black-joker-andar-first"),
    pytest.param({"first_card": "bahar"}, "9D", ["9C"], [B], B, id="bahar-first-table"),
]


@pytest.mark.parametrize("settings_, joker, cards, sides, winner", WORKED_DEALS)
def test_worked_deal_gives_the_rulebook_sides_and_result(dealer_api, make_table, settings_, joker, cards, sides, winner):
    table = make_table(**settings_)
    opened = open_round(dealer_api, table, joker)
    assert opened["status"] == "betting" and opened["first_side"] == sides[0]
    assert opened["next_side"] == sides[0]
    assert opened["spots"] and all({"spot", "pays"} <= set(s) for s in opened["spots"])
    close_betting(dealer_api, opened["id"])
    answers = [deal(dealer_api, opened["id"], card) for card in cards]
    assert [a.status_code for a in answers] == [201] * len(cards)
    got = [a.json() for a in answers]
    assert [g["position"] for g in got] == list(range(1, len(cards) + 1))
    assert [g["side"] for g in got] == sides
    assert [g["match"] for g in got] == [False] * (len(cards) - 1) + [True]
    final = dealer_api.get(f"/api/rounds/{opened['id']}/").json()
    assert final["status"] == "finished"
    assert final["winner"] == winner
    assert final["cards_dealt"] == len(cards)
    assert final["next_side"] is None
    assert [(c["position"], c["side"]) for c in final["cards"]] == list(enumerate(sides, start=1))


def test_teaching_example_round_json(dealer_api, make_table):
    table = make_table(first_card="joker_colour")
    rnd = dealing_round(dealer_api, table, joker="Q♥")
    for card in ("4♣", "7♦", "Q♠"):
        deal(dealer_api, rnd, card)
    final = dealer_api.get(f"/api/rounds/{rnd}/").json()
    assert final["joker"] == "QH"
    assert [{k: c[k] for k in ("position", "side", "card")} for c in final["cards"]] == [
        {"position": 1, "side": B, "card": "4C"},
        {"position": 2, "side": A, "card": "7D"},
        {"position": 3, "side": B, "card": "QS"},
    ]
    assert (final["winner"], final["cards_dealt"]) == (B, 3)


def test_no_commission_round_offers_no_first_card_side_bets(dealer_api, make_table):
    spots = {s["spot"] for s in open_round(dealer_api, make_table(mode="no_commission"), "KS")["spots"]}
    assert {"andar", "bahar", "count_1_5"} <= spots
    assert not {"first_andar", "first_bahar", "first_three"} & spots


# --- card spellings --------------------------------------------------------------------------------

def test_console_and_scanner_spellings_are_stored_canonically(dealer_api, table):
    rnd = open_round(dealer_api, table, "2c")
    assert rnd["joker"] == "2C"
    close_betting(dealer_api, rnd["id"])
    sent = ["ks", "10H", "TD", "Q♥", "q♣", " 9s ", "2♦"]
    got = [deal(dealer_api, rnd["id"], card).json()["card"] for card in sent]
    assert got == ["KS", "10H", "10D", "QH", "QC", "9S", "2D"]
    assert list(DealtCard.objects.filter(round_id=rnd["id"]).values_list("card", flat=True)) == got


def test_a_ten_spelt_two_ways_is_one_card(dealer_api, table):
    rnd = dealing_round(dealer_api, table, joker="KS")
    assert deal(dealer_api, rnd, "TH").status_code == 201
    assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "10h"}, 409, "duplicate_card")


# --- 400: unreadable input -------------------------------------------------------------------------

@pytest.mark.parametrize("card", ["1H", "11S", "KX", "joker", "10", "HK2", "", "🂡"])
def test_an_unreadable_card_is_a_400_and_changes_nothing(dealer_api, table, card):
    rnd = dealing_round(dealer_api, table)
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": card}, 400,
                          "invalid_card" if card else "invalid")
    assert "card" in body["fields"]
    if card:
        assert card in body["message"]


def test_a_missing_card_field_is_a_400(dealer_api, table):
    rnd = dealing_round(dealer_api, table)
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {}, 400, "invalid")
    assert "card" in body["fields"]


@pytest.mark.parametrize("joker", ["ZZ", "", "K", "KSS"])
def test_an_unreadable_joker_is_a_400_and_opens_nothing(dealer_api, table, joker):
    response = dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 400
    assert "joker" in response.json()["fields"]
    assert not Round.objects.exists()


# --- 409: the wrong moment, the round unchanged --------------------------------------------------

def test_a_card_while_betting_is_open_is_refused(dealer_api, table):
    rnd = open_round(dealer_api, table, "KS")["id"]
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2C"}, 409, "betting_open")
    assert "Betting is still open" in body["message"]
    assert Round.objects.get(pk=rnd).status == "betting"


def test_a_duplicate_card_is_refused(dealer_api, table):
    rnd = dealing_round(dealer_api, table)
    deal(dealer_api, rnd, "2C")
    deal(dealer_api, rnd, "3C")
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2c"}, 409, "duplicate_card")
    assert "2C" in body["message"]
    assert deal(dealer_api, rnd, "4C").json()["position"] == 3  # no position was used up


def test_the_joker_dealt_as_a_card_is_refused(dealer_api, table):
    rnd = dealing_round(dealer_api, table, joker="KS")
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "K♠"}, 409, "duplicate_card")
    assert "joker" in body["message"]


def test_a_card_after_the_match_is_refused(dealer_api, table):
    rnd = dealing_round(dealer_api, table, joker="KS")
    assert deal(dealer_api, rnd, "KH").json()["match"] is True
    body = assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2C"}, 409, "round_finished")
    assert "over" in body["message"]


def test_a_card_for_a_settled_round_is_refused(dealer_api, table, django_capture_on_commit_callbacks):
    rnd = dealing_round(dealer_api, table, joker="KS")
    with django_capture_on_commit_callbacks(execute=True):
        assert deal(dealer_api, rnd, "KH").status_code == 201
    assert Round.objects.get(pk=rnd).status == "settled"
    assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2C"}, 409, "round_settled")


def test_closing_betting_twice_is_refused(dealer_api, table):
    rnd = dealing_round(dealer_api, table)
    assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/close-betting/", None, 409, "round_dealing")


def test_closing_betting_of_a_finished_round_is_refused(dealer_api, table):
    rnd = dealing_round(dealer_api, table, joker="KS")
    deal(dealer_api, rnd, "KD")
    assert_refused(dealer_api, rnd, "post", f"/api/rounds/{rnd}/close-betting/", None, 409, "round_finished")


def test_a_second_round_while_one_is_open_is_refused(dealer_api, supervisor_api, table, make_table):
    first = open_round(dealer_api, table, "KS")["id"]
    body = assert_refused(supervisor_api, first, "post", f"/api/tables/{table.pk}/rounds/", {"joker": "2H"}, 409,
                          "round_already_open")
    assert str(first) in body["message"]
    assert Round.objects.count() == 1
    close_betting(dealer_api, first)
    assert dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "2H"}, format="json").status_code == 409
    open_round(dealer_api, make_table(), "2H")  # another table is free
    deal(dealer_api, first, "KH")
    open_round(dealer_api, table, "2H")  # and this one is free once the match fell


def test_unknown_round_is_a_404(dealer_api, db):
    assert dealer_api.post("/api/rounds/999999/cards/", {"card": "2C"}, format="json").status_code == 404
    assert dealer_api.get("/api/rounds/999999/").status_code == 404


# --- who may deal ----------------------------------------------------------------------------------

def test_a_player_may_not_run_a_round(dealer_api, alice_api, table):
    assert alice_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json").status_code == 403
    rnd = open_round(dealer_api, table, "KS")["id"]
    assert_refused(alice_api, rnd, "post", f"/api/rounds/{rnd}/close-betting/", None, 403, "permission_denied")
    close_betting(dealer_api, rnd)
    assert_refused(alice_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2C"}, 403, "permission_denied")
    assert alice_api.get(f"/api/rounds/{rnd}/audit/").status_code == 403


def test_anonymous_may_watch_but_not_run_a_round(dealer_api, anon_api, table):
    assert anon_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json").status_code == 401
    rnd = open_round(dealer_api, table, "KS")["id"]
    assert_refused(anon_api, rnd, "post", f"/api/rounds/{rnd}/close-betting/", None, 401, "not_authenticated")
    close_betting(dealer_api, rnd)
    assert_refused(anon_api, rnd, "post", f"/api/rounds/{rnd}/cards/", {"card": "2C"}, 401, "not_authenticated")
    assert anon_api.get(f"/api/rounds/{rnd}/audit/").status_code == 401
    assert anon_api.get(f"/api/rounds/{rnd}/").status_code == 200
    assert anon_api.get(f"/api/tables/{table.pk}/current-round/").json()["id"] == rnd


def test_a_supervisor_may_run_a_round(supervisor_api, table):
    rnd = dealing_round(supervisor_api, table, joker="KS")
    dealt = deal(supervisor_api, rnd, "KC").json()
    assert dealt.pop("dealt_at").endswith("Z")
    assert dealt == {"position": 1, "side": A, "card": "KC", "match": True}


# --- the deadline ------------------------------------------------------------------------------

def test_the_first_card_after_the_deadline_closes_betting_itself(dealer_api, table):
    rnd = open_round(dealer_api, table, "KS")["id"]
    deadline = timezone.now() - timedelta(seconds=3)
    Round.objects.filter(pk=rnd).update(closes_at=deadline)
    response = deal(dealer_api, rnd, "2C")
    assert response.status_code == 201, response.content
    assert response.json()["position"] == 1
    row = Round.objects.get(pk=rnd)
    assert row.status == "dealing"
    assert row.closed_at == deadline  # betting ended at the deadline, not when the card came
    closed = RoundEvent.objects.get(round_id=rnd, action="betting_closed")
    assert (closed.from_status, closed.to_status, closed.data["reason"]) == ("betting", "dealing", "first card")


# --- the snapshot ------------------------------------------------------------------------------

def test_a_round_plays_under_its_snapshot_when_the_table_changes_mid_round(dealer_api, supervisor_api, table):
    opened = open_round(dealer_api, table, "KS")
    patch = {"first_card": "bahar", "mode": "no_commission", "side_bets": ["card_count"], "commission": "0.95",
             "min_bet": "20", "betting_seconds": 60}
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", patch, format="json").status_code == 200
    close_betting(dealer_api, opened["id"])
    assert deal(dealer_api, opened["id"], "2C").json()["side"] == A  # andar first, as when it opened
    dealt = deal(dealer_api, opened["id"], "KD").json()
    assert dealt.pop("dealt_at").endswith("Z")
    assert dealt == {"position": 2, "side": B, "card": "KD", "match": True}
    final = dealer_api.get(f"/api/rounds/{opened['id']}/").json()
    assert final["settings"] == opened["settings"]
    assert final["settings"]["mode"] == "classic" and Decimal(final["settings"]["commission"]) == Decimal("0.9")
    assert final["spots"] == opened["spots"]
    assert "first_three" in {s["spot"] for s in final["spots"]}
    assert final["winner"] == B

    following = open_round(dealer_api, table, "5H")
    assert following["first_side"] == B
    assert following["settings"]["mode"] == "no_commission"
    assert "first_three" not in {s["spot"] for s in following["spots"]}


# --- the audit ---------------------------------------------------------------------------------

def test_audit_lists_every_change_in_order_with_its_actor(dealer_api, supervisor_api, table,
                                                            django_capture_on_commit_callbacks):
    rnd = open_round(dealer_api, table, "KS")["id"]
    close_betting(supervisor_api, rnd)
    deal(dealer_api, rnd, "2C")
    with django_capture_on_commit_callbacks(execute=True):
        deal(supervisor_api, rnd, "KD")
    events = dealer_api.get(f"/api/rounds/{rnd}/audit/").json()
    assert [(e["action"], e["actor"]) for e in events] == [
        ("opened", "dealer"),
        ("betting_closed", "supervisor"),
        ("card", "dealer"),
        ("card", "supervisor"),
        ("finished", "supervisor"),
        ("settled", None),
    ]
    assert [(e["from_status"], e["to_status"]) for e in events] == [
        ("", "betting"), ("betting", "dealing"), ("dealing", "dealing"), ("dealing", "dealing"),
        ("dealing", "finished"), ("finished", "settled"),
    ]
    assert events[0]["data"]["joker"] == "KS"
    dealt_at = [e["data"].pop("dealt_at") for e in events[2:4]]
    assert [e["data"] for e in events[2:4]] == [
        {"position": 1, "side": A, "card": "2C"}, {"position": 2, "side": B, "card": "KD"},
    ]
    # Each card's event records its time, to the microsecond (the round's cards: to the millisecond).
    cards = dealer_api.get(f"/api/rounds/{rnd}/").json()["cards"]
    assert [at[:23] + "Z" for at in dealt_at] == [c["dealt_at"] for c in cards]
    assert events[4]["data"]["winner"] == B
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)
