"""GET /api/integrity/, GET /api/alerts/, POST /api/alerts/{id}/acknowledge/: supervisors only."""
import pytest
from django.utils.timezone import now as timezone_now

import engine.integrity as ig
from integrity.models import Alert, Monitor

from .conftest import first_card_pack, play

pytestmark = pytest.mark.django_db(transaction=True)

URLS = ["/api/integrity/", "/api/alerts/"]


@pytest.fixture
def alerted(table, dealer, rng):
    """A table and its dealer after a stacked shoe: first_card_match alerts at both."""
    while not Alert.objects.exists():
        play(table, dealer, first_card_pack(rng))
    return Alert.objects.get(monitor__kind="table", check_name="first_card_match")


@pytest.mark.parametrize("url", URLS)
def test_only_supervisors_read_the_monitor(url, anon_api, alice_api, dealer_api, supervisor_api):
    assert anon_api.get(url).status_code in (401, 403)
    assert alice_api.get(url).status_code == 403
    assert dealer_api.get(url).status_code == 403
    assert supervisor_api.get(url).status_code == 200


def test_every_table_is_listed_with_each_check_statistic_threshold_and_status(make_table, supervisor_api):
    first, second = make_table(), make_table()
    body = supervisor_api.get("/api/integrity/").json()
    assert [t["table"] for t in body["tables"]] == [first.pk, second.pk]
    check = body["tables"][0]["checks"][0]
    assert check == {"check": "first_side_high", "statistic": 0, "threshold": 1100,
                     "watch": 550, "progress": 0, "status": "ok", "alert": None}  # figures only: docs/INTEGRITY.md says what each counts
    assert body["tables"][0]["status"] == "ok"
    assert body["dealers"] == [] and body["baseline"]["ready"] is False


def test_each_check_says_how_far_it_is_on_its_way_to_an_alert_and_each_subject_its_worst_status(
        alerted, table, supervisor_api):
    """`progress` is the server's figure (the statistic over its alarm threshold, in whole percent,
    rounded down), so a page says "72% of the way to an alert" without a rule of its own."""
    body = supervisor_api.get("/api/integrity/").json()
    for subject in body["tables"] + body["dealers"]:
        for c in subject["checks"]:
            assert c["progress"] == max(0, c["statistic"]) * 100 // c["threshold"]
        assert subject["status"] == "alert"  # first_card_match alerted at the table and at its dealer
    checks = {c["check"]: c for c in body["tables"][0]["checks"]}
    assert checks["first_card_match"]["progress"] >= 100
    Alert.objects.update(acknowledged_at=timezone_now(), note="checked")  # acknowledged: the check starts afresh
    Monitor.objects.filter(kind="table").update(state={**ig.initial_state(), "first_card_match": 1237})
    body = supervisor_api.get("/api/integrity/").json()
    checks = {c["check"]: c for c in body["tables"][0]["checks"]}
    assert (checks["first_card_match"]["status"], checks["first_card_match"]["progress"]) == ("watch", 82)  # 1237 / 1500
    assert body["tables"][0]["status"] == "watch"


def test_an_alert_shows_in_the_monitor_and_the_list_until_acknowledged(alerted, table, dealer, supervisor, supervisor_api):
    body = supervisor_api.get("/api/integrity/").json()
    checks = {c["check"]: c for c in body["tables"][0]["checks"]}
    assert checks["first_card_match"]["status"] == "alert" and checks["first_card_match"]["alert"] == alerted.pk
    dealer_checks = {c["check"]: c for c in body["dealers"][0]["checks"]}
    assert body["dealers"][0]["name"] == "dealer" and dealer_checks["first_card_match"]["status"] == "alert"
    assert {"corrections", "voids", "slow_cards"} <= set(dealer_checks)
    listed = supervisor_api.get("/api/alerts/?status=open").json()
    assert {a["id"] for a in listed} == set(Alert.objects.values_list("pk", flat=True))
    mine = next(a for a in listed if a["id"] == alerted.pk)
    assert (mine["subject"], mine["table"], mine["name"], mine["check"]) == ("table", table.pk, table.name, "first_card_match")
    assert mine["statistic"] >= mine["threshold"] == 1500 and mine["acknowledged_at"] is None

    url = f"/api/alerts/{alerted.pk}/acknowledge/"
    assert supervisor_api.post(url, {}, format="json").status_code == 400
    assert supervisor_api.post(url, {"note": "  "}, format="json").status_code == 400
    done = supervisor_api.post(url, {"note": "Shoe replaced, shuffler checked."}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["acknowledged_by"] == "supervisor" and done.json()["note"] == "Shoe replaced, shuffler checked."
    again = supervisor_api.post(url, {"note": "twice"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "alert_acknowledged"

    state = Monitor.objects.get(kind="table", table=table).state
    assert state["first_card_match"] == 0  # the check starts afresh
    checks = {c["check"]: c for c in supervisor_api.get("/api/integrity/").json()["tables"][0]["checks"]}
    assert checks["first_card_match"]["status"] == "ok" and checks["first_card_match"]["alert"] is None
    assert [a["id"] for a in supervisor_api.get("/api/alerts/?status=acknowledged").json()] == [alerted.pk]


def test_acknowledging_is_for_supervisors_and_an_unknown_alert_is_404(alerted, dealer_api, alice_api, supervisor_api):
    url = f"/api/alerts/{alerted.pk}/acknowledge/"
    assert dealer_api.post(url, {"note": "mine"}, format="json").status_code == 403
    assert alice_api.post(url, {"note": "mine"}, format="json").status_code == 403
    assert supervisor_api.post("/api/alerts/999999/acknowledge/", {"note": "x"}, format="json").status_code == 404
    assert supervisor_api.get("/api/alerts/?status=nonsense").status_code == 400
