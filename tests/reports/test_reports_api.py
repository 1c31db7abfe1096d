"""GET /api/reports/: supervisors only, parameters checked before any query, figures from the rollups
(observed and theoretical hold per spot), CSV, and days in the studio's TIME_ZONE."""
import csv
import io
from collections import Counter
from datetime import UTC, datetime

import pytest

from engine import odds, percent4
from incidents import services as incidents
from reports.api import ReportRowSerializer, ReportSerializer, ReportSpotSerializer
from reports.rollup import rebuild_days
from tables.models import Round

from ..incidents.conftest import raise_incident
from .conftest import play, quick_player

pytestmark = pytest.mark.django_db

DEC1 = datetime(2026, 12, 1, tzinfo=UTC)


def at(hour: int, day: int = 1) -> datetime:
    return datetime(2026, 12, day, hour, 20, tzinfo=UTC)


def get(api, **params):
    return api.get("/api/reports/", params)


@pytest.fixture
def played(dealer, supervisor, make_table):
    """Two tables, two dealers: three settled rounds and a voided one on 1 December 2026."""
    alice, bob = quick_player("alice", 5000), quick_player("bob", 5000)
    one, two = make_table(name="Salon"), make_table(name="Garden", commission="0.95")
    play(one, dealer, [(alice, "andar", 100), (bob, "bahar", 50)], ["2C", "3D", "KH"], opened_at=at(4))  # Andar wins: 190 back
    play(one, dealer, [(alice, "andar", 100), (bob, "first_andar", 10)], ["2C", "KD"], opened_at=at(5))  # Bahar wins: 0 back
    play(two, supervisor, [(alice, "bahar", 40)], ["KD"], opened_at=at(5))  # Andar wins on card 1
    voided = play(two, supervisor, [(bob, "andar", 70)], ["KD"], opened_at=at(6))
    incident = raise_incident(voided, supervisor, "procedure")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="wrong shoe")
    return one, two


def test_only_supervisors_read_reports(played, supervisor_api, dealer_api, alice_api, anon_api):
    params = {"group": "table", "from": "2026-12-01", "to": "2026-12-02"}
    assert get(supervisor_api, **params).status_code == 200
    assert get(dealer_api, **params).status_code == 403
    assert get(alice_api, **params).status_code == 403
    assert get(anon_api, **params).status_code == 401


def test_a_report_by_table_has_the_rounds_money_and_holds(played, supervisor_api):
    one, two = played
    body = get(supervisor_api, group="table", **{"from": "2026-12-01", "to": "2026-12-02"}).json()
    assert (body["from"], body["to"], body["time_zone"]) == ("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "UTC")
    salon, garden = body["rows"]
    # the answer is what the schema's serializers document, field for field
    assert set(body) == set(ReportSerializer().fields)
    assert set(salon) == set(body["total"]) == set(ReportRowSerializer().fields)
    assert set(salon["spots"][0]) == set(ReportSpotSerializer().fields)
    assert (salon["key"], salon["label"], garden["label"]) == (str(one.pk), "Salon", "Garden")
    assert {k: salon[k] for k in ("rounds", "cards", "voids", "incidents", "player_rounds", "bets", "stakes", "payouts", "ggr")} == {
        "rounds": 2, "cards": 5, "voids": 0, "incidents": 0, "player_rounds": 4, "bets": 4,
        "stakes": "260.00", "payouts": "190.00", "ggr": "70.00"}
    assert salon["hold"] == "26.9231"  # 70 / 260
    assert {k: garden[k] for k in ("rounds", "voids", "incidents", "stakes", "payouts")} == {
        "rounds": 1, "voids": 1, "incidents": 1, "stakes": "40.00", "payouts": "0.00"}
    andar = next(s for s in salon["spots"] if s["spot"] == "andar")
    theory = {o.spot: percent4(1 - o.rtp) for o in odds(one.engine_config())}
    assert andar == {"spot": "andar", "bets": 2, "stakes": "200.00", "payouts": "190.00", "ggr": "10.00",
                     "hold": "5.0000", "theoretical_hold": theory["andar"]}
    assert theory["andar"] == "2.1489"  # RULES.md: Andar's RTP at 0.9:1 is 97.85%
    garden_bahar = garden["spots"][0]
    assert garden_bahar["theoretical_hold"] == percent4(1 - next(o.rtp for o in odds(two.engine_config()) if o.spot == "bahar"))
    total = body["total"]
    assert (total["key"], total["rounds"], total["stakes"], total["ggr"], total["voids"]) == (None, 3, "300.00", "110.00", 1)
    assert [s["spot"] for s in total["spots"]] == ["andar", "bahar", "first_andar"]
    assert float(salon["seconds_per_card"]) >= 0 and salon["rounds_per_hour"] is not None


def test_filters_and_groups_by_dealer_and_hour(played, dealer, supervisor, supervisor_api):
    one, _ = played
    by_dealer = get(supervisor_api, group="dealer", **{"from": "2026-12-01", "to": "2026-12-02"}).json()["rows"]
    assert [(r["key"], r["label"], r["rounds"]) for r in by_dealer] == [(str(dealer.pk), "dealer", 2), (str(supervisor.pk), "supervisor", 1)]
    by_hour = get(supervisor_api, group="hour", table=one.pk, **{"from": "2026-12-01T05:00:00Z", "to": "2026-12-01T07:00:00Z"}).json()
    assert [(r["key"], r["rounds"], r["stakes"]) for r in by_hour["rows"]] == [("2026-12-01T05:00:00Z", 1, "110.00")]
    only = get(supervisor_api, group="shift", dealer=supervisor.pk, **{"from": "2026-12-01", "to": "2026-12-02"}).json()
    assert [(r["key"], r["rounds"], r["voids"]) for r in only["rows"]] == [(None, 1, 1)]
    # A dealer's rounds fall in the shifts they were dealt in (the implicit shift of a dealer who opens a round).
    dealt = get(supervisor_api, group="shift", dealer=dealer.pk, **{"from": "2026-12-01", "to": "2026-12-02"}).json()["rows"]
    expected = Counter(Round.objects.filter(dealer=dealer, status="settled").values_list("shift_id", flat=True))
    assert None not in expected
    assert {r["key"]: r["rounds"] for r in dealt} == {str(shift): n for shift, n in expected.items()}


def test_days_are_the_studio_time_zones(played, supervisor_api, settings):
    params = {"group": "day", "from": "2026-11-30", "to": "2026-12-02"}
    assert [(r["key"], r["rounds"]) for r in get(supervisor_api, **params).json()["rows"]] == [("2026-12-01", 3)]
    settings.TIME_ZONE = "America/New_York"  # 04:20 UTC is 23:20 on 30 November there; 05:20 UTC is 00:20 on 1 December
    body = get(supervisor_api, **params).json()
    assert body["from"] == "2026-11-30T05:00:00Z"
    assert [(r["key"], r["rounds"], r["stakes"]) for r in body["rows"]] == [("2026-11-30", 1, "150.00"), ("2026-12-01", 2, "150.00")]
    later = get(supervisor_api, group="day", **{"from": "2026-12-01", "to": "2026-12-02"}).json()["rows"]
    assert [(r["key"], r["rounds"]) for r in later] == [("2026-12-01", 2)]
    naive = get(supervisor_api, group="table", **{"from": "2026-12-01T00:00", "to": "2026-12-01T01:00"}).json()
    assert naive["from"] == "2026-12-01T05:00:00Z"


def test_the_report_as_csv(played, supervisor_api, make_table):
    response = supervisor_api.get("/api/reports/", {"group": "table", "from": "2026-12-01", "to": "2026-12-02", "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert lines[0][:5] == ["group", "key", "label", "spot", "rounds"]
    salon = [line for line in lines if line[2] == "Salon"]
    assert salon[0][3:5] == ["", "2"] and salon[0][12:15] == ["260.00", "190.00", "70.00"]
    assert ["andar", "200.00", "190.00", "10.00", "5.0000", "2.1489"] == [salon[1][3], *salon[1][12:17]]
    assert lines[-1][0] == "total" or any(line[0] == "total" for line in lines)


def test_a_formula_in_a_name_is_defused_in_the_csv(dealer, supervisor_api, make_table):
    table = make_table(name="=HYPERLINK(1)")
    play(table, dealer, [], ["KD"], opened_at=at(4))
    text = supervisor_api.get("/api/reports/", {"group": "table", "from": "2026-12-01", "to": "2026-12-02", "format": "csv"}).content.decode()
    assert "'=HYPERLINK(1)" in text


def test_the_theoretical_hold_follows_the_rules_each_stake_was_bet_under(dealer, supervisor, supervisor_api, make_table):
    """A table's commission changed between two rounds: Andar's theoretical hold is each round's
    exact house edge weighted by its stakes, not the edge of the settings the table has now."""
    from tables.services import table_update

    alice = quick_player("alice", 5000)
    table = make_table(name="Salon")
    before = next(o.rtp for o in odds(table.engine_config()) if o.spot == "andar")
    play(table, dealer, [(alice, "andar", 300)], ["2C", "3D", "KH"], opened_at=at(4))
    table_update(table_id=table.pk, changes={"commission": "0.95"}, actor=supervisor, source="api")
    table.refresh_from_db()
    after = next(o.rtp for o in odds(table.engine_config()) if o.spot == "andar")
    play(table, dealer, [(alice, "andar", 100)], ["2C", "3D", "KH"], opened_at=at(5))
    assert before != after
    expected = percent4(1 - (300 * before + 100 * after) / 400)
    for group, params in (("table", {}), ("day", {}), ("hour", {"to": "2026-12-01T06:00:00Z"})):
        body = get(supervisor_api, group=group, **{"from": "2026-12-01", "to": "2026-12-02", **params}).json()
        andar = next(s for s in body["total"]["spots"] if s["spot"] == "andar")
        assert (andar["stakes"], andar["theoretical_hold"]) == ("400.00", expected), group
    by_hour = get(supervisor_api, group="hour", **{"from": "2026-12-01", "to": "2026-12-02"}).json()["rows"]
    assert [next(s for s in r["spots"] if s["spot"] == "andar")["theoretical_hold"] for r in by_hour] == [
        percent4(1 - before), percent4(1 - after)]


@pytest.mark.parametrize("params, field", [
    ({"from": "2026-12-01", "to": "2026-12-02"}, "group"),
    ({"group": "week", "from": "2026-12-01", "to": "2026-12-02"}, "group"),
    ({"group": "day", "to": "2026-12-02"}, "from"),
    ({"group": "day", "from": "yesterday", "to": "2026-12-02"}, "from"),
    ({"group": "day", "from": "2026-13-01", "to": "2026-12-02"}, "from"),
    ({"group": "day", "from": "２０２６-12-01", "to": "2026-12-02"}, "from"),
    ({"group": "day", "from": "2026-12-01T05:30:00Z", "to": "2026-12-02"}, "from"),
    ({"group": "day", "from": "2026-12-02", "to": "2026-12-01"}, "to"),
    ({"group": "day", "from": "2025-01-01", "to": "2026-12-01"}, "to"),
    ({"group": "hour", "from": "2026-10-01", "to": "2026-12-01"}, "to"),
    ({"group": "day", "from": "2026-12-01", "to": "2026-12-02", "table": "x"}, "table"),
    ({"group": "day", "from": "2026-12-01", "to": "2026-12-02", "dealer": "0"}, "dealer"),
    ({"group": "day", "from": "2026-12-01\x00", "to": "2026-12-02"}, "from"),
])
def test_bad_parameters_are_refused_with_field_errors(supervisor_api, params, field):
    response = get(supervisor_api, **params)
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    assert field in response.json()["fields"], response.json()


def test_a_refusal_stays_json_when_csv_was_asked(supervisor_api):
    response = supervisor_api.get("/api/reports/", {"group": "day", "format": "csv"})
    assert response.status_code == 400
    assert response.json()["code"] and "from" in response.json()["fields"]


@pytest.mark.parametrize("group", ["table", "dealer", "day", "shift"])
def test_whole_days_and_the_same_hours_give_the_same_report(played, supervisor_api, settings, group):
    settings.TIME_ZONE = "America/New_York"
    rebuild_days()
    days = get(supervisor_api, group=group, **{"from": "2026-11-30", "to": "2026-12-02"}).json()
    hours = get(supervisor_api, group=group, **{"from": "2026-11-30T05:00:00Z", "to": "2026-12-02T05:00:00Z"}).json()
    shifted = get(supervisor_api, group=group, **{"from": "2026-12-01T05:00:00Z", "to": "2026-12-02T05:00:00Z"}).json()
    assert days["rows"] == hours["rows"] and days["total"] == hours["total"]
    assert days["total"]["spots"] and shifted["total"]["stakes"] == "150.00"  # the 04:20 UTC round left out


def test_a_report_by_multiplier(dealer, supervisor_api, make_table):
    alice, bob = quick_player("alice", 5000), quick_player("bob", 5000)
    sure = make_table(name="Super", card_count_paytable="play", multipliers={"spots": ["andar", "count_6_10"], "draws": 2, "values": [[7, 1]]})
    plain = make_table(name="Plain")
    # RULES.md example 3's deal: Andar wins on card 7, card count 6-10 wins; at Super both x7.
    play(sure, dealer, [(alice, "andar", 50), (alice, "count_6_10", 25), (bob, "bahar", 25)], ["AC", "QS", "8D", "7C", "JH", "2H", "KD"],
         opened_at=at(4))
    play(plain, dealer, [(bob, "andar", 100)], ["2C", "3D", "KH"], opened_at=at(5))  # Andar wins: 190 back
    body = get(supervisor_api, group="multiplier", **{"from": "2026-12-01", "to": "2026-12-02"}).json()
    rows = {row["key"]: row for row in body["rows"]}
    assert set(rows) == {"1", "7"} and rows["7"]["label"] == "x7"
    assert (rows["7"]["bets"], rows["7"]["stakes"], rows["7"]["payouts"]) == (2, "75.00", "1002.00")  # 50 + 315, 25 + 612
    assert {s["spot"]: s["theoretical_hold"] for s in rows["7"]["spots"]} == {"andar": None, "count_6_10": None}
    assert (rows["1"]["bets"], rows["1"]["stakes"], rows["1"]["payouts"]) == (2, "125.00", "190.00")
    assert body["total"]["rounds"] == 2 and body["total"]["stakes"] == "200.00" and body["total"]["payouts"] == "1192.00"
