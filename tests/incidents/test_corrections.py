"""Supervisor corrections of a round's cards: a misread replaced, a double scan removed, the match
found by a correction, illegal corrections refused with nothing changed, and a settled round whose
result was wrong re-settled with reversing and new entries (old entries never edited)."""
from decimal import Decimal

import pytest

from bets.models import Bet, LedgerEntry
from bets.settlement import round_settle
from tables.models import Incident, Round, RoundEvent, Table

from .conftest import balance, cards_of, close, deal, fresh, ledger_snapshot, open_round, place, raise_incident

pytestmark = pytest.mark.django_db

D = Decimal
A, B = "andar", "bahar"


def placed(card: dict) -> dict:
    """A card as placed, without its time (dealt_at: the deal's, kept through a correction)."""
    return {k: card[k] for k in ("position", "side", "card")}


def replace(api, rnd, position, card):
    return api.post(f"/api/rounds/{rnd.pk}/corrections/replace/", {"position": position, "card": card}, format="json")


def remove_last(api, rnd):
    return api.post(f"/api/rounds/{rnd.pk}/corrections/remove-last/")


def resume(api, incident):
    response = api.post(f"/api/incidents/{incident.pk}/resume/", {"resolution": "corrected"}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def everything(rnd):
    """All a correction could change: the round row, its cards, its audit, the table's stream
    position (an event sent), bets and the ledger."""
    row = Round.objects.filter(pk=rnd.pk).values().get()
    return (row, cards_of(rnd), RoundEvent.objects.filter(round=rnd).count(),
            Table.objects.get(pk=rnd.table_id).stream_seq, list(Bet.objects.values()), ledger_snapshot())


def test_a_misread_is_replaced_and_the_round_resumes_to_the_right_result(dealer, supervisor, supervisor_api, alice, table):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "3D", "4H"])
    incident = raise_incident(rnd, dealer, "misread", "card 2 is the 5D")

    response = replace(supervisor_api, rnd, 2, "5d")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "paused"
    assert [placed(c) for c in response.json()["cards"]] == [{"position": 1, "side": A, "card": "2C"}, {"position": 2, "side": B, "card": "5D"},
                                        {"position": 3, "side": A, "card": "4H"}]
    resume(supervisor_api, incident)
    assert not deal(rnd, dealer, ["3D"])  # the real 3D is still in the shoe: now it is dealt, to Bahar
    assert deal(rnd, dealer, ["KD"])
    assert cards_of(rnd) == [(1, A, "2C"), (2, B, "5D"), (3, A, "4H"), (4, B, "3D"), (5, A, "KD")]
    assert round_settle(round_id=rnd.pk)
    after = fresh(rnd)
    assert (after.status, after.winner, after.cards_dealt) == ("settled", A, 5)
    assert balance(alice) == D(1090)  # 100 on Andar at 0.9:1


def test_a_double_scan_is_removed_and_the_deal_goes_on(dealer, supervisor_api, bob, table):
    rnd = open_round(table, dealer, "KS")
    place(bob, rnd, "bahar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "3D", "4H"])  # 4H was scanned, but not dealt
    incident = raise_incident(rnd, dealer, "procedure", "4H scanned from the shoe")

    response = remove_last(supervisor_api, rnd)
    assert response.status_code == 200, response.content
    assert (response.json()["cards_dealt"], response.json()["next_side"]) == (2, A)
    resume(supervisor_api, incident)
    assert not deal(rnd, dealer, ["4H", "9C"])
    assert deal(rnd, dealer, ["QC", "KC"])
    assert cards_of(rnd) == [(1, A, "2C"), (2, B, "3D"), (3, A, "4H"), (4, B, "9C"), (5, A, "QC"), (6, B, "KC")]
    round_settle(round_id=rnd.pk)
    assert fresh(rnd).winner == B
    assert balance(bob) == D(1100)


def test_correcting_the_last_card_to_the_match_finishes_and_settles_the_round_on_resume(
        dealer, supervisor, supervisor_api, alice, bob, table, django_capture_on_commit_callbacks):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    place(alice, rnd, "count_1_5", 10)
    place(bob, rnd, "bahar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "3D", "4H"])
    incident = raise_incident(rnd, dealer, "misread", "card 3 is the KH")
    assert replace(supervisor_api, rnd, 3, "KH").status_code == 200
    paused = fresh(rnd)
    assert (paused.status, paused.winner) == ("paused", "")  # not finished until a supervisor resumes

    with django_capture_on_commit_callbacks(execute=True):
        resume(supervisor_api, incident)
    after = fresh(rnd)
    assert (after.status, after.winner, after.cards_dealt) == ("settled", A, 3)
    assert [e.action for e in RoundEvent.objects.filter(round=rnd).order_by("id")][-3:] == ["resumed", "finished", "settled"]
    assert balance(alice) == D(1000) - 110 + 190 + 30
    assert balance(bob) == D(900)


@pytest.mark.parametrize("position, card, status, code", [
    pytest.param(2, "2C", 409, "illegal_correction", id="duplicate-of-another-card"),
    pytest.param(2, "KS", 409, "illegal_correction", id="the-joker-itself"),
    pytest.param(2, "KH", 409, "illegal_correction", id="a-match-before-the-last-card"),
    pytest.param(1, "KD", 409, "illegal_correction", id="a-match-on-card-one"),
    pytest.param(4, "9C", 400, "invalid", id="no-card-at-that-position"),
    pytest.param(2, "ZZ", 400, "invalid_card", id="unreadable-card"),
])
def test_an_illegal_replacement_is_refused_and_changes_nothing(dealer, supervisor_api, alice, table, position, card, status, code):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C", "3D", "4H"])
    raise_incident(rnd, dealer)
    before = everything(rnd)
    response = replace(supervisor_api, rnd, position, card)
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    assert everything(rnd) == before


def test_corrections_need_a_paused_round_a_supervisor_and_a_card(dealer, dealer_api, supervisor_api, table):
    rnd = open_round(table, dealer, "KS")
    paused_in_betting = raise_incident(rnd, dealer)
    before = everything(rnd)
    assert remove_last(supervisor_api, rnd).json()["code"] == "no_cards"
    assert everything(rnd) == before
    assert supervisor_api.post(f"/api/incidents/{paused_in_betting.pk}/resume/", {}, format="json").status_code == 200
    close(rnd, dealer)
    deal(rnd, dealer, ["2C"])
    before = everything(rnd)
    for response in (replace(supervisor_api, rnd, 1, "3C"), remove_last(supervisor_api, rnd)):
        assert (response.status_code, response.json()["code"]) == (409, "round_dealing")
    assert everything(rnd) == before
    raise_incident(rnd, dealer)
    before = everything(rnd)
    for response in (replace(dealer_api, rnd, 1, "3C"), remove_last(dealer_api, rnd)):
        assert response.status_code == 403
    assert everything(rnd) == before


# --- a settled round found wrong: re-settlement ---------------------------------------------------

# Joker 5H, Andar first: 6H to Andar, then the card under test to Bahar, 2C, and the match 5S on
# Bahar's side (4 cards). With 7H the First 3 (5H 6H 7H) is a straight flush (120:1); with 9C nothing.
@pytest.mark.parametrize("dealt, corrected, first_three_before, first_three_after", [
    pytest.param("7H", "9C", D(1210), D(0), id="a-winning-side-bet-now-loses"),
    pytest.param("9C", "7H", D(0), D(1210), id="a-losing-side-bet-now-wins"),
])
def test_a_settled_round_corrected_afterwards_is_resettled_with_new_entries(
        dealer, supervisor, supervisor_api, alice, bob, table, dealt, corrected, first_three_before, first_three_after):
    rnd = open_round(table, dealer, "5H")
    three = place(alice, rnd, "first_three", 10)
    count = place(alice, rnd, "count_1_5", 10)
    main = place(bob, rnd, "bahar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["6H", dealt, "2C", "5S"])
    assert round_settle(round_id=rnd.pk)
    assert balance(alice) == D(980) + first_three_before + 30
    assert balance(bob) == D(1100)
    first_settlement = ledger_snapshot(round_id=rnd.pk, version=1)

    incident = raise_incident(rnd, supervisor, "settlement", "card 2 was misread")
    assert fresh(rnd).status == Round.Status.SETTLED and not incident.paused_round
    response = replace(supervisor_api, rnd, 2, corrected)
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["winner"], body["cards_dealt"]) == ("settled", B, 4)
    assert placed(body["cards"][1]) == {"position": 2, "side": B, "card": corrected}

    assert balance(alice) == D(980) + first_three_after + 30
    assert balance(bob) == D(1100)
    assert ledger_snapshot(round_id=rnd.pk, version=1) == first_settlement  # never edited
    payouts_before = {three.pk: first_three_before, count.pk: D(30), main.pk: D(200)}
    payouts_after = {three.pk: first_three_after, count.pk: D(30), main.pk: D(200)}
    second = {(e.bet_id, e.kind, e.amount) for e in LedgerEntry.objects.filter(round_id=rnd.pk, version=2, account__kind="player")}
    assert second == ({(b, "reversal", -p) for b, p in payouts_before.items() if p}
                      | {(b, "win", p) for b, p in payouts_after.items() if p})
    house = LedgerEntry.objects.filter(round_id=rnd.pk, version=2, account__kind="house")
    assert {(e.kind, e.amount) for e in house} == {("reversal", sum(payouts_before.values())), ("win", -sum(payouts_after.values()))}
    assert {b.pk: (b.status, b.payout) for b in Bet.objects.filter(round=rnd)} == {
        pk: ("won" if p else "lost", p) for pk, p in payouts_after.items()}
    after = fresh(rnd)
    assert (after.settlement_version, after.total_staked, after.total_paid) == (2, D(120), sum(payouts_after.values()))
    resettled = RoundEvent.objects.filter(round=rnd, action="resettled").get()
    assert resettled.data["version"] == 2 and resettled.actor == supervisor

    resume(supervisor_api, incident)  # resolving it changes nothing more
    assert Incident.objects.get(pk=incident.pk).status == "resolved" and fresh(rnd).status == "settled"


def test_a_settled_round_needs_an_open_incident_before_a_correction(dealer, supervisor_api, table):
    rnd = open_round(table, dealer, "5H")
    close(rnd, dealer)
    deal(rnd, dealer, ["6H", "7H", "2C", "5S"])
    round_settle(round_id=rnd.pk)
    before = everything(rnd)
    response = replace(supervisor_api, rnd, 2, "9C")
    assert (response.status_code, response.json()["code"]) == (409, "no_open_incident")
    assert remove_last(supervisor_api, rnd).json()["code"] == "round_settled"
    assert everything(rnd) == before


@pytest.mark.parametrize("position, card", [
    pytest.param(4, "8D", id="the-match-replaced-by-a-plain-card"),
    pytest.param(1, "5D", id="an-earlier-match"),
])
def test_a_correction_of_a_settled_round_must_leave_the_match_last(dealer, supervisor, supervisor_api, bob, table, position, card):
    rnd = open_round(table, dealer, "5H")
    place(bob, rnd, "bahar", 100)
    close(rnd, dealer)
    deal(rnd, dealer, ["6H", "7H", "2C", "5S"])
    round_settle(round_id=rnd.pk)
    incident = raise_incident(rnd, supervisor, "settlement")
    before = everything(rnd)
    response = replace(supervisor_api, rnd, position, card)
    assert (response.status_code, response.json()["code"]) == (409, "illegal_correction")
    assert everything(rnd) == before

    voided = supervisor_api.post(f"/api/incidents/{incident.pk}/void/", {"reason": "result unknown"}, format="json")
    assert voided.status_code == 200, voided.content  # the way out: void, and everyone gets their stake back
    assert balance(bob) == D(1000)
