"""The public round log: every settled, re-settled and voided round in it; its stored subtrees, roots
and proofs checked by a verifier written from RFC 9162 (tests/integrity/rfc9162.py, which shares no
code with the studio's); its checkpoints signed and verified with the published key; witnesses'
cosignatures kept and served; bad arguments refused; verify_log naming an edit behind the studio's
back."""
from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from audit import merkle
from incidents.services import card_replace, incident_raise, incident_void
from integrity import publiclog
from integrity.models import LogEntry
from studio.signednote import COSIGNATURE_V1, SigningKey, Verifier, key_id, split, verify
from tables.models import Round
from tests.bets.flow import close, deal, open_round, placed

from . import rfc9162

pytestmark = pytest.mark.django_db


def b64(text: str) -> bytes:
    return base64.b64decode(text)


def play(dealer_api, table, players, cards=("2C", "KD"), capture=None) -> int:
    round_id = open_round(dealer_api, table)
    for api, spot, amount in players:
        placed(api, round_id, spot, amount)
    close(dealer_api, round_id)
    with capture(execute=True):
        deal(dealer_api, round_id, list(cards))
    return round_id


def verify_log() -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_log", stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def checkpoint(api) -> tuple[int, bytes, str]:
    response = api.get("/api/log/checkpoint/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    note = response.content.decode()
    key = Verifier.parse(api.get("/api/log/key/").content.decode())
    body = verify(note, key)
    origin, size, root = body.rstrip("\n").split("\n")
    assert origin == "tests.andar-bahar.studio/log"
    return int(size), b64(root), note


@pytest.fixture
def logged(make_table, dealer_api, supervisor, supervisor_api, alice_api, bob_api, django_capture_on_commit_callbacks):
    """Three rounds settled, one of them corrected (settled again) and one voided afterwards."""
    table = make_table()
    rounds = [play(dealer_api, table, [(alice_api, "andar", 50), (bob_api, "bahar", 30)], capture=django_capture_on_commit_callbacks)
              for _ in range(3)]
    incident = incident_raise(round_id=rounds[1], actor=supervisor, kind="settlement")
    with django_capture_on_commit_callbacks(execute=True):
        card_replace(round_id=rounds[1], position=1, card="3C", actor=supervisor)
    other = incident_raise(round_id=rounds[2], actor=supervisor, kind="procedure")
    incident_void(incident_id=other.pk, actor=supervisor, reason="shoe fault")
    assert incident
    return rounds


def test_every_final_state_of_a_round_is_a_leaf_and_the_tree_is_the_rfcs(logged, anon_api):
    assert publiclog.log_publish() is not None
    assert publiclog.log_publish() is None  # an unchanged tree is not signed again
    leaves = [bytes(leaf) for leaf in LogEntry.objects.order_by("index").values_list("leaf", flat=True)]
    outcomes = [json.loads(leaf) for leaf in leaves]
    assert [(o["round"], o["status"], o["version"]) for o in outcomes] == [
        (logged[0], "settled", 1), (logged[1], "settled", 1), (logged[2], "settled", 1), (logged[1], "settled", 2),
        (logged[2], "voided", 2)]
    first = outcomes[0]
    assert first["cards"] == ["2C", "KD"] and first["winner"] == "bahar" and first["joker"] == "KS"
    assert first["spots"] == {"andar": {"bets": 1, "staked": "50.00", "paid": "0.00"}, "bahar": {"bets": 1, "staked": "30.00", "paid": "60.00"}}
    assert outcomes[4]["winner"] is None and "voided_at" in outcomes[4] and len(first["chain"]) == 64
    assert all(leaf == json.dumps(json.loads(leaf), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() for leaf in leaves)

    size, root, _ = checkpoint(anon_api)
    assert size == 5 and root == rfc9162.root_from_leaves(leaves)
    for index in range(size):
        entry = anon_api.get(f"/api/log/entries/{index}/").json()
        assert b64(entry["leaf"]) == leaves[index] and entry["round"] == outcomes[index]["round"]
        path = [b64(h) for h in anon_api.get("/api/log/proof/inclusion/", {"index": index, "size": size}).json()["hashes"]]
        assert path == rfc9162.inclusion_path(leaves, index)
        assert rfc9162.verify_inclusion(rfc9162.leaf_hash(leaves[index]), index, size, path, root)
    assert code_of(verify_log()) == 0


def code_of(result):
    return result[0]


def test_proofs_between_checkpoints_as_the_tree_grows(make_table, dealer_api, alice_api, anon_api, django_capture_on_commit_callbacks):
    table = make_table()
    roots = {}
    rng = random.Random(41)
    for _ in range(9):
        for _ in range(rng.randint(1, 3)):
            play(dealer_api, table, [(alice_api, "andar", 10)], capture=django_capture_on_commit_callbacks)
        publiclog.log_publish()
        size, root, _ = checkpoint(anon_api)
        roots[size] = root
    leaves = [bytes(leaf) for leaf in LogEntry.objects.order_by("index").values_list("leaf", flat=True)]
    sizes = sorted(roots)
    for old in sizes:
        for new in sizes:
            if old > new:
                continue
            proof = [b64(h) for h in anon_api.get("/api/log/proof/consistency/", {"from": old, "to": new}).json()["hashes"]]
            assert proof == rfc9162.consistency_proof(leaves[:new], old)
            assert rfc9162.verify_consistency(old, new, roots[old], roots[new], proof), (old, new)
    # Every proof the store gives for every size reads only subtrees it stored.
    for n in range(1, len(leaves) + 1):
        perfect = merkle.wanted(lambda p, n=n: merkle.consistency_path(max(1, n // 2), n, p))
        assert all(1 << level <= n for level, _ in perfect)


@pytest.mark.parametrize("path, params, field", [
    ("/api/log/proof/inclusion/", {"index": "0", "size": "99"}, "size"),
    ("/api/log/proof/inclusion/", {"index": "5", "size": "3"}, "index"),
    ("/api/log/proof/inclusion/", {"index": "-1", "size": "3"}, "index"),
    ("/api/log/proof/inclusion/", {"index": "x", "size": "3"}, "index"),
    ("/api/log/proof/inclusion/", {"size": "3"}, "index"),
    ("/api/log/proof/consistency/", {"from": "0", "to": "3"}, "from"),
    ("/api/log/proof/consistency/", {"from": "4", "to": "3"}, "from"),
    ("/api/log/proof/consistency/", {"from": "1", "to": "99999999999999999999"}, "to"),
])
def test_a_bad_argument_is_a_400_naming_it(logged, anon_api, path, params, field):
    publiclog.log_publish()
    response = anon_api.get(path, params)
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]


def test_before_any_checkpoint_and_beyond_the_log(anon_api, db):
    assert anon_api.get("/api/log/checkpoint/").status_code == 409
    assert anon_api.get("/api/log/entries/0/").status_code == 404
    assert anon_api.get("/api/log/key/").status_code == 200


def test_a_private_tables_leaf_is_only_its_hash_to_outsiders(make_table, dealer_api, alice_api, anon_api, supervisor_api,
                                                            django_capture_on_commit_callbacks):
    table = make_table(is_private=True)  # a friends' table: its rounds are run by a supervisor here
    play(supervisor_api, table, [], capture=django_capture_on_commit_callbacks)
    publiclog.log_publish()
    hidden = anon_api.get("/api/log/entries/0/").json()
    shown = supervisor_api.get("/api/log/entries/0/").json()
    assert hidden["leaf"] is None and hidden["round"] is None and hidden["leaf_hash"] == shown["leaf_hash"]
    assert base64.b64encode(merkle.leaf_hash(b64(shown["leaf"]))).decode() == shown["leaf_hash"]


def test_a_witness_cosignature_is_checked_kept_and_served(logged, anon_api, settings):
    witness = SigningKey.generate("witness.example")
    public = witness.public
    verifier = f"witness.example+{key_id('witness.example', COSIGNATURE_V1, public).hex()}+{base64.b64encode(bytes([COSIGNATURE_V1]) + public).decode()}"
    settings.LOG_WITNESSES = [verifier]
    publiclog.log_publish()
    _, _, note = checkpoint(anon_api)
    body, _ = split(note)
    when = 1_765_000_000
    signature = witness.private.sign(f"cosignature/v1\ntime {when}\n{body}".encode())
    line = f"\u2014 witness.example {base64.b64encode(key_id('witness.example', COSIGNATURE_V1, public) + when.to_bytes(8, 'big') + signature).decode()}"
    forged = line[:-8] + ("A" * 8 if not line.endswith("A" * 8) else "B" * 8)
    assert anon_api.post("/api/log/cosignatures/", {"checkpoint": note, "cosignature": forged}, format="json").status_code == 400
    assert anon_api.post("/api/log/cosignatures/", {"checkpoint": note.replace("\n5\n", "\n6\n"), "cosignature": line},
                         format="json").status_code in (400, 404)
    response = anon_api.post("/api/log/cosignatures/", {"checkpoint": note, "cosignature": line}, format="json")
    assert response.status_code == 201, response.content
    served = anon_api.get("/api/log/checkpoint/").content.decode()
    assert served == note + line + "\n"
    verify(served, Verifier.parse(anon_api.get("/api/log/key/").content.decode()))  # the studio's signature still verifies


@pytest.mark.parametrize("edit, names", [
    ("UPDATE tables_dealtcard SET card = '9H' WHERE round_id = %(first)s AND position = 1", "first"),
    ("UPDATE bets_bet SET payout = payout + 100 WHERE round_id = %(second)s AND payout > 0", "second"),
    ("UPDATE tables_round SET status = 'settled' WHERE id = %(third)s", "third"),
])
def test_verify_log_names_the_leaf_and_round_of_an_edit_behind_the_studios_back(logged, edit, names):
    publiclog.log_publish()
    assert verify_log()[0] == 0
    ids = {"first": logged[0], "second": logged[1], "third": logged[2]}
    with connection.cursor() as cur:
        cur.execute(edit, ids)
    code, output = verify_log()
    assert code == 1
    index = {"first": 0, "second": 3, "third": 4}[names]  # each round's newest leaf
    assert f"leaf {index} (round {ids[names]})" in output, output


def test_the_round_record_lists_its_leaves_with_proofs(logged, supervisor_api):
    publiclog.log_publish()
    record = supervisor_api.get(f"/api/rounds/{logged[1]}/record/").json()
    size, root, _ = checkpoint(supervisor_api)
    leaves = [bytes(leaf) for leaf in LogEntry.objects.order_by("index").values_list("leaf", flat=True)]
    assert [entry["index"] for entry in record["log"]["entries"]] == [1, 3]
    assert [b64(entry["leaf"]) for entry in record["log"]["entries"]] == [leaves[1], leaves[3]]
    assert record["log"]["checkpoint"].startswith("tests.andar-bahar.studio/log\n5\n")
    for entry in record["log"]["entries"]:
        leaf = b64(entry["leaf"])
        assert rfc9162.verify_inclusion(rfc9162.leaf_hash(leaf), entry["index"], size, [b64(h) for h in entry["proof"]], root)
    assert Round.objects.get(pk=logged[1]).settlement_version == 2


def test_the_offline_script_checks_the_records_leaves_and_the_checkpoint_signature(logged, supervisor_api, anon_api, tmp_path):
    publiclog.log_publish()
    record = supervisor_api.get(f"/api/rounds/{logged[1]}/record/").json()
    key = anon_api.get("/api/log/key/").content.decode().strip()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    script = Path(__file__).resolve().parents[2] / "scripts" / "verify_round_record.py"
    result = subprocess.run([sys.executable, str(script), "--key", key, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "in the public log (tree of 5), checkpoint signed by tests.andar-bahar.studio/log" in result.stdout
    other = SigningKey.generate("tests.andar-bahar.studio/log").verifier()  # the same name, another key
    assert subprocess.run([sys.executable, str(script), "--key", other, str(path)], capture_output=True, text=True).returncode == 1
    entry = record["log"]["entries"][0]
    forged = json.loads(base64.b64decode(entry["leaf"]))
    forged["spots"]["bahar"]["paid"] = "0.00"
    entry["leaf"] = base64.b64encode(json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()).decode()
    path.write_text(json.dumps(record))
    result = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True)
    assert result.returncode == 1 and "inclusion proof does not lead to the checkpoint's root" in result.stdout


@pytest.mark.django_db(transaction=True)
def test_a_witness_cosigns_the_studios_growing_log(live_server, settings, tmp_path, make_table, dealer_api, alice_api, anon_api):
    """scripts/witness.py, as an operator runs it, against the studio over HTTP: it pins the
    studio's key, checks each new checkpoint's consistency with the last it accepted, and hands in
    its cosignature, which the studio then serves."""
    witness = [sys.executable, str(Path(__file__).resolve().parents[2] / "scripts" / "witness.py")]
    made = subprocess.run([*witness, "keygen", "witness.example", str(tmp_path / "witness.key")], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    settings.LOG_WITNESSES = [made.stdout.strip().splitlines()[-1]]
    table = make_table()
    studio_key = anon_api.get("/api/log/key/").content.decode().strip()
    once = [*witness, "once", "--url", live_server.url, "--log-key", studio_key, "--key", str(tmp_path / "witness.key"),
            "--state", str(tmp_path / "state.json")]
    for rounds, size in ((2, 2), (3, 5)):
        for _ in range(rounds):
            round_id = open_round(dealer_api, table)
            placed(alice_api, round_id, "andar", 10)
            close(dealer_api, round_id)
            deal(dealer_api, round_id, ["2C", "KD"])
        publiclog.log_publish()
        result = subprocess.run(once, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"size {size}" in result.stdout
        served = anon_api.get("/api/log/checkpoint/").content.decode()
        assert "\u2014 witness.example " in served and f"\n{size}\n" in served
