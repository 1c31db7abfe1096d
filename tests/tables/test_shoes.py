"""Shoe changes: the dealer on shift (or a supervisor) records a new shoe, a row of the table's
change log (field `shoe`, numbered per table, who and when, in the table's audit chain); anyone
else is refused as the rest of the API refuses (403 players, 404 an unseen table, 409 a dealer not
on shift or a table no person deals)."""
import pytest

from tables.models import TableChange

from ..conftest import client_for, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer2_api(db):
    return client_for(make_user("dealer2", "dealer"))


def new_shoe(client, table, status=201):
    response = client.post(f"/api/tables/{table.pk}/shoes/")
    assert response.status_code == status, response.content
    return response.json()


def shoe_rows(table):
    return list(TableChange.objects.filter(table=table, field="shoe").order_by("id").values_list("actor_name", "source", "old", "new"))


def test_the_dealer_on_shift_records_a_new_shoe_in_the_change_log(dealer_api, table):
    assert dealer_api.get(f"/api/tables/{table.pk}/shifts/").json()["shoe"] is None
    assert dealer_api.post(f"/api/tables/{table.pk}/shifts/").status_code == 201
    first = new_shoe(dealer_api, table)
    assert (first["number"], first["by"]) == (1, "dealer") and first["at"]
    second = new_shoe(dealer_api, table)
    assert second["number"] == 2
    assert shoe_rows(table) == [("dealer", "api", "", "1"), ("dealer", "api", "1", "2")]
    assert dealer_api.get(f"/api/tables/{table.pk}/shifts/").json()["shoe"] == second


def test_a_shoe_change_is_in_the_tables_change_log_for_supervisors(dealer_api, supervisor_api, table):
    dealer_api.post(f"/api/tables/{table.pk}/shifts/")
    new_shoe(dealer_api, table)
    rows = supervisor_api.get(f"/api/tables/{table.pk}/changes/").json()["results"]
    assert (rows[0]["field"], rows[0]["actor"], rows[0]["old"], rows[0]["new"]) == ("shoe", "dealer", "", "1")
    record = TableChange.objects.get(table=table, field="shoe")
    assert record.chain_seq is not None and record.hash  # sealed in the table's audit chain


def test_a_supervisor_records_a_shoe_without_a_shift(supervisor_api, table):
    assert new_shoe(supervisor_api, table)["by"] == "supervisor"


def test_a_dealer_not_on_shift_is_refused(dealer_api, dealer2_api, table):
    refused = dealer_api.post(f"/api/tables/{table.pk}/shoes/")
    assert (refused.status_code, refused.json()["code"]) == (409, "dealer_on_shift")
    assert "sign in" in refused.json()["message"]
    dealer2_api.post(f"/api/tables/{table.pk}/shifts/")
    refused = dealer_api.post(f"/api/tables/{table.pk}/shoes/")
    assert (refused.status_code, refused.json()["code"]) == (409, "dealer_on_shift")
    assert "dealer2 is on shift" in refused.json()["message"]
    assert shoe_rows(table) == []


def test_players_unseen_and_virtual_tables_are_refused(alice_api, anon_api, supervisor_api, dealer_api, make_table, table):
    assert alice_api.post(f"/api/tables/{table.pk}/shoes/").status_code == 403
    assert anon_api.post(f"/api/tables/{table.pk}/shoes/").status_code == 401
    assert dealer_api.post("/api/tables/999999/shoes/").status_code == 404
    private = make_table(is_private=True)
    assert dealer_api.post(f"/api/tables/{private.pk}/shoes/").status_code == 404
    virtual = make_table(virtual_dealer=True)
    refused = supervisor_api.post(f"/api/tables/{virtual.pk}/shoes/")
    assert (refused.status_code, refused.json()["code"]) == (409, "virtual_table")
    assert not TableChange.objects.filter(field="shoe").exists()
