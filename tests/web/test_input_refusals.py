"""No input is a server error, and nothing changes on a refusal: bodies nested too deeply, empty
and odd lists, query parameters that are not what they look like (a superscript digit, a NUL byte,
another script's digits, a sign, a space, an empty value), amounts and whole numbers that are not
ASCII digits, ids longer than a BIGINT, paths that name nothing, control characters in identifiers.
Each is a 400 (or a JSON 404) with the error body {"code", "message", "fields"}; a body that is
not JSON is a 415 and one over the limit a 413, in the same shape; OPTIONS and HEAD answer in
every format."""
import json
from decimal import Decimal
from urllib.parse import urlencode

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from accounts.models import Token
from bets.models import Bet, LedgerEntry
from studio.limits import MAX_BODY
from studio.money import AMOUNT_EXPECTED
from tables.models import DealtCard, Incident, Match, Round, Table
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


REPORT = {"group": "table", "from": "2026-12-01", "to": "2026-12-02"}


@pytest.mark.parametrize("url,params,field", [
    ("/api/rounds/", {"status": ""}, "status"),
    ("/api/rounds/", {"table": ""}, "table"),
    ("/api/rounds/", {"q": ""}, "q"),
    ("/api/rounds/", {"q": " "}, "q"),
    ("/api/rounds/export.csv", {"status": ""}, "status"),
    ("/api/incidents/", {"status": ""}, "status"),
    ("/api/alerts/", {"status": ""}, "status"),
    ("/api/me/ledger/", {"player": ""}, "player"),
    ("/api/me/rounds/", {"page_size": ""}, "page_size"),
    ("/api/me/rounds/", {"page_size": "null"}, "page_size"),
    ("/api/me/rounds/", {"page_size": "0"}, "page_size"),
    ("/api/me/rounds/", {"page": ""}, "page"),
    ("/api/me/rounds/", {"page": "last"}, "page"),
    ("/api/changes/", {"page_size": "null"}, "page_size"),
    ("/api/operator/transactions/", {"operator": ""}, "operator"),
    ("/api/reports/", {**REPORT, "table": ""}, "table"),
    ("/api/reports/", {**REPORT, "dealer": ""}, "dealer"),
    ("/api/tables/{table}/stats/", {"last": ""}, "last"),
])
def test_an_empty_filter_is_a_field_error_not_an_absent_one(supervisor_api, dealer, table, url, params, field):
    round_open(table_id=table.pk, joker="KS", dealer=dealer)
    body = error(supervisor_api.get(url.format(table=table.pk), params))
    assert body["code"] == "invalid" and list(body["fields"]) == [field], body


@pytest.mark.parametrize("value", ["١٠٠", "+100", "-100", " 100", "100 ", "100\n", "100.0", "1e2", "٠٠١"], ids=repr)
@pytest.mark.parametrize("url,name", [
    ("/api/tables/{table}/stats/", "last"), ("/api/rounds/", "table"), ("/api/rounds/export.csv", "table"),
    ("/api/me/rounds/", "page_size"), ("/api/me/rounds/", "page"), ("/api/me/ledger/", "page"), ("/api/changes/", "page"),
    ("/api/operator/transactions/", "round"), ("/api/reports/", "table"), ("/api/reports/", "dealer"),
])
def test_a_whole_number_query_parameter_is_ascii_digits_without_sign_or_space(supervisor_api, table, url, name, value):
    params = {**(REPORT if url == "/api/reports/" else {}), name: value}
    body = error(supervisor_api.get(url.format(table=table.pk), params))
    assert body["code"] == "invalid" and list(body["fields"]) == [name], body


def test_the_usual_query_parameters_still_answer(supervisor_api, alice_api, dealer, table):
    round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for url, params in [(f"/api/tables/{table.pk}/stats/", {"last": "10"}), ("/api/rounds/", {"table": str(table.pk), "status": "betting"}),
                        ("/api/me/rounds/", {"page_size": "5", "page": "1"}), ("/api/me/ledger/", {"page": "1"}),
                        ("/api/reports/", {**REPORT, "table": str(table.pk)}), ("/api/incidents/", {"q": "misread"})]:
        assert supervisor_api.get(url, params).status_code == 200, url
    assert len(supervisor_api.get("/api/rounds/", {"q": str(table.pk + 10**6)}).json()) == 0


@pytest.mark.parametrize("amount", [" 10", "10 ", "10\n", "\t10", "1 0", "10.00 "], ids=repr)
def test_an_amount_with_space_around_or_in_it_is_refused(alice_api, supervisor_api, dealer, table, amount):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    body = error(alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": amount}, format="json"))
    assert body["fields"] == {"amount": [AMOUNT_EXPECTED]}, body
    match = alice_api.post("/api/matches/", {}, format="json").json()
    body = error(alice_api.post(f"/api/matches/{match['id']}/bet/", {"bets": [{"spot": "andar", "amount": amount}]}, format="json"))
    assert body["fields"] == {"bets.0.amount": [AMOUNT_EXPECTED]}, body
    body = error(supervisor_api.patch(f"/api/tables/{table.pk}/", {"min_bet": amount}, format="json"))
    assert list(body["fields"]) == ["min_bet"], body
    assert not Bet.objects.exists() and Table.objects.get(pk=table.pk).min_bet == Decimal("10")


ODD_WHOLE = ["١٠", "+10", "-10", " 10", "10 ", "10\n", "10.0", 10.0, "1e1", True, "", None, [10]]


@pytest.mark.parametrize("value", ODD_WHOLE, ids=repr)
def test_a_whole_number_field_is_an_integer_or_ascii_digits(supervisor_api, alice_api, dealer, make_table, value):
    table = make_table(betting_seconds=15)
    done = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for field in ["betting_seconds", "shift_minutes"]:
        body = error(supervisor_api.patch(f"/api/tables/{table.pk}/", {field: value}, format="json"))
        assert list(body["fields"]) == [field], body
    body = error(alice_api.post("/api/matches/", {"betting_seconds": value}, format="json"))
    assert list(body["fields"]) == ["betting_seconds"], body
    body = error(supervisor_api.post(f"/api/rounds/{done.pk}/corrections/replace/", {"position": value, "card": "2H"}, format="json"))
    assert list(body["fields"]) == ["position"], body
    table.refresh_from_db()
    assert (table.betting_seconds, table.shift_minutes) == (15, 30) and not Match.objects.exists()


@pytest.mark.parametrize("value", ["٠.٩", "+0.9", " 0.9", "0.9 ", "0.9\n", ".9", "9e-1", 0.9, True], ids=repr)
def test_a_commission_is_ascii_digits_with_at_most_three_decimals(supervisor_api, table, value):
    body = error(supervisor_api.patch(f"/api/tables/{table.pk}/", {"commission": value}, format="json"))
    assert list(body["fields"]) == ["commission"], body
    assert Table.objects.get(pk=table.pk).commission == Decimal("0.9")


def test_whole_numbers_and_a_commission_still_take_integers_and_digits(supervisor_api, alice_api, table):
    for changes in [{"betting_seconds": 20, "shift_minutes": "45"}, {"betting_seconds": "25", "commission": "0.85"}, {"commission": 1}]:
        assert supervisor_api.patch(f"/api/tables/{table.pk}/", changes, format="json").status_code == 200, changes
    table.refresh_from_db()
    assert (table.betting_seconds, table.shift_minutes, table.commission) == (25, 45, Decimal("1"))
    assert alice_api.post("/api/matches/", {"betting_seconds": "30"}, format="json").status_code == 201


def _bodies(data: dict) -> list[tuple[bytes, str]]:
    """The same fields as a form, as multipart and as plain text: none of them JSON."""
    return [(urlencode(data).encode(), "application/x-www-form-urlencoded"), (encode_multipart(BOUNDARY, data), MULTIPART_CONTENT),
            (json.dumps(data).encode(), "text/plain")]


def test_every_write_takes_json_bodies_only(anon_api, alice_api, supervisor_api, alice, dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    dealer_api = client_for(dealer)
    writes = [(dealer_api, "POST", f"/api/rounds/{rnd.pk}/cards/", {"card": "KH"}),
              (supervisor_api, "POST", f"/api/rounds/{rnd.pk}/incidents/", {"kind": "misread", "notes": "x"}),
              (supervisor_api, "PATCH", f"/api/tables/{table.pk}/", {"name": "Renamed", "betting_seconds": "20"}),
              (supervisor_api, "POST", "/api/tables/", {"name": "New"}),
              (supervisor_api, "POST", f"/api/tables/{table.pk}/state/", {"state": "closed", "reason": "x"}),
              (alice_api, "POST", f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}),
              (alice_api, "POST", "/api/matches/", {"rounds": "10"}),
              (anon_api, "POST", "/api/auth/token/", {"username": "alice", "password": "pw-alice"})]
    for client, method, url, data in writes:
        for body, content_type in _bodies(data):
            refused = error(client.generic(method, url, body, content_type=content_type), 415)
            assert refused["code"] == "unsupported_media_type", (url, content_type, refused)
    table.refresh_from_db()
    assert (table.name, table.betting_seconds, table.state) == ("Table 1", 15, "open") and Table.objects.count() == 1
    assert not DealtCard.objects.exists() and not Incident.objects.exists() and not Bet.objects.exists() and not Match.objects.exists()
    assert Token.objects.filter(user=alice).count() == 1  # alice_api's own: no login went through


def test_a_body_over_64_kib_is_a_json_413_before_any_view(anon_api, alice_api, alice, dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    over = json.dumps({"spot": "andar", "amount": "10", "pad": "x" * MAX_BODY}).encode()
    huge = b"player_id=" + b"x" * 3_000_000  # over Django's own 2.5 MB, which answered an HTML 400
    for client, url, body, content_type in [(alice_api, f"/api/rounds/{rnd.pk}/bets/", over, "application/json"),
                                            (client_for(dealer), f"/api/rounds/{rnd.pk}/cards/", over, "application/json"),
                                            (anon_api, "/api/operator/sessions/", over, "application/json"),
                                            (anon_api, "/api/operator/sessions/", huge, "application/x-www-form-urlencoded"),
                                            (anon_api, "/api/auth/token/", huge, "application/x-www-form-urlencoded"),
                                            (anon_api, "/api/nothing/", over, "application/json")]:
        refused = error(client.generic("POST", url, body, content_type=content_type), 413)
        assert refused["code"] == "too_large" and str(MAX_BODY) in refused["message"], (url, refused)
    assert not Bet.objects.exists() and not DealtCard.objects.exists()


def test_the_largest_legitimate_body_is_read(anon_api, alice):
    """A login with a password at its limit, every character escaped as JSON's surrogate pair: 49 KB."""
    body = json.dumps({"username": "alice", "password": "\U0001F600" * 4096}).encode()
    assert 48_000 < len(body) <= MAX_BODY
    refused = error(anon_api.generic("POST", "/api/auth/token/", body, content_type="application/json"))
    assert refused["code"] == "bad_credentials"


@pytest.mark.parametrize("name", ["alice\n", "ali\nce", "alice\r", "al\tice", "alice\x1b", "alice\u2028", "\x00alice"], ids=repr)
def test_control_characters_in_a_username_are_refused(anon_api, supervisor_api, alice, name):
    body = error(anon_api.post("/api/auth/token/", {"username": name, "password": "pw-alice"}, format="json"))
    assert list(body["fields"]) == ["username"], body
    body = error(supervisor_api.post("/api/lockouts/clear/", {"username": name}, format="json"))
    assert list(body["fields"]) == ["username"], body
    body = error(supervisor_api.get("/api/me/ledger/", {"player": name}))
    assert list(body["fields"]) == ["player"], body
    body = error(supervisor_api.get("/api/operator/transactions/", {"operator": name}))
    assert list(body["fields"]) == ["operator"], body
    assert Token.objects.filter(user=alice).count() == 0


@pytest.mark.parametrize("key", ["k\n1", "k\x01", "k\t1"], ids=repr)
def test_control_characters_in_an_idempotency_key_are_refused(alice_api, dealer, table, key):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    body = error(alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}, format="json", HTTP_IDEMPOTENCY_KEY=key))
    assert list(body["fields"]) == ["Idempotency-Key"], body
    assert not Bet.objects.exists()


@pytest.mark.parametrize("method", ["OPTIONS", "HEAD", "GET"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_reports_answer_every_method_in_every_format(supervisor_api, method, fmt):
    response = supervisor_api.generic(method, "/api/reports/?" + urlencode({**REPORT, "format": fmt}))
    assert response.status_code == 200, response.content
    if method == "OPTIONS":  # the view's description: JSON, whatever the format asked
        assert response["Content-Type"].startswith("application/json") and response.json()["name"] == "Report"
    else:
        assert response["Content-Type"].startswith("text/csv" if fmt == "csv" else "application/json")
    refused = supervisor_api.generic(method, "/api/reports/?format=" + fmt)  # a refusal: JSON too
    if method != "OPTIONS":
        assert refused.status_code == 400 and refused["Content-Type"].startswith("application/json")


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
