"""Pausing a round (an incident) and resuming it, through the API: nothing moves while paused, the
betting countdown stops and comes back, a round held by two incidents waits for both, roles and
refusals, notes, and the audit trail of pause, correction, resume and void."""
import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from bets.models import Bet, LedgerEntry
from tables import tasks
from tables.models import DealtCard, Incident, Round, RoundEvent

from .conftest import balance

pytestmark = pytest.mark.django_db


def open_round(api, table, joker="KS"):
    response = api.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def raise_(api, round_id, kind="misread", notes=""):
    return api.post(f"/api/rounds/{round_id}/incidents/", {"kind": kind, "notes": notes}, format="json")


def raised(api, round_id, kind="misread", notes=""):
    response = raise_(api, round_id, kind, notes)
    assert response.status_code == 201, response.content
    return response.json()


def resume(api, incident_id, resolution=""):
    return api.post(f"/api/incidents/{incident_id}/resume/", {"resolution": resolution}, format="json")


def void(api, incident_id, reason="shoe fault"):
    return api.post(f"/api/incidents/{incident_id}/void/", {"reason": reason}, format="json")


def card(api, round_id, code):
    return api.post(f"/api/rounds/{round_id}/cards/", {"card": code}, format="json")


def bet(api, round_id, spot="andar", amount="50"):
    return api.post(f"/api/rounds/{round_id}/bets/", {"spot": spot, "amount": amount}, format="json")


def round_json(api, round_id):
    return api.get(f"/api/rounds/{round_id}/").json()


def refused(response, code, status=409):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.json()


def test_pause_during_betting_refuses_bets_cancels_close_and_cards(dealer_api, alice_api, alice, table):
    rnd = open_round(dealer_api, table)
    placed = bet(alice_api, rnd)
    assert placed.status_code == 201
    incident = raised(dealer_api, rnd, "equipment", "the shoe jammed")
    assert incident["status"] == "open" and incident["paused_round"] and incident["round_status"] == "paused"
    assert round_json(dealer_api, rnd)["status"] == "paused"
    before = (balance(alice), Bet.objects.count(), LedgerEntry.objects.count())

    refused(bet(alice_api, rnd, "first_andar", "10"), "betting_closed")
    refused(alice_api.delete(f"/api/bets/{placed.json()['id']}/"), "betting_closed")
    refused(dealer_api.post(f"/api/rounds/{rnd}/close-betting/"), "round_paused")
    refused(card(dealer_api, rnd, "2C"), "round_paused")

    assert (balance(alice), Bet.objects.count(), LedgerEntry.objects.count()) == before
    assert Bet.objects.get().status == Bet.Status.OPEN
    assert not DealtCard.objects.exists()
    assert round_json(dealer_api, rnd)["status"] == "paused"


def test_betting_timer_and_sweep_do_nothing_while_paused(dealer_api, make_table):
    rnd = open_round(dealer_api, make_table(betting_seconds=1))
    raised(dealer_api, rnd)
    left = round_json(dealer_api, rnd)["betting_left_ms"]
    assert 0 < left <= 1000
    time.sleep(max(0.0, (Round.objects.get(pk=rnd).closes_at - timezone.now()).total_seconds()) + 0.05)

    assert tasks.close_betting(rnd) is False  # the timer task, run as the worker runs it
    assert tasks.sweep_expired_betting() == 0
    after = Round.objects.get(pk=rnd)
    assert after.status == Round.Status.PAUSED and after.closed_at is None
    assert round_json(dealer_api, rnd)["betting_left_ms"] == left
    assert not RoundEvent.objects.filter(round_id=rnd, action="betting_closed").exists()


def test_pause_during_dealing_refuses_cards_and_resume_continues_the_deal(dealer_api, supervisor_api, table):
    rnd = open_round(dealer_api, table, "KS")
    dealer_api.post(f"/api/rounds/{rnd}/close-betting/")
    assert card(dealer_api, rnd, "2C").status_code == 201
    assert card(dealer_api, rnd, "3D").status_code == 201
    incident = raised(dealer_api, rnd, "procedure")
    paused = Round.objects.get(pk=rnd)
    assert (paused.status, paused.resume_status, paused.betting_left_ms) == ("paused", "dealing", None)
    refused(card(dealer_api, rnd, "4H"), "round_paused")
    assert DealtCard.objects.filter(round_id=rnd).count() == 2

    response = resume(supervisor_api, incident["id"], "card reseated")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "resolved" and response.json()["resolution"] == "card reseated"
    assert response.json()["resolved_by"] == "supervisor"
    assert round_json(dealer_api, rnd)["status"] == "dealing"
    third = card(dealer_api, rnd, "4H")
    assert third.status_code == 201
    assert (third.json()["position"], third.json()["side"]) == (3, "andar")
    dealt = card(dealer_api, rnd, "KD").json()
    assert dealt.pop("dealt_at").endswith("Z")
    assert dealt == {"position": 4, "side": "bahar", "card": "KD", "match": True}


def test_resume_restores_the_betting_time_left(dealer_api, supervisor_api, alice_api, table):
    rnd = open_round(dealer_api, table)
    closes_before = Round.objects.get(pk=rnd).closes_at
    incident = raised(dealer_api, rnd)
    paused_by = timezone.now()  # the round was paused before this
    left = round_json(dealer_api, rnd)["betting_left_ms"]
    assert 10_000 < left <= 15_000
    paused = Round.objects.get(pk=rnd)
    assert (paused.status, paused.betting_left_ms) == (Round.Status.PAUSED, left)  # held as a length, not a deadline
    assert round_json(dealer_api, rnd)["betting_left_ms"] == left  # the countdown stopped

    asked = timezone.now()
    assert resume(supervisor_api, incident["id"]).status_code == 200
    answered = timezone.now()
    after = Round.objects.get(pk=rnd)
    assert after.status == Round.Status.BETTING
    gap = timedelta(milliseconds=left)
    assert asked + gap <= after.closes_at <= answered + gap  # now + the time left at the pause
    assert after.closes_at - closes_before >= asked - paused_by > timedelta(0)  # the paused time is given back
    assert (after.resume_status, after.betting_left_ms) == ("", None)
    assert 0 < round_json(dealer_api, rnd)["betting_left_ms"] <= left
    assert bet(alice_api, rnd).status_code == 201


@pytest.mark.parametrize("first_resolved", ["first", "second"])
def test_a_round_held_by_two_incidents_resumes_when_the_last_is_resolved(dealer_api, supervisor_api, alice_api, table,
                                                                           first_resolved):
    rnd = open_round(dealer_api, table)
    first = raised(dealer_api, rnd, "stream", "video frozen")
    second = raised(supervisor_api, rnd, "equipment", "and the shoe too")
    assert Round.objects.get(pk=rnd).status == Round.Status.PAUSED
    order = [first, second] if first_resolved == "first" else [second, first]

    assert resume(supervisor_api, order[0]["id"]).status_code == 200
    assert Round.objects.get(pk=rnd).status == Round.Status.PAUSED
    refused(bet(alice_api, rnd), "betting_closed")
    assert resume(supervisor_api, order[1]["id"]).status_code == 200
    assert Round.objects.get(pk=rnd).status == Round.Status.BETTING
    assert bet(alice_api, rnd).status_code == 201
    assert RoundEvent.objects.filter(round_id=rnd, action="resumed").count() == 1


def test_resolving_an_incident_twice_is_refused(dealer_api, supervisor_api, table):
    rnd = open_round(dealer_api, table)
    incident = raised(dealer_api, rnd)
    assert resume(supervisor_api, incident["id"]).status_code == 200
    refused(resume(supervisor_api, incident["id"]), "incident_resolved")
    refused(void(supervisor_api, incident["id"]), "incident_resolved")
    assert Round.objects.get(pk=rnd).status == Round.Status.BETTING


def test_only_supervisors_resume_or_void(dealer_api, alice_api, supervisor_api, table):
    rnd = open_round(dealer_api, table)
    incident = raised(dealer_api, rnd)
    for api in (dealer_api, alice_api):
        refused(resume(api, incident["id"]), "permission_denied", 403)
        refused(void(api, incident["id"]), "permission_denied", 403)
    assert Incident.objects.get().status == Incident.Status.OPEN
    assert Round.objects.get(pk=rnd).status == Round.Status.PAUSED


def test_players_and_outsiders_cannot_raise_and_strangers_must_log_in(dealer_api, alice_api, outsider, anon_api, table):
    from tests.conftest import client_for

    rnd = open_round(dealer_api, table)
    refused(raise_(alice_api, rnd), "permission_denied", 403)
    refused(raise_(client_for(outsider), rnd), "permission_denied", 403)
    refused(raise_(anon_api, rnd), "not_authenticated", 401)
    assert not Incident.objects.exists()
    assert Round.objects.get(pk=rnd).status == Round.Status.BETTING


def test_an_unknown_kind_is_a_400_and_pauses_nothing(dealer_api, table):
    rnd = open_round(dealer_api, table)
    response = raise_(dealer_api, rnd, kind="gremlins")
    refused(response, "invalid", 400)
    assert "kind" in response.json()["fields"]
    assert not Incident.objects.exists()
    assert Round.objects.get(pk=rnd).status == Round.Status.BETTING


def test_an_incident_on_an_unknown_round_is_a_404(dealer_api, db):
    refused(raise_(dealer_api, 999_999), "not_found", 404)


def test_an_incident_on_a_voided_round_is_refused(dealer_api, supervisor_api, table):
    rnd = open_round(dealer_api, table)
    incident = raised(dealer_api, rnd)
    assert void(supervisor_api, incident["id"]).status_code == 200
    refused(raise_(dealer_api, rnd), "round_voided")
    assert Incident.objects.count() == 1


def test_an_incident_on_a_finished_round_pauses_nothing(dealer_api, supervisor_api, table):
    rnd = open_round(dealer_api, table, "KS")
    dealer_api.post(f"/api/rounds/{rnd}/close-betting/")
    card(dealer_api, rnd, "KH")
    incident = raised(dealer_api, rnd, "settlement", "the result looks wrong")
    assert not incident["paused_round"] and incident["round_status"] == "finished"
    assert resume(supervisor_api, incident["id"]).status_code == 200
    assert Round.objects.get(pk=rnd).status == Round.Status.FINISHED
    assert not RoundEvent.objects.filter(round_id=rnd, action__in=["paused", "resumed"]).exists()


def test_dealer_and_supervisor_add_notes_in_order(dealer_api, supervisor_api, alice_api, table):
    rnd = open_round(dealer_api, table)
    incident = raised(dealer_api, rnd, "misread", "scanner read 7H, card is 7D")
    for api, text in ((dealer_api, "re-scanned twice"), (supervisor_api, "checked the camera: 7D")):
        response = api.post(f"/api/incidents/{incident['id']}/notes/", {"text": text}, format="json")
        assert response.status_code == 200, response.content
    refused(alice_api.post(f"/api/incidents/{incident['id']}/notes/", {"text": "hi"}, format="json"), "permission_denied", 403)
    refused(dealer_api.post(f"/api/incidents/{incident['id']}/notes/", {"text": ""}, format="json"), "invalid", 400)
    notes = dealer_api.get(f"/api/incidents/{incident['id']}/").json()["notes"]
    assert [(n["by"], n["text"]) for n in notes] == [
        ("dealer", "scanner read 7H, card is 7D"), ("dealer", "re-scanned twice"), ("supervisor", "checked the camera: 7D"),
    ]
    assert all(n["at"] for n in notes)


def test_the_audit_trail_records_pause_incident_correction_resume_and_void(dealer_api, supervisor_api, table):
    rnd = open_round(dealer_api, table, "KS")
    dealer_api.post(f"/api/rounds/{rnd}/close-betting/")
    for code in ("2C", "3D", "4H"):
        card(dealer_api, rnd, code)
    first = raised(dealer_api, rnd, "misread", "card 2 was a 5D")
    assert supervisor_api.post(f"/api/rounds/{rnd}/corrections/replace/", {"position": 2, "card": "5D"},
                               format="json").status_code == 200
    assert resume(supervisor_api, first["id"], "corrected").status_code == 200
    second = raised(dealer_api, rnd, "procedure", "double scan")
    assert supervisor_api.post(f"/api/rounds/{rnd}/corrections/remove-last/").status_code == 200
    assert void(supervisor_api, second["id"], "shoe dropped").status_code == 200

    trail = dealer_api.get(f"/api/rounds/{rnd}/audit/").json()
    rows = [(e["action"], e["from_status"], e["to_status"], e["actor"]) for e in trail]
    assert rows[-10:] == [
        ("paused", "dealing", "paused", "dealer"),
        ("incident", "paused", "paused", "dealer"),
        ("incident_note", "paused", "paused", "dealer"),
        ("corrected", "paused", "paused", "supervisor"),
        ("resumed", "paused", "dealing", "supervisor"),
        ("paused", "dealing", "paused", "dealer"),
        ("incident", "paused", "paused", "dealer"),
        ("incident_note", "paused", "paused", "dealer"),
        ("corrected", "paused", "paused", "supervisor"),
        ("voided", "paused", "voided", "supervisor"),
    ]
    corrections = [e["data"] for e in trail if e["action"] == "corrected"]
    assert corrections == [
        {"action": "replace", "position": 2, "before": "3D", "after": "5D"},
        {"action": "remove_last", "position": 3, "before": "4H", "after": None},
    ]
    incident_rows = [e["data"] for e in trail if e["action"] == "incident"]
    assert incident_rows[0] == {"incident": first["id"], "kind": "misread", "notes": "card 2 was a 5D"}
    notes = [e["data"] for e in trail if e["action"] == "incident_note"]  # each note as the incident row holds it
    assert [(n["incident"], n["note"]["by"], n["note"]["text"]) for n in notes] == [
        (first["id"], "dealer", "card 2 was a 5D"), (second["id"], "dealer", "double scan")]
    voided = next(e["data"] for e in trail if e["action"] == "voided")
    assert voided["incident"] == second["id"] and voided["reason"] == "shoe dropped"
    assert (voided["bets"], Decimal(voided["refunded"])) == (0, Decimal(0))
