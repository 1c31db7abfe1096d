"""The tables API: token auth, who may read and write tables, validation with field errors (never a
500), and the exact odds of RULES.md's reference figures."""
import pytest

from tables.models import Table

pytestmark = pytest.mark.django_db


NEW_TABLE = {"name": "Salon Privé", "min_bet": "10", "max_bet": "500"}


# --- token auth -----------------------------------------------------------------------------------

def test_token_for_good_credentials_authenticates_later_requests(dealer, anon_api):
    response = anon_api.post("/api/auth/token/", {"username": "dealer", "password": "pw-dealer"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    anon_api.credentials(HTTP_AUTHORIZATION="Token " + token)
    me = anon_api.get("/api/me/")
    assert me.status_code == 200, me.content


@pytest.mark.parametrize("password", ["wrong", "", "PW-DEALER"])
def test_token_for_bad_credentials_is_a_400_with_field_errors(dealer, anon_api, password):
    response = anon_api.post("/api/auth/token/", {"username": "dealer", "password": password}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] in {"bad_credentials", "invalid"}
    assert "password" in body["fields"]
    assert "token" not in body


def test_token_for_unknown_user_is_a_400(anon_api, db):
    response = anon_api.post("/api/auth/token/", {"username": "nobody", "password": "x"}, format="json")
    assert response.status_code == 400
    assert response.json()["fields"]


def test_token_without_fields_names_each_missing_field(anon_api, db):
    response = anon_api.post("/api/auth/token/", {}, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"username", "password"}


def test_a_bad_token_is_a_401(anon_api, table):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert anon_api.get("/api/me/").status_code == 401


# --- reading and writing tables -------------------------------------------------------------------

def test_anyone_may_list_and_read_tables(anon_api, table):
    listing = anon_api.get("/api/tables/")
    assert listing.status_code == 200
    assert [t["id"] for t in listing.json()] == [table.pk]
    detail = anon_api.get(f"/api/tables/{table.pk}/").json()
    assert detail["first_card"] == "andar" and detail["mode"] == "classic"
    assert detail["commission"] == "0.900" and detail["min_bet"] == "10.00"


def test_supervisor_creates_a_table_with_the_rulebook_defaults(supervisor_api):
    response = supervisor_api.post("/api/tables/", NEW_TABLE, format="json")
    assert response.status_code == 201, response.content
    table = Table.objects.get(pk=response.json()["id"])
    assert (table.first_card, table.mode, table.card_count_paytable) == ("andar", "classic", "live")
    assert sorted(table.side_bets) == ["card_count", "first_andar", "first_bahar", "first_three"]
    assert table.allow_both_sides is False


def test_supervisor_patches_a_table(supervisor_api, table):
    response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"first_card": "joker_colour", "betting_seconds": 5},
                                    format="json")
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    assert (table.first_card, table.betting_seconds) == ("joker_colour", 5)


@pytest.mark.parametrize("persona", ["dealer_api", "alice_api"])
def test_dealers_and_players_may_not_write_tables(request, persona, table):
    client = request.getfixturevalue(persona)
    assert client.post("/api/tables/", NEW_TABLE, format="json").status_code == 403
    assert client.patch(f"/api/tables/{table.pk}/", {"betting_seconds": 1}, format="json").status_code == 403
    table.refresh_from_db()
    assert table.betting_seconds == 15
    assert Table.objects.count() == 1


def test_anonymous_may_not_write_tables(anon_api, table):
    assert anon_api.post("/api/tables/", NEW_TABLE, format="json").status_code == 401
    assert anon_api.patch(f"/api/tables/{table.pk}/", {"betting_seconds": 1}, format="json").status_code == 401
    assert Table.objects.count() == 1


def test_tables_cannot_be_deleted(supervisor_api, table):
    assert supervisor_api.delete(f"/api/tables/{table.pk}/").status_code == 405
    assert Table.objects.filter(pk=table.pk).exists()


# --- validation: 400 with the field named, never a 500 -------------------------------------------

@pytest.mark.parametrize(
    "change, field",
    [
        ({"commission": "0"}, "commission"),
        ({"commission": "1.5"}, "commission"),
        ({"commission": "-0.9"}, "commission"),
        ({"commission": "abc"}, "commission"),
        ({"min_bet": "600", "max_bet": "500"}, "min_bet"),
        ({"min_bet": "0"}, "min_bet"),
        ({"side_bets": ["first_four"]}, "side_bets"),
        ({"side_bets": "first_andar"}, "side_bets"),
        ({"min_bet": "10.50"}, "min_bet"),
        ({"chip_unit": "0.01", "min_bet": "0.10", "max_bet": "5.005"}, "max_bet"),
        ({"betting_seconds": 0}, "betting_seconds"),
        ({"betting_seconds": -3}, "betting_seconds"),
        ({"first_card": "middle"}, "first_card"),
        ({"mode": "turbo"}, "mode"),
        ({"card_count_paytable": "vegas"}, "card_count_paytable"),
        ({"chip_unit": "0"}, "chip_unit"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_settings_are_refused_with_field_errors(supervisor_api, change, field):
    response = supervisor_api.post("/api/tables/", {**NEW_TABLE, **change}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert field in body["fields"], body
    assert body["message"]
    assert not Table.objects.exists()


def test_patch_is_validated_against_the_stored_settings(supervisor_api, table):
    response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"min_bet": "600"}, format="json")
    assert response.status_code == 400
    assert "min_bet" in response.json()["fields"]
    table.refresh_from_db()
    assert str(table.min_bet) == "10.00"


def test_duplicate_table_name_is_a_400(supervisor_api, table):
    response = supervisor_api.post("/api/tables/", {**NEW_TABLE, "name": table.name}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()["fields"]


@pytest.mark.parametrize("body, content_type, status", [
    ("{not json", "application/json", 400),
    ('["a", "list"]', "application/json", 400),
    ("name=x&betting_seconds=soon", "application/x-www-form-urlencoded", 415),  # JSON only
])
def test_malformed_bodies_are_refused(supervisor_api, body, content_type, status):
    response = supervisor_api.generic("POST", "/api/tables/", body, content_type=content_type)
    assert response.status_code == status, response.content
    assert set(response.json()) >= {"code", "message", "fields"}


def test_unknown_table_is_a_404(anon_api, db):
    for url in ("/api/tables/999999/", "/api/tables/999999/odds/"):
        response = anon_api.get(url)
        assert response.status_code == 404
        assert response.json()["code"]


# --- exact odds ----------------------------------------------------------------------------------

def _odds(client, table):
    response = client.get(f"/api/tables/{table.pk}/odds/")
    assert response.status_code == 200
    return {row["spot"]: row for row in response.json()}


def test_default_table_odds_match_the_reference_figures(anon_api, table):
    odds = _odds(anon_api, table)
    assert odds["andar"]["rtp"] == "97.8511"
    assert odds["andar"]["probability"] == "429/833"
    assert odds["andar"]["payout"] == "0.9"
    assert odds["bahar"]["rtp"] == "96.9988"
    assert odds["bahar"]["probability"] == "404/833"
    assert odds["first_andar"]["probability"] == "1/17"
    assert {"first_three", "first_bahar", "count_46_49"} <= set(odds)


def test_no_commission_table_odds(anon_api, make_table):
    odds = _odds(anon_api, make_table(mode="no_commission"))
    assert odds["andar"]["rtp"] == "98.5894"
    assert odds["bahar"]["rtp"] == "96.9988"
    assert "first_three" not in odds
    assert not {"first_andar", "first_bahar"} & set(odds)
    assert "count_1_5" in odds


def test_odds_follow_a_patched_commission(supervisor_api, anon_api, table):
    supervisor_api.patch(f"/api/tables/{table.pk}/", {"commission": "0.95"}, format="json")
    odds = _odds(anon_api, table)
    assert odds["andar"]["payout"] == "0.95"
    assert odds["andar"]["rtp"] != "97.8511"
