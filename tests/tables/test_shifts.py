"""Dealer shifts through the API: sign-in ends the previous dealer's shift there and the newcomer's
elsewhere; sign-out by the dealer or a supervisor; one open shift per table and per dealer (held by
the database too); an implicit shift when a dealer opens a round at a table with no one on shift;
409 `dealer_on_shift` where another dealer is; supervisors act anywhere; the virtual dealer has none."""
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from tables.models import Round, Shift, TableChange

from ..conftest import client_for, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer2(db):
    return make_user("dealer2", "dealer")


@pytest.fixture
def dealer2_api(dealer2):
    return client_for(dealer2)


def sign_in(client, table, status=201):
    response = client.post(f"/api/tables/{table.pk}/shifts/")
    assert response.status_code == status, response.content
    return response.json()


def open_round(client, table, joker="KS"):
    return client.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")


def finish_round(client, round_id):
    assert client.post(f"/api/rounds/{round_id}/close-betting/").status_code == 200
    assert client.post(f"/api/rounds/{round_id}/cards/", {"card": "KC"}, format="json").json()["match"] is True


def on_shift(client, table):
    return client.get(f"/api/tables/{table.pk}/shifts/").json()["current"]


def test_a_dealer_signs_in_and_is_on_shift(dealer_api, table):
    shift = sign_in(dealer_api, table)
    assert (shift["dealer"], shift["ended_at"], shift["rotation_due"]) == ("dealer", None, False)
    assert on_shift(dealer_api, table)["id"] == shift["id"]
    assert sign_in(dealer_api, table, status=200)["id"] == shift["id"]  # again: the same shift
    assert "on_shift" not in dealer_api.get(f"/api/tables/{table.pk}/").json()  # not the public's: the shifts' own endpoint


def test_the_next_dealer_signing_in_ends_the_previous_shift(dealer_api, dealer2_api, table):
    first = sign_in(dealer_api, table)
    second = sign_in(dealer2_api, table)
    ended = Shift.objects.get(pk=first["id"])
    assert (ended.end_reason, ended.ended_by.username) == ("next_dealer", "dealer2")
    assert on_shift(dealer_api, table)["id"] == second["id"]


def test_signing_in_elsewhere_ends_the_shift_at_the_first_table(dealer_api, make_table):
    one, two = make_table(), make_table()
    first = sign_in(dealer_api, one)
    sign_in(dealer_api, two)
    assert Shift.objects.get(pk=first["id"]).end_reason == "moved"
    assert on_shift(dealer_api, one) is None and on_shift(dealer_api, two)["dealer"] == "dealer"


def test_the_dealer_signs_out(dealer_api, table):
    shift = sign_in(dealer_api, table)
    response = dealer_api.post(f"/api/shifts/{shift['id']}/end/")
    assert response.status_code == 200
    assert response.json()["end_reason"] == "signed_out" and response.json()["ended_at"]
    again = dealer_api.post(f"/api/shifts/{shift['id']}/end/")
    assert (again.status_code, again.json()["code"]) == (409, "shift_ended")


def test_a_supervisor_ends_a_dealers_shift(dealer_api, supervisor_api, table):
    shift = sign_in(dealer_api, table)
    response = supervisor_api.post(f"/api/shifts/{shift['id']}/end/")
    assert response.status_code == 200 and response.json()["end_reason"] == "supervisor"


def test_another_dealer_cannot_end_a_shift_nor_a_player(dealer_api, dealer2_api, alice_api, anon_api, table):
    shift = sign_in(dealer_api, table)
    refused = dealer2_api.post(f"/api/shifts/{shift['id']}/end/")
    assert (refused.status_code, refused.json()["code"]) == (403, "not_your_shift")
    assert alice_api.post(f"/api/shifts/{shift['id']}/end/").status_code == 403
    assert anon_api.post(f"/api/shifts/{shift['id']}/end/").status_code == 401
    assert Shift.objects.get(pk=shift["id"]).ended_at is None
    assert dealer_api.post("/api/shifts/999999/end/").status_code == 404


def test_players_and_anonymous_neither_sign_in_nor_read_shifts(alice_api, anon_api, table):
    assert alice_api.post(f"/api/tables/{table.pk}/shifts/").status_code == 403
    assert anon_api.post(f"/api/tables/{table.pk}/shifts/").status_code == 401
    assert alice_api.get(f"/api/tables/{table.pk}/shifts/").status_code == 403
    assert not Shift.objects.exists()


def test_a_virtual_or_private_table_has_no_shifts(dealer_api, make_table):
    virtual = make_table(virtual_dealer=True)
    refused = dealer_api.post(f"/api/tables/{virtual.pk}/shifts/")
    assert (refused.status_code, refused.json()["code"]) == (409, "virtual_table")
    private = make_table(is_private=True)
    assert dealer_api.post(f"/api/tables/{private.pk}/shifts/").status_code == 404
    assert dealer_api.post("/api/tables/999999/shifts/").status_code == 404
    assert not Shift.objects.exists()


def test_opening_a_round_with_no_one_on_shift_starts_one_and_the_round_records_it(dealer_api, table):
    body = open_round(dealer_api, table).json()
    shift = Shift.objects.get(table=table, ended_at=None)
    assert shift.dealer.username == "dealer"
    assert body["shift"] == shift.pk and Round.objects.get(pk=body["id"]).shift_id == shift.pk
    finish_round(dealer_api, body["id"])
    assert open_round(dealer_api, table, "QS").json()["shift"] == shift.pk  # the same shift goes on


def test_opening_where_another_dealer_is_on_shift_is_refused(dealer_api, dealer2_api, table):
    sign_in(dealer_api, table)
    refused = open_round(dealer2_api, table)
    assert refused.status_code == 409
    assert (refused.json()["code"], refused.json()["dealer"]) == ("dealer_on_shift", "dealer")
    assert not Round.objects.exists()
    sign_in(dealer2_api, table)  # taking over by signing in
    assert open_round(dealer2_api, table).status_code == 201


def test_an_implicit_shift_elsewhere_ends_the_first_but_its_round_can_still_be_finished(dealer_api, dealer2_api, make_table):
    one, two = make_table(), make_table()
    running = open_round(dealer_api, one).json()["id"]
    first = Shift.objects.get(table=one, ended_at=None)
    assert open_round(dealer_api, two).status_code == 201
    assert Shift.objects.get(pk=first.pk).end_reason == "moved"
    finish_round(dealer_api, running)  # the round at the first table is dealt to its end
    assert Round.objects.get(pk=running).status in ("finished", "settled")
    assert open_round(dealer2_api, one).status_code == 201  # the first table is free for another dealer


def test_a_supervisor_opens_anywhere_without_taking_the_shift(dealer_api, supervisor_api, table):
    shift = sign_in(dealer_api, table)
    body = open_round(supervisor_api, table).json()
    assert body["dealer"] == "supervisor" and body["shift"] is None
    assert on_shift(supervisor_api, table)["id"] == shift["id"]  # still the dealer's
    finish_round(supervisor_api, body["id"])
    mine = sign_in(supervisor_api, table)  # a supervisor takes over only by signing in
    assert open_round(supervisor_api, table, "QS").json()["shift"] == mine["id"]


def test_a_supervisor_with_no_one_on_shift_starts_no_shift(supervisor_api, table):
    assert open_round(supervisor_api, table).json()["shift"] is None
    assert not Shift.objects.exists()


def test_the_virtual_dealer_has_no_shifts(make_table):
    from tables import services

    table = make_table(virtual_dealer=True)
    rnd = services.round_open(table_id=table.pk, joker="KS", dealer=None, by="virtual",
                              fairness={"commitment": "c" * 64, "pack": "", "salt": ""})
    assert rnd.shift_id is None and not Shift.objects.exists()


def test_a_table_that_becomes_the_virtual_dealers_ends_its_shift(dealer_api, supervisor_api, table):
    shift = sign_in(dealer_api, table)
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", {"name": "Renamed"}, format="json").status_code == 200
    assert Shift.objects.get(pk=shift["id"]).ended_at is None
    from tables import services

    services.table_update(table_id=table.pk, changes={"virtual_dealer": True}, actor=None, source="command")
    assert Shift.objects.get(pk=shift["id"]).end_reason == "supervisor"


def test_the_database_holds_one_open_shift_per_table_and_per_dealer(dealer, supervisor, make_table):
    one, two = make_table(), make_table()
    now = timezone.now()
    Shift.objects.create(table=one, dealer=dealer, started_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        Shift.objects.create(table=one, dealer=supervisor, started_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        Shift.objects.create(table=two, dealer=dealer, started_at=now)
    Shift.objects.create(table=two, dealer=dealer, started_at=now, ended_at=now, end_reason="signed_out")  # ended: fine


def test_a_shift_past_the_table_length_is_due_for_rotation(dealer_api, supervisor_api, table):
    shift = sign_in(dealer_api, table)
    Shift.objects.filter(pk=shift["id"]).update(started_at=timezone.now() - timedelta(minutes=31))
    current = on_shift(dealer_api, table)
    assert current["rotation_due"] is True and current["seconds"] >= 31 * 60
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", {"shift_minutes": 45}, format="json").status_code == 200
    assert on_shift(dealer_api, table)["rotation_due"] is False
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", {"shift_minutes": 0}, format="json").status_code == 400


def test_every_change_of_dealer_is_in_the_change_log(dealer_api, dealer2_api, make_table):
    one, two = make_table(), make_table()
    sign_in(dealer_api, one)
    sign_in(dealer2_api, one)
    sign_in(dealer2_api, two)
    rows = list(TableChange.objects.filter(field="dealer").order_by("id").values_list("table_id", "actor_name", "old", "new"))
    assert rows == [(one.pk, "dealer", "", "dealer"), (one.pk, "dealer2", "dealer", "dealer2"),
                    (one.pk, "dealer2", "dealer2", ""), (two.pk, "dealer2", "", "dealer2")]
