"""No input is a server error, and nothing changes on a refusal: bodies nested too deeply, empty
and odd lists, query parameters that are not what they look like (a superscript digit, a NUL byte),
ids longer than a BIGINT, paths that name nothing. Each is a 400 (or a JSON 404) with the error
body {"code", "message", "fields"}."""
import pytest

from bets.models import Bet, LedgerEntry
from tables.models import Incident, Match, Round, Table
from tables.services import round_open
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DEEP = "[" * 30_000 + "]" * 30_000  # far deeper than Python's decoder can follow, within the body limit (64 KiB)


def error(response, status=400) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) >= {"code", "message", "fields"}, body
    return body


def post_raw(client, url, text):
    return client.generic("POST", url, text.encode(), content_type="application/json")


def test_a_body_nested_30000_deep_is_a_parse_error_everywhere(anon_api, alice_api, supervisor_api, dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for client, url in [(anon_api, "/api/auth/token/"), (alice_api, f"/api/rounds/{rnd.pk}/bets/"),
                        (alice_api, "/api/matches/"), (alice_api, "/api/matches/join/"), (supervisor_api, "/api/tables/"),
                        (supervisor_api, f"/api/rounds/{rnd.pk}/incidents/"), (dealer_client := client_for(dealer), f"/api/rounds/{rnd.pk}/cards/")]:
        body = error(post_raw(client, url, DEEP))
        assert body["code"] == "parse_error", (url, body)
    assert error(dealer_client.generic("PATCH", f"/api/tables/{table.pk}/", DEEP.encode(), content_type="application/json"),
                 403)["code"] == "permission_denied"  # a dealer may not: refused before the body is read
    assert error(supervisor_api.generic("PATCH", f"/api/tables/{table.pk}/", DEEP.encode(),
                                        content_type="application/json"))["code"] == "parse_error"
    assert not Bet.objects.exists() and not Incident.objects.exists() and Table.objects.count() == 1


def test_a_deep_body_on_the_bet_fast_path_gets_the_same_parse_error(alice, dealer, table):
    """bets.fast reads the body itself: a body too deep for it goes to DRF, whose parser refuses it."""
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    body = error(post_raw(client_for(alice), f"/api/rounds/{rnd.pk}/bets/", '{"spot": "andar", "amount": ' + DEEP + "}"))
    assert body["code"] == "parse_error"
    assert not Bet.objects.exists()


def test_an_empty_list_of_match_bets_is_a_field_error(alice_api, bob_api):
    created = alice_api.post("/api/matches/", {}, format="json").json()
    bob_api.post("/api/matches/join/", {"code": created["code"]}, format="json")
    for body, field in [({"bets": []}, "bets"), ({"bets": [{"spot": "andar", "amount": "1e1"}]}, "bets.0.amount"),
                        ({"bets": [{"spot": "andar", "amount": "10"}, {"amount": "10"}]}, "bets.1.spot"), ({}, "bets"),
                        ({"bets": "andar"}, "bets"), ({"bets": [[]]}, "bets.0")]:
        refused = error(alice_api.post(f"/api/matches/{created['id']}/bet/", body, format="json"))
        assert refused["code"] == "invalid" and list(refused["fields"]) == [field], (body, refused)
        assert refused["message"].startswith(field + ": "), refused
    assert not Bet.objects.exists()


@pytest.mark.parametrize("url", ["/api/rounds/", "/api/rounds/export.csv", "/api/incidents/"])
@pytest.mark.parametrize("params,field", [
    ({"q": "²"}, None),  # a digit to str.isdigit(), not to int(): a plain search that finds nothing
    ({"q": "a\x00b"}, "q"),
    ({"status": "open\x00"}, "status"),
    ({"status": "nonsense"}, "status"),
    ({"table": "²"}, "table"),
    ({"table": "1\x00"}, "table"),
    ({"table": "99999999999999999999999"}, "table"),
    ({"q": "99999999999999999999999"}, None),  # an id too long to be one: a plain search
])
def test_history_and_export_query_parameters_are_validated_before_any_query(supervisor_api, url, params, field):
    if url == "/api/incidents/" and "table" in params and "\x00" not in params["table"]:
        field = None  # not one of its parameters: ignored (but a NUL byte is refused in any URL)
    response = supervisor_api.get(url, params)
    if field is None:
        assert response.status_code == 200, response.content
        return
    body = error(response)
    assert body["code"] == "invalid" and list(body["fields"]) == [field], body


@pytest.mark.parametrize("player", ["alice\x00", "x" * 151])
def test_the_ledger_player_parameter_is_validated(supervisor_api, alice, player):
    body = error(supervisor_api.get("/api/me/ledger/", {"player": player}))
    assert list(body["fields"]) == ["player"]
    assert supervisor_api.get("/api/me/ledger/", {"player": "alice"}).status_code == 200


def test_the_export_is_refused_before_it_starts_and_read_whole_when_it_is_not(supervisor_api, dealer, make_table):
    for n in range(3):
        round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    refused = supervisor_api.get("/api/rounds/export.csv", {"status": "betting\x00"})
    assert refused.status_code == 400 and not refused.streaming
    response = supervisor_api.get("/api/rounds/export.csv", {"status": "betting"})
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    lines = text.splitlines()
    assert lines[0].startswith("id,table,status") and len(lines) == 4 and text.endswith("\r\n")


def test_blank_query_parameters_count_as_absent(supervisor_api, dealer, table):
    round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert len(supervisor_api.get("/api/rounds/", {"q": "", "table": "", "status": ""}).json()) == 1
    assert supervisor_api.get("/api/incidents/", {"q": " ", "status": ""}).status_code == 200


def test_ids_longer_than_a_bigint_and_paths_that_name_nothing_are_json_404s(anon_api, alice_api, dealer, table):
    for path in ["/api/tables/99999999999999999999/", "/api/rounds/1000000000000000000/", "/api/tables/-1/odds/",
                 "/api/nothing/", "/api/rounds/%0A/"]:
        assert error(anon_api.get(path), 404)["code"] == "not_found", path
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for path in [f"/api/rounds/{rnd.pk}0000000000000000000/bets/", "/api/matches/99999999999999999999/bet/"]:
        assert error(alice_api.post(path, {"spot": "andar", "amount": "10"}, format="json"), 404)["code"] == "not_found"
    assert anon_api.get(f"/api/tables/{table.pk}").status_code == 301  # still sent to the path with its slash
    assert error(alice_api.post("/api/matches", {}, format="json"), 404)["code"] == "not_found"  # not APPEND_SLASH's error
    assert not Bet.objects.exists()


def test_a_post_to_a_wrong_api_path_is_a_json_404_even_with_a_session(client, alice):
    client.force_login(alice)
    client.handler.enforce_csrf_checks = True
    assert error(client.post("/api/nowhere/", {}), 404)["code"] == "not_found"


@pytest.mark.parametrize("code", ["AB\x00CD", "ÀBCDEF", "ABC DEF", "x" * 13])
def test_a_join_code_that_cannot_be_one_is_refused_before_any_query(alice_api, client, alice, code):
    body = error(alice_api.post("/api/matches/join/", {"code": code}, format="json"))
    assert list(body["fields"]) == ["code"]
    client.force_login(alice)
    assert client.get("/matches/join/" + code.replace("\x00", "%00") + "/").status_code in (400, 404)
    assert not Match.objects.exists()


def test_nothing_is_written_when_a_bet_is_refused(alice_api, dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    entries = LedgerEntry.objects.count()
    for amount in ["1e1", "+10", 10.0, True, "١٠"]:
        error(alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": amount}, format="json"))
    assert not Bet.objects.exists() and LedgerEntry.objects.count() == entries
    assert Round.objects.get(pk=rnd.pk).status == "betting"


def test_a_nul_byte_in_any_url_is_a_400_before_any_view(client, supervisor, table):
    """The admin's filters and searches, the pages: PostgreSQL cannot compare text holding a NUL."""
    client.force_login(supervisor)
    for url in ["/admin/tables/round/?status__exact=%00", "/admin/tables/table/?q=a%00", f"/play/tables/{table.pk}/?x=%00",
                "/login/?next=%00"]:
        response = client.get(url)
        assert response.status_code == 400, (url, response.status_code)
    body = error(client.get("/api/tables/?anything=%00"))
    assert body["fields"] == {"anything": ["NUL bytes are not allowed in a URL."]}
    assert client.get("/admin/tables/round/?status__exact=betting").status_code == 200
