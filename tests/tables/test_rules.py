"""GET /api/tables/{id}/rules/: the table's rules as configured, each bet's payout and exact RTP
(RULES.md's reference figures)."""
from decimal import Decimal

import pytest

pytestmark = pytest.mark.django_db


def test_a_default_table_states_its_rules_and_the_reference_rtps(make_table, anon_api):
    table = make_table(min_bet=10, max_bet=500)
    body = anon_api.get(f"/api/tables/{table.pk}/rules/").json()
    assert (body["table"], body["first_card"], body["mode"], body["commission"]) == (table.pk, "andar", "classic", "0.900")
    assert (body["min_bet"], body["max_bet"], body["currency"]) == ("10.00", "500.00", "CHIPS")
    spots = {s["spot"]: s for s in body["spots"]}
    assert list(spots)[:2] == ["andar", "bahar"]
    assert (spots["andar"]["pays"], spots["andar"]["probability"]) == ("0.9:1", "429/833")  # RULES.md's reference figures
    rtp = {spot: Decimal(spots[spot]["rtp"]).quantize(Decimal("0.01")) for spot in ("andar", "bahar")}
    assert rtp == {"andar": Decimal("97.85"), "bahar": Decimal("97.00")}  # RULES.md, to two decimals
    assert spots["bahar"]["pays"] == "1:1"
    assert {"first_andar", "first_bahar", "first_three"} <= set(spots)


def test_a_no_commission_table_offers_card_count_only_beside_the_main_bets(make_table, anon_api):
    table = make_table(mode="no_commission", side_bets=["card_count", "first_three"])
    spots = [s["spot"] for s in anon_api.get(f"/api/tables/{table.pk}/rules/").json()["spots"]]
    assert spots[:2] == ["andar", "bahar"] and "first_three" not in spots and all(s.startswith("count_") for s in spots[2:])


def test_an_unknown_table_is_404(anon_api):
    assert anon_api.get("/api/tables/999999/rules/").status_code == 404
