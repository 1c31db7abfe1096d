"""A table says who drives it (tables.access): a person, the virtual dealer, or a match. Opening,
closing betting early, dealing and correcting by anyone else is refused with 409 `virtual_table`
and changes nothing; the virtual dealer, the match, the clock and the supervisors' pause, resume
and void keep working."""
from datetime import timedelta

import pytest
from django.utils import timezone

from studio.errors import ApplicationError
from tables import services
from virtual import dealer as virtual
from tables.models import DealtCard, Round, RoundEvent
from tests.matches.play import MatchPlay, pack_for

S = Round.Status
PERSON, VIRTUAL, MATCH = "person", "virtual", "match"  # tables.access
pytestmark = pytest.mark.django_db(transaction=True)


def virtual_table(make_table, **extra):
    return make_table(virtual_dealer=True, betting_seconds=60, deal_interval_ms=0, round_gap_ms=0, **extra)


def state(rnd: Round) -> tuple:
    """Everything a refused call must leave as it was."""
    rnd.refresh_from_db()
    cards = list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("card", flat=True))
    return rnd.status, rnd.closes_at, rnd.closed_at, rnd.cards_dealt, rnd.winner, cards, RoundEvent.objects.filter(round=rnd).count()


def refused(response, code="virtual_table", status=409):
    assert (response.status_code, response.json()["code"]) == (status, code), response.content
    return response.json()


def virtual_round_dealing(table) -> Round:
    """A virtual round whose betting ran out, with its first card dealt by the virtual dealer; its
    pack (re-committed to) ends the deal on the second card, so the first one leaves it dealing."""
    assert virtual.tick(table_id=table.pk)[0] == "opened"
    rnd = Round.objects.get(table=table)
    pack = pack_for(rnd.joker, "bahar")
    Round.objects.filter(pk=rnd.pk).update(closes_at=timezone.now() - timedelta(seconds=1), pack=pack,
                                           commitment=virtual.commitment(rnd.salt, pack))
    assert virtual.tick(table_id=table.pk)[0] == "closed"
    assert virtual.tick(table_id=table.pk)[0] == "dealt"
    rnd.refresh_from_db()
    assert rnd.status == S.DEALING
    return rnd


def deal_out_and_verify(table, rnd, client) -> None:
    for _ in range(60):
        rnd.refresh_from_db()
        if rnd.status == S.SETTLED:
            break
        virtual.tick(table_id=table.pk)
    body = client.get(f"/api/rounds/{rnd.pk}/").json()
    assert body["status"] == "settled"
    fair = body["fairness"]
    assert virtual.verify(commitment_hex=fair["commitment"], salt=fair["salt"], pack=fair["pack"], joker=body["joker"],
                          cards=[c["card"] for c in body["cards"]])


@pytest.fixture(params=["dealer", "supervisor"])
def person_api(request, dealer_api, supervisor_api):
    return {"dealer": dealer_api, "supervisor": supervisor_api}[request.param]


# --- the virtual table --------------------------------------------------------------------------

def test_the_table_says_who_drives_it(make_table, alice_api, bob_api, anon_api):
    person, robot = make_table(), virtual_table(make_table)
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    drivers = {t["id"]: t["driver"] for t in alice_api.get("/api/tables/").json()}
    assert drivers == {person.pk: PERSON, robot.pk: VIRTUAL, play.table_id: MATCH}
    assert anon_api.get(f"/api/tables/{robot.pk}/").json()["driver"] == VIRTUAL


def test_a_person_cannot_open_a_round_at_a_virtual_table(make_table, person_api):
    table = virtual_table(make_table)
    refused(person_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json"))
    assert not Round.objects.filter(table=table).exists()


def test_a_person_cannot_close_betting_early_on_a_virtual_round(make_table, person_api, anon_api):
    table = virtual_table(make_table)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    before = state(rnd)
    refused(person_api.post(f"/api/rounds/{rnd.pk}/close-betting/"))
    assert state(rnd) == before and before[0] == S.BETTING


def test_a_person_cannot_deal_a_card_of_their_choice_and_the_proof_still_verifies(make_table, person_api, anon_api):
    table = virtual_table(make_table)
    rnd = virtual_round_dealing(table)
    before = state(rnd)
    joker_rank = rnd.joker[:-1]
    rigged = next(f"{joker_rank}{suit}" for suit in "SHDC" if f"{joker_rank}{suit}" not in (rnd.joker, *before[5]))
    refused(person_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": rigged}, format="json"))
    assert state(rnd) == before
    deal_out_and_verify(table, rnd, anon_api)


def test_nobody_corrects_the_cards_of_a_virtual_round_and_the_proof_still_verifies(make_table, supervisor_api, anon_api):
    table = virtual_table(make_table)
    rnd = virtual_round_dealing(table)
    incident = supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "misread"}, format="json").json()
    before = state(rnd)
    assert before[0] == S.PAUSED
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/corrections/replace/", {"position": 1, "card": rnd.joker}, format="json"))
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/corrections/remove-last/"))
    assert state(rnd) == before
    assert supervisor_api.post(f"/api/incidents/{incident['id']}/resume/", {}, format="json").status_code == 200
    deal_out_and_verify(table, rnd, anon_api)


def test_a_dealer_cannot_pause_a_virtual_round_but_a_supervisor_pauses_resumes_and_voids_it(make_table, dealer_api, supervisor_api):
    table = virtual_table(make_table)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    before = state(rnd)
    refused(dealer_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "stream"}, format="json"))
    assert state(rnd) == before
    first = supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "stream"}, format="json").json()
    assert state(rnd)[0] == S.PAUSED
    assert supervisor_api.post(f"/api/incidents/{first['id']}/resume/", {}, format="json").status_code == 200
    assert state(rnd)[0] == S.BETTING
    second = supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "equipment"}, format="json").json()
    assert supervisor_api.post(f"/api/incidents/{second['id']}/void/", {"reason": "shuffler jammed"}, format="json").status_code == 200
    assert state(rnd)[0] == S.VOIDED


def test_the_timer_and_the_sweep_still_close_betting_on_a_virtual_round(make_table):
    table = virtual_table(make_table)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    assert not services.close_betting_when_due(round_id=rnd.pk)  # not due yet
    Round.objects.filter(pk=rnd.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    assert services.close_expired_betting() == 1
    assert state(rnd)[0] == S.DEALING


def test_the_virtual_dealer_cannot_drive_a_persons_round(table, dealer):
    rnd = services.round_open(table_id=table.pk, joker="KS", dealer=dealer)
    with pytest.raises(ApplicationError) as exc:
        services.round_close_betting(round_id=rnd.pk, by=VIRTUAL)
    assert exc.value.code == "wrong_driver" and state(rnd)[0] == S.BETTING


# --- the match table ----------------------------------------------------------------------------

@pytest.fixture
def match_round(alice_api, bob_api):
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    return play, play.open("andar")


def test_a_supervisor_cannot_drive_a_match_round(match_round, supervisor_api, anon_api):
    play, rnd = match_round
    before = state(rnd)
    refused(supervisor_api.post(f"/api/tables/{play.table_id}/rounds/", {"joker": "KS"}, format="json"))
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/close-betting/"))
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "2H"}, format="json"))
    incident = supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "other"}, format="json").json()
    paused = state(rnd)
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/corrections/replace/", {"position": 1, "card": "2H"}, format="json"))
    refused(supervisor_api.post(f"/api/rounds/{rnd.pk}/corrections/remove-last/"))
    assert state(rnd) == paused and paused[:6] == (S.PAUSED, *before[1:6])
    supervisor_api.post(f"/api/incidents/{incident['id']}/resume/", {}, format="json")
    play.time_runs_out(rnd)
    rnd = play.deal_out(rnd)
    body = anon_api.get(f"/api/rounds/{rnd.pk}/")
    assert body.status_code == 404  # a match's round is its players' and supervisors' only
    fair = play.clients["alice"].get(f"/api/rounds/{rnd.pk}/").json()["fairness"]
    cards = list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("card", flat=True))
    assert virtual.verify(commitment_hex=fair["commitment"], salt=fair["salt"], pack=fair["pack"], joker=rnd.joker, cards=cards)


def test_a_dealer_does_not_even_see_a_match_round(match_round, dealer_api):
    play, rnd = match_round
    before = state(rnd)
    for response in (
        dealer_api.post(f"/api/tables/{play.table_id}/rounds/", {"joker": "KS"}, format="json"),
        dealer_api.post(f"/api/rounds/{rnd.pk}/close-betting/"),
        dealer_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "2H"}, format="json"),
        dealer_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "other"}, format="json"),
    ):
        refused(response, code="not_found", status=404)
    assert state(rnd) == before


def test_a_match_still_closes_betting_early_once_everyone_is_done(match_round):
    play, rnd = match_round
    play.sit_out("alice")
    play.sit_out("bob")
    assert state(rnd)[0] == S.DEALING


def test_a_match_table_opens_no_round_in_its_lobby(alice_api, supervisor_api, dealer_api, supervisor):
    body = alice_api.post("/api/matches/", {}, format="json").json()
    table_id = body["table"]
    refused(supervisor_api.post(f"/api/tables/{table_id}/rounds/", {"joker": "KS"}, format="json"))
    refused(dealer_api.post(f"/api/tables/{table_id}/rounds/", {"joker": "KS"}, format="json"), code="not_found", status=404)
    fairness = {"commitment": "0" * 64, "pack": "KS", "salt": "0"}
    with pytest.raises(ApplicationError) as exc:  # not even the virtual dealer, until the match starts
        services.round_open(table_id=table_id, joker="KS", dealer=supervisor, fairness=fairness, by=VIRTUAL)
    assert exc.value.code == "match_lobby"
    assert virtual.tick(table_id=table_id)[0] == "off"
    assert not Round.objects.filter(table_id=table_id).exists()


def test_the_admin_hides_an_open_rounds_pack_and_keeps_a_match_tables_driver(make_table, alice_api, bob_api, supervisor):
    from django.contrib.auth.models import Permission
    from django.test import Client

    supervisor.is_staff = True
    supervisor.save()
    supervisor.user_permissions.add(*Permission.objects.filter(codename__in=["view_round", "change_table", "view_table"]))
    page = Client()
    page.force_login(supervisor)
    table = virtual_table(make_table)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    html = page.get(f"/admin/tables/round/{rnd.pk}/change/").content.decode()
    assert rnd.commitment in html and rnd.pack not in html and rnd.salt not in html
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    form = page.get(f"/admin/tables/table/{play.table_id}/change/").content.decode()
    assert 'name="is_private"' not in form and 'name="virtual_dealer"' not in form
    assert 'name="is_private"' in page.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
