"""Table states: a supervisor opens, closes or puts a table under maintenance (with a reason); a
closed or maintenance table opens no new round (409 `table_closed`) while a running round finishes;
players read the state and why in the table's snapshot and stream; every change is in the change log."""
import pytest

from tables.models import Round, Table, TableChange

pytestmark = pytest.mark.django_db


def set_state(client, table, state, reason=""):
    return client.post(f"/api/tables/{table.pk}/state/", {"state": state, "reason": reason}, format="json")


def open_round(client, table, joker="KS"):
    return client.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")


def test_a_new_table_is_open(supervisor_api, table):
    body = supervisor_api.get(f"/api/tables/{table.pk}/").json()
    assert (body["state"], body["state_reason"]) == ("open", "")


def test_supervisor_puts_a_table_under_maintenance_and_it_opens_no_round(supervisor_api, dealer_api, table):
    response = set_state(supervisor_api, table, "maintenance", "  Shoe reader replaced  ")
    assert response.status_code == 200, response.content
    assert (response.json()["state"], response.json()["state_reason"]) == ("maintenance", "Shoe reader replaced")
    refused = open_round(dealer_api, table)
    assert refused.status_code == 409
    assert refused.json()["code"] == "table_closed"
    assert refused.json()["state"] == "maintenance" and refused.json()["reason"] == "Shoe reader replaced"
    assert not Round.objects.filter(table=table).exists()
    assert open_round(supervisor_api, table).json()["code"] == "table_closed"  # supervisors too: open it first


def test_a_running_round_finishes_on_a_closed_table(supervisor_api, dealer_api, table):
    rnd = open_round(dealer_api, table).json()["id"]
    assert set_state(supervisor_api, table, "closed", "End of the night").status_code == 200
    assert dealer_api.post(f"/api/rounds/{rnd}/close-betting/").status_code == 200
    dealt = dealer_api.post(f"/api/rounds/{rnd}/cards/", {"card": "KC"}, format="json")
    assert dealt.status_code == 201 and dealt.json()["match"] is True
    assert open_round(dealer_api, table, "QS").json()["code"] == "table_closed"
    assert set_state(supervisor_api, table, "open").status_code == 200
    assert open_round(dealer_api, table, "QS").status_code == 201


def test_reopening_clears_the_reason(supervisor_api, table):
    set_state(supervisor_api, table, "closed", "Break")
    body = set_state(supervisor_api, table, "open", "ignored").json()
    assert (body["state"], body["state_reason"]) == ("open", "")


def test_maintenance_needs_a_reason_and_nothing_changes_without_one(supervisor_api, table):
    response = set_state(supervisor_api, table, "maintenance", "   ")
    assert response.status_code == 400
    assert "reason" in response.json()["fields"]
    table.refresh_from_db()
    assert table.state == "open" and not TableChange.objects.filter(table=table, field="state").exists()


@pytest.mark.parametrize("body", [{"state": "broken"}, {}, {"state": "closed", "reason": "x\x00y"}, {"state": "closed", "reason": "r" * 201}])
def test_bad_state_input_is_a_400(supervisor_api, table, body):
    response = supervisor_api.post(f"/api/tables/{table.pk}/state/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"]
    table.refresh_from_db()
    assert table.state == "open"


def test_only_supervisors_change_a_state(dealer_api, alice_api, anon_api, table):
    assert set_state(dealer_api, table, "closed").status_code == 403
    assert set_state(alice_api, table, "closed").status_code == 403
    assert set_state(anon_api, table, "closed").status_code == 401
    table.refresh_from_db()
    assert table.state == "open"


def test_state_of_a_missing_table_is_a_404(supervisor_api):
    assert supervisor_api.post("/api/tables/999999/state/", {"state": "closed"}, format="json").status_code == 404


def test_the_state_is_not_patched_through_the_table(supervisor_api, table):
    response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"state": "closed"}, format="json")
    assert response.status_code == 200
    table.refresh_from_db()
    assert table.state == "open"  # read-only there: the state has its own endpoint


def test_players_read_the_state_and_why_in_the_snapshot(supervisor_api, anon_api, table):
    set_state(supervisor_api, table, "maintenance", "Camera fault")
    snapshot = anon_api.get(f"/api/tables/{table.pk}/stream-snapshot/").json()
    assert (snapshot["table"]["state"], snapshot["table"]["state_reason"]) == ("maintenance", "Camera fault")
    listed = {t["id"]: t for t in anon_api.get("/api/tables/").json()}
    assert listed[table.pk]["state"] == "maintenance"


def test_each_state_change_is_one_change_log_row(supervisor_api, supervisor, table):
    set_state(supervisor_api, table, "closed", "Break")
    set_state(supervisor_api, table, "closed", "Break")  # the same again: nothing to record
    set_state(supervisor_api, table, "open")
    rows = list(TableChange.objects.filter(table=table).order_by("id").values_list("actor_name", "field", "old", "new"))
    assert rows == [
        ("supervisor", "state", "open", "closed"), ("supervisor", "state_reason", "", "Break"),
        ("supervisor", "state", "closed", "open"), ("supervisor", "state_reason", "Break", ""),
    ]


def test_a_virtual_table_closed_opens_no_virtual_round(make_table, supervisor):
    from studio.errors import WrongMoment
    from tables import services

    table = make_table(virtual_dealer=True)
    services.table_state_set(table_id=table.pk, state="closed", reason="", actor=supervisor)
    with pytest.raises(WrongMoment) as refused:
        services.round_open(table_id=table.pk, joker="KS", dealer=None, by="virtual",
                            fairness={"commitment": "c" * 64, "pack": "", "salt": ""})
    assert refused.value.code == "table_closed"
    assert Table.objects.get(pk=table.pk).state == "closed"
