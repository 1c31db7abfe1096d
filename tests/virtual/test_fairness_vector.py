"""The known vector of tests/js/fairness.test.mjs (tests/js/fairness_vector.json), made here by the
server's own functions from a fixed seed: the browser's check and the server's cannot drift apart.
`WRITE_FAIRNESS_VECTOR=1 pytest tests/virtual/test_fairness_vector.py` writes the file again."""
import json
import os
import random
from pathlib import Path

from engine import Deal, TableConfig
from virtual.dealer import commitment, shuffled_pack, verify

VECTOR = Path(__file__).resolve().parents[1] / "js" / "fairness_vector.json"
SEED, SALT = 2026, "5eed0f00dcafe0000000000000002026"


def vector() -> dict:
    pack = shuffled_pack(random.Random(SEED))
    text = ",".join(pack)
    deal = Deal.start(TableConfig(), pack[0])
    cards = []
    for card in pack[1:]:
        deal = deal.deal(card)
        cards.append(card)
        if deal.finished:
            break
    return {"seed": SEED, "commitment": commitment(SALT, text), "salt": SALT, "pack": text, "joker": pack[0], "cards": cards}


def test_the_committed_vector_is_the_servers():
    if os.environ.get("WRITE_FAIRNESS_VECTOR") == "1":
        VECTOR.write_text(json.dumps(vector(), indent=2) + "\n")
    assert json.loads(VECTOR.read_text()) == vector()


def test_the_server_verifies_the_vector():
    v = vector()
    assert verify(commitment_hex=v["commitment"], salt=v["salt"], pack=v["pack"], joker=v["joker"], cards=v["cards"])
    assert not verify(commitment_hex=v["commitment"], salt=v["salt"] + "0", pack=v["pack"], joker=v["joker"], cards=v["cards"])

