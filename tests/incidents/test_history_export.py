"""The supervisor's searchable history of rounds and incidents, an incident's detail (its round,
bets per spot, players), and the CSV export of rounds with their totals. Dealers and players are
kept out of the history and the export."""
import csv
import io
from decimal import Decimal

import pytest

from bets.settlement import round_settle
from incidents import services as incidents

from .conftest import close, deal, open_round, place, raise_incident

pytestmark = pytest.mark.django_db

D = Decimal
HEADER = ["id", "table", "status", "joker", "first_side", "winner", "cards_dealt", "opened_at", "finished_at",
          "settled_at", "bets", "staked", "paid", "house_result", "incidents", "dealer"]


@pytest.fixture
def history(dealer, supervisor, alice, bob, make_table):
    """Lotus: a settled round (Alice wins 100 on Andar at 0.9:1, Bob loses 50 on Bahar), then a round
    still in betting. Orchid: a round voided with 30 + 70 staked."""
    lotus, orchid = make_table(name="Lotus"), make_table(name="Orchid")
    settled = open_round(lotus, dealer, "KS")
    place(alice, settled, "andar", 100)
    place(bob, settled, "bahar", 50)
    close(settled, dealer)
    deal(settled, dealer, ["2C", "3D", "KH"])
    assert round_settle(round_id=settled.pk)
    betting = open_round(lotus, dealer, "7D")
    place(alice, betting, "andar", 20)
    voided = open_round(orchid, dealer, "QH")
    place(alice, voided, "andar", 30)
    place(bob, voided, "bahar", 70)
    incident = raise_incident(voided, dealer, "equipment", "shuffler jammed at Orchid")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="shuffler replaced")
    return {"lotus": lotus, "orchid": orchid, "settled": settled, "betting": betting, "voided": voided, "incident": incident}


def ids(response):
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()]


def test_history_is_searched_by_table_name_round_id_and_status(supervisor_api, history):
    h = history
    assert ids(supervisor_api.get("/api/rounds/")) == [h["voided"].pk, h["betting"].pk, h["settled"].pk]
    assert ids(supervisor_api.get("/api/rounds/", {"q": "lotus"})) == [h["betting"].pk, h["settled"].pk]
    assert ids(supervisor_api.get("/api/rounds/", {"q": str(h["settled"].pk)})) == [h["settled"].pk]
    assert ids(supervisor_api.get("/api/rounds/", {"status": "voided"})) == [h["voided"].pk]
    assert ids(supervisor_api.get("/api/rounds/", {"status": "settled", "q": "orchid"})) == []
    assert ids(supervisor_api.get("/api/rounds/", {"table": h["lotus"].pk, "status": "betting"})) == [h["betting"].pk]


def test_history_is_searched_by_what_the_rounds_incidents_say(supervisor_api, supervisor, history):
    h = history
    assert ids(supervisor_api.get("/api/rounds/", {"q": "jammed"})) == [h["voided"].pk]  # an incident's note
    assert ids(supervisor_api.get("/api/rounds/", {"q": "SHUFFLER REPLACED"})) == [h["voided"].pk]  # the void's reason
    incidents.incident_add_note(incident_id=raise_incident(h["settled"], supervisor, "procedure").pk, actor=supervisor,
                                text="camera 2 checked")
    assert ids(supervisor_api.get("/api/rounds/", {"q": "camera 2"})) == [h["settled"].pk]
    assert ids(supervisor_api.get("/api/rounds/", {"q": "nowhere said"})) == []


def test_history_rows_carry_the_round_totals(supervisor_api, history):
    rows = {row["id"]: row for row in supervisor_api.get("/api/rounds/").json()}
    settled, voided = rows[history["settled"].pk], rows[history["voided"].pk]
    assert (settled["table"], settled["status"], settled["winner"], settled["cards_dealt"], settled["dealer"]) == (
        "Lotus", "settled", "andar", 3, "dealer")
    assert (settled["bets"], D(settled["staked"]), D(settled["paid"]), D(settled["house_result"])) == (2, D(150), D(190), D(-40))
    assert (voided["status"], voided["bets"], D(voided["staked"]), D(voided["paid"]), voided["incidents"]) == (
        "voided", 2, D(100), D(100), 1)


def test_a_bad_table_filter_is_a_400(supervisor_api, history):
    for url in ("/api/rounds/", "/api/rounds/export.csv"):
        response = supervisor_api.get(url, {"table": "lotus"})
        assert (response.status_code, response.json()["code"]) == (400, "invalid"), url


def read_csv(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_export_has_a_header_and_one_row_per_round_with_totals(supervisor_api, history):
    header, *rows = read_csv(supervisor_api.get("/api/rounds/export.csv"))
    assert header == HEADER
    by_id = {int(row[0]): dict(zip(header, row, strict=True)) for row in rows}
    assert sorted(by_id) == sorted(history[k].pk for k in ("settled", "betting", "voided"))
    settled = by_id[history["settled"].pk]
    assert (settled["table"], settled["status"], settled["joker"], settled["winner"]) == ("Lotus", "settled", "KS", "andar")
    assert (settled["bets"], D(settled["staked"]), D(settled["paid"]), D(settled["house_result"])) == ("2", D(150), D(190), D(-40))
    assert settled["finished_at"] and settled["settled_at"]
    voided = by_id[history["voided"].pk]
    assert D(voided["staked"]) == D(voided["paid"]) == D(100) and D(voided["house_result"]) == 0
    assert (voided["status"], voided["bets"], voided["incidents"]) == ("voided", "2", "1")
    betting = by_id[history["betting"].pk]
    assert (betting["status"], betting["finished_at"], betting["winner"]) == ("betting", "", "")


def test_the_export_takes_the_history_filters(supervisor_api, history):
    header, *rows = read_csv(supervisor_api.get("/api/rounds/export.csv", {"status": "voided"}))
    assert header == HEADER and [int(r[0]) for r in rows] == [history["voided"].pk]


@pytest.mark.parametrize("who, status", [("dealer_api", 403), ("alice_api", 403), ("anon_api", 401)])
def test_only_supervisors_see_the_history_the_export_and_the_incident_list(request, history, who, status):
    api = request.getfixturevalue(who)
    for url in ("/api/rounds/", "/api/rounds/export.csv", "/api/incidents/"):
        assert api.get(url).status_code == status, url


def test_incidents_are_searched_by_status_notes_and_table(supervisor_api, dealer, history):
    settled = raise_incident(history["settled"], dealer, "settlement", "payout looked too high")
    voided = history["incident"].pk

    def found(**params):
        response = supervisor_api.get("/api/incidents/", params)
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()]

    assert found() == [settled.pk, voided]
    assert found(status="open") == [settled.pk]
    assert found(status="voided") == [voided]
    assert found(q="shuffler") == [voided]
    assert found(q="orchid") == [voided]
    assert settled.pk in found(q=str(history["settled"].pk))  # a number finds the round's (or that incident id)


def test_an_incident_shows_its_round_bets_per_spot_and_players(dealer_api, dealer, alice, bob, table):
    rnd = open_round(table, dealer, "KS")
    place(alice, rnd, "andar", 100)
    place(alice, rnd, "count_1_5", 10)
    place(bob, rnd, "andar", 40)
    close(rnd, dealer)
    deal(rnd, dealer, ["2C"])
    incident = raise_incident(rnd, dealer, "wrong_side", "card 1 went to Bahar's box")

    body = dealer_api.get(f"/api/incidents/{incident.pk}/").json()
    assert (body["kind"], body["status"], body["raised_by"], body["table"]) == ("wrong_side", "open", "dealer", table.pk)
    detail = body["round_detail"]
    assert (detail["id"], detail["status"], detail["joker"]) == (rnd.pk, "paused", "KS")
    assert [{k: c[k] for k in ("position", "side", "card")} for c in detail["cards"]] == [{"position": 1, "side": "andar", "card": "2C"}]
    assert detail["cards"][0]["dealt_at"].endswith("Z")
    assert [(s["spot"], s["count"], D(s["staked"])) for s in body["bets_per_spot"]] == [("andar", 2, D(140)), ("count_1_5", 1, D(10))]
    assert [(p["player"], p["bets"], D(p["staked"])) for p in body["players"]] == [("alice", 2, D(110)), ("bob", 1, D(40))]
    assert dealer_api.get("/api/incidents/999999/").status_code == 404
    listed = dealer_api.get(f"/api/rounds/{rnd.pk}/incidents/").json()
    assert [(i["id"], i["kind"], i["round_status"]) for i in listed] == [(incident.pk, "wrong_side", "paused")]
