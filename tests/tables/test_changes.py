"""The change log: every change to a table's settings, limits, state, driver or dealer, and every
role and password change, recorded append-only (who, when, what, old, new); the admin writes
through the same services as the API; supervisors read it per table and studio-wide, newest first."""
import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import AccessChange
from studio.appendonly import AppendOnlyError
from tables.models import Table, TableChange

from ..accounts.test_admin import form_data

pytestmark = pytest.mark.django_db


def rows(table):
    return list(TableChange.objects.filter(table=table).order_by("id").values_list("actor_name", "source", "field", "old", "new"))


def test_a_patch_records_each_changed_value_old_and_new(supervisor_api, table):
    table.refresh_from_db()
    old_max, old_side_bets = str(table.max_bet), ",".join(sorted(table.side_bets))
    response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"min_bet": "20.00", "max_bet": "600.00", "side_bets": []},
                                    format="json")
    assert response.status_code == 200, response.content
    assert sorted(rows(table)) == sorted([
        ("supervisor", "api", "min_bet", str(table.min_bet), "20.00"),
        ("supervisor", "api", "max_bet", old_max, "600.00"),
        ("supervisor", "api", "side_bets", old_side_bets, ""),
    ])


def test_a_patch_that_changes_nothing_records_nothing(supervisor_api, table):
    same = {"min_bet": str(table.min_bet), "commission": "0.900"}
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", same, format="json").status_code == 200
    assert rows(table) == []


def test_a_refused_patch_records_nothing(supervisor_api, dealer_api, table):
    assert supervisor_api.patch(f"/api/tables/{table.pk}/", {"min_bet": "-1"}, format="json").status_code == 400
    assert dealer_api.patch(f"/api/tables/{table.pk}/", {"min_bet": "20"}, format="json").status_code == 403
    assert rows(table) == []


def test_a_created_table_is_recorded(supervisor_api):
    response = supervisor_api.post("/api/tables/", {"name": "Salon Privé"}, format="json")
    assert response.status_code == 201, response.content
    assert rows(Table.objects.get(pk=response.json()["id"])) == [("supervisor", "api", "created", "", "Salon Privé")]


def test_the_admin_writes_through_the_same_service(supervisor, table):
    client = Client()
    client.force_login(supervisor)
    url = f"/admin/tables/table/{table.pk}/change/"
    data = form_data(client, url)
    data.update(state="maintenance", state_reason="New shoe", betting_seconds="20")
    response = client.post(url, data)
    assert response.status_code == 302, response.content[:2000]
    table.refresh_from_db()
    assert (table.state, table.state_reason, table.betting_seconds) == ("maintenance", "New shoe", 20)
    assert sorted(r[2] for r in rows(table)) == ["betting_seconds", "state", "state_reason"]
    assert {r[1] for r in rows(table)} == {"admin"}


def test_the_admin_refuses_maintenance_without_a_reason(supervisor, table):
    client = Client()
    client.force_login(supervisor)
    url = f"/admin/tables/table/{table.pk}/change/"
    data = form_data(client, url)
    data.update(state="maintenance", state_reason="")
    assert client.post(url, data).status_code == 200  # the form again, with its error
    assert Table.objects.get(pk=table.pk).state == "open" and rows(table) == []


def test_the_change_log_cannot_be_edited_or_deleted_through_the_orm(supervisor_api, table):
    supervisor_api.post(f"/api/tables/{table.pk}/state/", {"state": "closed"}, format="json")
    row = TableChange.objects.get(table=table, field="state")
    row.new = "open"
    with pytest.raises(AppendOnlyError):
        row.save()
    with pytest.raises(AppendOnlyError):
        row.delete()
    with pytest.raises(AppendOnlyError):
        TableChange.objects.filter(pk=row.pk).update(new="open")
    with pytest.raises(AppendOnlyError):
        AccessChange.objects.all().delete()


def test_supervisors_read_a_tables_changes_newest_first_paginated(supervisor_api, table, make_table):
    other = make_table()
    for seconds in (20, 30, 40):
        supervisor_api.patch(f"/api/tables/{table.pk}/", {"betting_seconds": seconds}, format="json")
    supervisor_api.patch(f"/api/tables/{other.pk}/", {"betting_seconds": 50}, format="json")
    body = supervisor_api.get(f"/api/tables/{table.pk}/changes/?page_size=2").json()
    assert body["count"] == 3 and body["next"]
    assert [(r["field"], r["old"], r["new"]) for r in body["results"]] == [("betting_seconds", "30", "40"), ("betting_seconds", "20", "30")]
    first = body["results"][0]
    assert (first["kind"], first["table"], first["subject"], first["actor"], first["source"]) == ("table", table.pk, table.name, "supervisor", "api")
    assert first["at"]


def test_the_studio_wide_log_has_every_table_and_the_role_and_password_changes(supervisor_api, table):
    call_command("studio_user", "newdealer", "--role", "dealer", "--password", "pw-newdealer-1", stdout=open("/dev/null", "w"))
    supervisor_api.post(f"/api/tables/{table.pk}/state/", {"state": "closed", "reason": "Break"}, format="json")
    body = supervisor_api.get("/api/changes/?page_size=100").json()
    kinds = [(r["kind"], r["subject"], r["field"]) for r in body["results"]]
    assert kinds[0][0] == "table"  # newest first: the state change came last
    assert ("table", table.name, "state") in kinds
    assert ("access", "newdealer", "password") in kinds and ("access", "newdealer", "groups") in kinds
    password = next(r for r in body["results"] if r["kind"] == "access" and r["field"] == "password" and r["subject"] == "newdealer")
    assert password["new"] == "set" and "pw-newdealer" not in str(body)  # never a password
    ats = [r["at"] for r in body["results"]]
    assert ats == sorted(ats, reverse=True)


@pytest.mark.parametrize("url", ["/api/changes/", "/api/tables/{id}/changes/"])
def test_only_supervisors_read_the_change_log(dealer_api, alice_api, anon_api, table, url):
    url = url.format(id=table.pk)
    assert dealer_api.get(url).status_code == 403
    assert alice_api.get(url).status_code == 403
    assert anon_api.get(url).status_code == 401


def test_a_missing_tables_changes_are_a_404(supervisor_api):
    assert supervisor_api.get("/api/tables/999999/changes/").status_code == 404


def test_the_demo_tables_are_created_through_the_service(settings):
    settings.DEMO_DATA = True
    call_command("demo_setup", stdout=open("/dev/null", "w"))
    call_command("demo_setup", stdout=open("/dev/null", "w"))  # again: nothing new
    created = sorted(TableChange.objects.filter(field="created").values_list("new", "source", "actor_name"))
    assert created == [("Play-chips table", "command", "studio command"), ("Studio table", "command", "studio command"),
                       ("Super table", "command", "studio command"), ("Virtual table", "command", "studio command")]
