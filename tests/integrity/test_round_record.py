"""GET /api/rounds/{id}/record/: who may read a round's record, what it holds after a correction, a
re-settlement and a void after settlement, and the offline script (run as a subprocess) accepting
a fresh record and refusing an edited one."""
from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from audit.models import ChainHead
from integrity import publiclog
from integrity import record as records
from tables.models import RoundEvent, TableChange
from tables.services import round_open
from tests.audit.world import EXAMPLE_2, build
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "verify_round_record.py"


@pytest.fixture
def world(dealer, supervisor, alice, bob):
    return build(dealer=dealer, supervisor=supervisor, alice=alice, bob=bob)


def get(api, round_id: int):
    return api.get(f"/api/rounds/{round_id}/record/")


def verify_offline(record, tmp_path, *, stdin: bool = False) -> subprocess.CompletedProcess:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    args = [sys.executable, str(SCRIPT)] + ([] if stdin else [str(path)])
    return subprocess.run(args, input=path.read_text() if stdin else None, capture_output=True, text=True, timeout=60)


def test_supervisors_and_the_players_who_bet_read_it_and_everyone_else_is_told_there_is_no_such_round(
        world, supervisor_api, alice_api, bob_api, dealer_api, anon_api, make_table, dealer):
    assert get(supervisor_api, world.settled.pk).status_code == 200
    assert get(alice_api, world.settled.pk).status_code == 200  # she bet in it
    assert get(bob_api, world.settled.pk).status_code == 200
    assert get(bob_api, world.voided.pk).status_code == 404  # he did not bet in that one
    assert get(client_for(make_user("carol", "player", chips=100)), world.settled.pk).status_code == 404
    assert get(dealer_api, world.settled.pk).status_code == 404  # dealers read the round's audit instead
    assert get(anon_api, world.settled.pk).status_code == 401
    assert get(supervisor_api, 999999).status_code == 404
    private = make_table(name="Friends", is_private=True)
    hidden = round_open(table_id=private.pk, joker="KS", dealer=dealer)
    assert get(bob_api, hidden.pk).json()["code"] == "not_found"
    assert get(supervisor_api, hidden.pk).status_code == 200


def test_the_record_of_a_corrected_and_resettled_round(world, supervisor_api, tmp_path):
    body = get(supervisor_api, world.settled.pk).json()
    rnd = body["round"]
    assert (rnd["id"], rnd["table"], rnd["joker"], rnd["status"], rnd["winner"], rnd["cards_dealt"]) == (
        world.settled.pk, {"id": world.a.pk, "name": "Audit A"}, "KS", "settled", "andar", 7)
    assert body["settings"] == world.settled.settings
    assert body["dealer"] == "dealer" and body["shift"]["id"] == world.settled.shift_id
    cards = [c["card"] for c in body["cards"]]
    assert cards == [*EXAMPLE_2[:2], "9D", *EXAMPLE_2[3:]]  # the correction replaced the third card
    assert all(c["dealt_at"].endswith("Z") and len(c["dealt_at"]) == 24 for c in body["cards"])  # to the millisecond, UTC
    assert body["corrections"] == [{**body["corrections"][0], "action": "replace", "position": 3, "before": "8D", "after": "9D"}]
    [incident] = body["incidents"]
    assert (incident["kind"], incident["status"], incident["resolution"]) == ("misread", "resolved", "corrected from the camera")
    assert [n["text"] for n in incident["notes"]] == ["card 3 was the 9D", "checked on camera 2"]
    assert {s["spot"]: (s["bets"], Decimal(s["staked"]), Decimal(s["paid"])) for s in body["spots"]} == {
        "andar": (1, Decimal(50), Decimal(95)), "bahar": (1, Decimal(30), Decimal(0)), "count_6_10": (1, Decimal(20), Decimal(80))}
    assert body["settlement"] == {**body["settlement"], "version": 2, "bets": 3}
    assert Decimal(body["settlement"]["staked"]) == 100 and body["void"] is None

    chain = body["chain"]
    events = chain["events"]
    assert [e["action"] for e in events] == (["opened", "betting_closed"] + ["card"] * 7 + [
        "finished", "settled", "incident", "incident_note", "incident_note", "corrected", "resettled", "incident_resolved"])
    assert [e["seq"] for e in events] == sorted(RoundEvent.objects.filter(round=world.settled).values_list("chain_seq", flat=True))
    change = TableChange.objects.get(table=world.a, field="max_bet")
    assert [link["seq"] for link in chain["links"]] == [change.chain_seq]  # the change log between: its link only
    assert set(chain["links"][0]) == {"seq", "prev", "digest", "hash"}
    head = ChainHead.objects.get(key=chain["key"])
    assert chain["head"] == {"seq": head.seq, "hash": head.hash} and chain["gaps"] == []
    assert records.record_check(body) == []

    result = verify_offline(body, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"VERIFIED: round {world.settled.pk} at {chain['key']}: 17 events")
    assert verify_offline(body, tmp_path, stdin=True).returncode == 0


def test_the_record_of_a_round_voided_after_its_settlement(world, supervisor_api, alice_api, tmp_path):
    body = get(alice_api, world.voided.pk).json()
    assert body["round"]["status"] == "voided" and body["settlement"] is None
    assert body["void"] == {**body["void"], "version": 2, "reason": "cards exposed before the deal", "bets": 1, "by": "supervisor"}
    assert Decimal(body["void"]["refunded"]) == 20
    [incident] = body["incidents"]
    assert (incident["status"], incident["resolution"], incident["notes"]) == ("voided", "cards exposed before the deal", [])
    actions = [e["action"] for e in body["chain"]["events"]]
    assert actions[-3:] == ["settled", "incident", "voided"]
    assert verify_offline(body, tmp_path).returncode == 0


def test_the_script_refuses_an_edited_card_an_edited_hash_and_a_missing_link(world, supervisor_api, tmp_path):
    body = get(supervisor_api, world.settled.pk).json()

    card = json.loads(json.dumps(body))
    card["cards"][2]["card"] = "8D"  # the card before the correction
    result = verify_offline(card, tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(f"NOT VERIFIED: round {world.settled.pk}")
    assert "card 3: the record shows 8D" in result.stdout

    hashed = json.loads(json.dumps(body))
    hashed["chain"]["events"][5]["hash"] = "0" * 64
    result = verify_offline(hashed, tmp_path)
    assert result.returncode == 1
    seq = hashed["chain"]["events"][5]["seq"]
    assert f"record seq {seq}: its hash is not the SHA-256 of its prev and its digest" in result.stdout
    assert f"record seq {seq + 1}: its prev is not the hash of record seq {seq}" in result.stdout

    form = json.loads(json.dumps(body))
    form["chain"]["events"][3]["form"] = form["chain"]["events"][3]["form"].replace('"card":"QS"', '"card":"QH"')
    result = verify_offline(form, tmp_path)
    assert result.returncode == 1 and "its digest is not the SHA-256 of its form" in result.stdout

    gap = json.loads(json.dumps(body))
    gap["chain"]["links"] = []  # the change log's record between two of the round's events, left out
    result = verify_offline(gap, tmp_path)
    assert result.returncode == 1 and "are missing" in result.stdout

    assert verify_offline({"format": "something else"}, tmp_path).returncode == 1
    assert subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nothing.json")], capture_output=True,
                          timeout=60).returncode == 2


def test_a_long_stretch_between_two_events_is_declared_as_a_gap_and_still_verifies(world, supervisor_api, monkeypatch, tmp_path):
    monkeypatch.setattr(records, "GAP_LIMIT", 0)
    body = get(supervisor_api, world.settled.pk).json()
    change = TableChange.objects.get(table=world.a, field="max_bet")
    assert body["chain"]["links"] == []
    assert body["chain"]["gaps"] == [{"after": change.chain_seq - 1, "before": change.chain_seq + 1}]
    assert verify_offline(body, tmp_path).returncode == 0


def test_the_record_costs_the_same_few_queries_whatever_the_bets(world, supervisor, django_assert_max_num_queries):
    # the round, its events, the other records' two, the head, cards, incidents, the spots (set-based), the savepoint's two,
    # and the public log's: its latest checkpoint, the round's leaves, their proofs' subtrees, the checkpoint's cosignatures
    publiclog.log_publish()
    with django_assert_max_num_queries(14):
        records.round_record(world.settled)
