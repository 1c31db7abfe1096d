"""A table with random multipliers through the API: the setting refused with field errors and the
table unchanged, the seed's commitment published at the opening and the draw with its seed at the
close (the round, the stream's events, the round record), no bet after the draw, a multiplied win
paid and re-derived (verify_audit, the offline record check), a correction that keeps the draw, a
void that refunds, and an edited draw caught."""
from __future__ import annotations

import hashlib
from decimal import Decimal as D
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from audit import offline
from bets.models import Bet
from engine import TableConfig
from engine import integrity as ig
from engine.multipliers import Multipliers, draw
from incidents.services import incident_raise
from integrity.models import Monitor
from tables.models import Round, RoundEvent, Table
from tests.bets.flow import EXAMPLE_2_CARDS, balance, bet, close, deal, open_round, placed

pytestmark = pytest.mark.django_db

# Every spot of the setting drawn, with one value: a round's multipliers are known before its seed.
SURE = {"spots": ["andar", "count_6_10"], "draws": 2, "values": [[7, 1]]}
SUPER = {"spots": ["count_1_5", "count_6_10", "count_11_15", "count_16_20"], "draws": 2, "values": [[2, 6], [3, 3], [10, 1]]}


def verify_audit() -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_audit", stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def test_a_supervisor_sets_multipliers_and_a_bad_setting_changes_nothing(supervisor_api, table):
    url = f"/api/tables/{table.pk}/"
    for bad, says in [
        ({"spots": ["count_1_5"], "draws": 2, "values": [[2, 1]]}, "draws must be from 1 to 1"),
        ({"spots": ["count_1_7"], "draws": 1, "values": [[2, 1]]}, "not offered"),
        ({"spots": ["andar"], "draws": 1, "values": [[1, 1]]}, "from 2 to 1000"),
        ("x10", "must be null or an object"),
    ]:
        response = supervisor_api.patch(url, {"multipliers": bad}, format="json")
        assert response.status_code == 400, response.content
        assert says in " ".join(response.json()["fields"]["multipliers"])
        assert Table.objects.get(pk=table.pk).multipliers is None
    response = supervisor_api.patch(url, {"multipliers": SUPER}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["multipliers"] == SUPER == Table.objects.get(pk=table.pk).multipliers
    # A side bet taken away under a multiplied spot: refused, the table as it was.
    response = supervisor_api.patch(url, {"side_bets": ["first_andar"]}, format="json")
    assert response.status_code == 400 and "multipliers" in response.json()["fields"]
    rules = supervisor_api.get(f"/api/tables/{table.pk}/rules/").json()
    assert rules["multipliers"]["draws"] == 2 and rules["multipliers"]["expected"] == "31/10"  # (2 x 6 + 3 x 3 + 10 x 1) / 10
    assert [v["chance"] for v in rules["multipliers"]["values"]] == ["3/5", "3/10", "1/10"]
    spots = {s["spot"]: s for s in rules["spots"]}
    assert spots["count_1_5"]["rtp_without_multipliers"] is not None and spots["andar"]["rtp_without_multipliers"] is None
    odds = {o["spot"]: o for o in supervisor_api.get(f"/api/tables/{table.pk}/odds/").json()}
    assert odds["count_1_5"]["rtp"] == spots["count_1_5"]["rtp"]
    assert any(o["rtp_at_least_100"] for o in odds.values()) is (max(D(o["rtp"]) for o in odds.values()) >= 100)


def test_the_commitment_opens_the_round_and_the_draw_closes_betting(make_table, dealer_api, alice_api, supervisor_api):
    table = make_table(multipliers=SUPER)
    round_id = open_round(dealer_api, table)
    shown = alice_api.get(f"/api/rounds/{round_id}/").json()
    commit = shown["multipliers_commit"]
    assert len(commit) == 64 and shown["multipliers"] is None and shown["multipliers_seed"] is None
    assert RoundEvent.objects.get(round_id=round_id, action="opened").data["multipliers_commit"] == commit
    placed(alice_api, round_id, "count_6_10", 20)

    close(dealer_api, round_id)
    shown = alice_api.get(f"/api/rounds/{round_id}/").json()
    seed = shown["multipliers_seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commit
    setting = TableConfig.from_dict({"multipliers": SUPER}).multipliers
    assert shown["multipliers"] == [{"spot": s, "multiplier": m} for s, m in draw(setting, bytes.fromhex(seed))]
    closed = RoundEvent.objects.get(round_id=round_id, action="betting_closed").data
    assert (closed["multipliers"], closed["multipliers_seed"]) == (shown["multipliers"], seed)
    response = bet(alice_api, round_id, "count_1_5", 10)  # no bet after the draw
    assert response.status_code == 409 and response.json()["code"] == "betting_closed"
    assert Bet.objects.filter(round_id=round_id).count() == 1
    # Each round draws from a seed of its own.
    deal(dealer_api, round_id, ["KD"])
    other = open_round(dealer_api, table)
    assert alice_api.get(f"/api/rounds/{other}/").json()["multipliers_commit"] != commit


def test_a_multiplied_win_is_paid_rounded_once_and_verifies(make_table, dealer_api, supervisor_api, alice, alice_api, bob, bob_api,
                                                           django_capture_on_commit_callbacks, tmp_path):
    table = make_table(card_count_paytable="play", multipliers=SURE)  # RULES.md example 3, both its spots x7
    round_id = open_round(dealer_api, table)
    andar = placed(alice_api, round_id, "andar", 50)["id"]
    count = placed(alice_api, round_id, "count_6_10", 25)["id"]
    bahar = placed(bob_api, round_id, "bahar", 25)["id"]
    close(dealer_api, round_id)
    with django_capture_on_commit_callbacks(execute=True):
        deal(dealer_api, round_id, EXAMPLE_2_CARDS)

    paid = {b.pk: b.payout for b in Bet.objects.filter(round_id=round_id)}
    assert paid == {andar: D(50 + 315), count: D(25 + 612), bahar: D(0)}  # 50 x 0.9 x 7 = 315; 25 x 3.5 x 7 = 612.5 -> 612
    assert balance(alice) == D(1000) + 315 + 612 and balance(bob) == D(975)
    history = alice_api.get("/api/me/rounds/").json()["results"][0]
    assert history["multipliers"] == [{"spot": "andar", "multiplier": 7}, {"spot": "count_6_10", "multiplier": 7}] or \
        history["multipliers"] == [{"spot": "count_6_10", "multiplier": 7}, {"spot": "andar", "multiplier": 7}]
    assert {b["spot"]: b.get("multiplier") for b in history["bets"]} == {"andar": 7, "count_6_10": 7}

    code, output = verify_audit()
    assert code == 0, output
    monitor = Monitor.objects.get(kind="table", table=table)  # the draw watched at its table
    assert (monitor.state["draw_rounds"], monitor.state["multiplier_spot"]) == (1, [0, 0])  # both spots always drawn: no trial
    overview = supervisor_api.get("/api/integrity/").json()
    checks = {c["check"] for t in overview["tables"] if t["table"] == table.pk for c in t["checks"]}
    assert "multiplier_spot" not in checks and "first_side_high" in checks  # a certain event is not tested
    record = supervisor_api.get(f"/api/rounds/{round_id}/record/").json()
    assert record["round"]["multipliers"] == history["multipliers"]
    assert offline.check(record) == []
    forged = {**record, "round": {**record["round"], "multipliers": [{"spot": "andar", "multiplier": 70}]}}
    assert any("its events drew" in problem for problem in offline.check(forged))


def test_the_integrity_panel_watches_a_super_tables_draws(make_table, dealer_api, supervisor_api, django_capture_on_commit_callbacks):
    table = make_table(multipliers=SUPER)
    for joker in ("KS", "QH"):
        round_id = open_round(dealer_api, table, joker=joker)
        close(dealer_api, round_id)
        with django_capture_on_commit_callbacks(execute=True):
            deal(dealer_api, round_id, [joker[0] + "D"])
    state = Monitor.objects.get(kind="table", table=table).state
    assert state["draw_rounds"] == 2 and len(state["multiplier_spot"]) == 4
    rows = {c["check"]: c for t in supervisor_api.get("/api/integrity/").json()["tables"] if t["table"] == table.pk for c in t["checks"]}
    assert rows["multiplier_spot"]["status"] == rows["multiplier_top"]["status"] == "ok"
    # The table's own draw checks, with the engine's thresholds for this setting.
    own = {check.name: check.threshold for check in ig.draw_checks(Multipliers.from_value(SUPER))}
    assert set(own) == {"multiplier_spot", "multiplier_top"}
    assert {name: rows[name]["threshold"] for name in own} == own


def test_a_draw_edited_behind_the_studios_back_is_named(make_table, dealer_api, alice_api, django_capture_on_commit_callbacks):
    table = make_table(multipliers=SURE)
    round_id = open_round(dealer_api, table)
    placed(alice_api, round_id, "andar", 50)
    close(dealer_api, round_id)
    with django_capture_on_commit_callbacks(execute=True):
        deal(dealer_api, round_id, ["KD"])
    with connection.cursor() as cur:
        cur.execute("UPDATE tables_round SET multipliers = %s WHERE id = %s",
                    ['[{"spot": "andar", "multiplier": 70}, {"spot": "count_6_10", "multiplier": 7}]', round_id])
    code, output = verify_audit()
    assert code != 0
    assert f"Round {round_id}" in output or f"round {round_id}" in output.lower()
    assert "its events drew" in output


def test_a_correction_keeps_the_draw_and_a_void_refunds(make_table, dealer_api, supervisor, supervisor_api, alice, alice_api,
                                                       django_capture_on_commit_callbacks):
    table = make_table(multipliers=SURE)
    round_id = open_round(dealer_api, table)
    placed(alice_api, round_id, "andar", 50)
    close(dealer_api, round_id)
    drawn = Round.objects.get(pk=round_id).multipliers
    with django_capture_on_commit_callbacks(execute=True):
        deal(dealer_api, round_id, ["2D", "3C", "KC"])  # Andar wins on card 3: 50 x 0.9 x 7
    assert balance(alice) == D(1000) + 315
    incident = incident_raise(round_id=round_id, kind="settlement", notes="card 2 was the 4C", actor=supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = supervisor_api.post(f"/api/rounds/{round_id}/corrections/replace/", {"position": 2, "card": "4C"}, format="json")
    assert response.status_code == 200, response.content
    rnd = Round.objects.get(pk=round_id)
    assert (rnd.status, rnd.settlement_version, rnd.multipliers) == ("settled", 2, drawn)
    assert balance(alice) == D(1000) + 315  # settled again with the round's own draw

    response = supervisor_api.post(f"/api/incidents/{incident.pk}/void/", {"reason": "shoe fault"}, format="json")
    assert response.status_code == 200, response.content
    assert balance(alice) == D(1000)
    code, output = verify_audit()
    assert code == 0, output
