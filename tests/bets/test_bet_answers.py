"""POST /api/rounds/{id}/bets/, answer by answer: the status, the body, the error code and fields,
and the headers, for bets placed, replayed and refused, and for what never reaches the service (a
bad token, a caller who is not a player, a body that is not JSON)."""
import pytest
from rest_framework.settings import api_settings

from bets.models import Bet
from tests.bets.flow import D
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

SPOT, AMOUNT = ["spot"], ["amount"]
CASES = [  # (what, spot, amount, Idempotency-Key, status, code, fields)
    ("a bet", "andar", "50", None, 201, None, None),
    ("a bet with a key", "bahar_never", "10", "k1", 400, "spot_not_offered", SPOT),  # the key stays unused
    ("a first key", "count_1_5", "20", "k2", 201, None, None),
    ("the same key again", "count_1_5", "20", "k2", 200, None, None),  # the same bet
    ("the key for another bet", "count_1_5", "30", "k2", 409, "idempotency_key_reused", None),
    ("the other main side", "bahar", "10", None, 400, "both_sides", SPOT),
    ("not a multiple of the chip unit", "andar", "1.5", None, 400, "chip_unit", AMOUNT),
    ("not an amount", "andar", "lots", None, 400, "invalid", AMOUNT),
    ("zero", "andar", "0", None, 400, "invalid", AMOUNT),
    ("over the max bet", "andar", "500", None, 400, "over_max_bet", AMOUNT),
    ("a number instead of a string", "andar", 10, None, 201, None, None),  # DRF's CharField takes it
    ("spaces around the spot", " andar ", "10", None, 201, None, None),  # DRF trims them
    ("an empty spot", "", "10", None, 400, "invalid", SPOT),
    ("a spot too long", "andar" * 4, "10", None, 400, "invalid", SPOT),
    # Amounts are ASCII digits with at most two decimals, or JSON integers: anything else is a field error.
    ("two decimals", "first_andar", "10.00", None, 201, None, None),
    ("an exponent", "andar", "1e1", None, 400, "invalid", AMOUNT),
    ("a capital exponent", "andar", "1E+1", None, 400, "invalid", AMOUNT),
    ("a plus sign", "andar", "+10", None, 400, "invalid", AMOUNT),
    ("an underscore", "andar", "1_0", None, 400, "invalid", AMOUNT),
    ("Arabic-Indic digits", "andar", "١٠", None, 400, "invalid", AMOUNT),
    ("ten decimal places", "andar", "10.0000000000", None, 400, "invalid", AMOUNT),
    ("a JSON float", "andar", 10.0, None, 400, "invalid", AMOUNT),
    ("a boolean", "andar", True, None, 400, "invalid", AMOUNT),
    ("a negative string", "andar", "-10", None, 400, "invalid", AMOUNT),
    ("a negative integer", "andar", -10, None, 400, "invalid", AMOUNT),
    ("an amount with a point and no decimals", "andar", "10.", None, 400, "invalid", AMOUNT),
    ("null", "andar", None, None, 400, "invalid", AMOUNT),
    ("a list", "andar", ["10"], None, 400, "invalid", AMOUNT),
]
FORMAT_ERRORS = {"an exponent", "a capital exponent", "a plus sign", "an underscore", "Arabic-Indic digits", "ten decimal places",
                 "a JSON float", "a boolean", "a negative string", "an amount with a point and no decimals", "a list"}
# Vary: Accept when the settings add the browsable API's renderer (DEBUG) to JSON's.
HEADERS = {"Content-Type": "application/json", "Allow": "GET, POST, HEAD, OPTIONS",
           "Vary": "Accept" if len(api_settings.DEFAULT_RENDERER_CLASSES) > 1 else None}


def test_every_answer_of_a_bet(dealer, make_table):
    from tables.services import round_open

    rnd = round_open(table_id=make_table(max_bet=D("300")).pk, joker="KS", dealer=dealer)
    api = client_for(make_user("alice", "player", chips=1000))
    balance, first_key_bet = D("1000"), None
    for what, spot, amount, key, status, code, fields in CASES:
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        response = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": spot, "amount": amount}, format="json", **headers)
        body = response.json()
        assert response.status_code == status, (what, body)
        assert {name: response.get(name) for name in HEADERS} == HEADERS, what
        if status >= 400:
            assert body["code"] == code and isinstance(body["message"], str), (what, body)
            assert (list(body["fields"]) if body.get("fields") else None) == fields, (what, body)
            continue
        if status == 201:
            balance -= D(str(amount))
        assert body["balance"] == f"{balance:.2f}" and body["status"] == "open" and body["spot"] == spot.strip(), (what, body)
        assert body["player"] == "alice" and body["round"] == rnd.pk and set(body) == {
            "id", "round", "player", "spot", "amount", "status", "payout", "created_at", "balance"}, body
        if key == "k2":
            assert first_key_bet in (None, body["id"]), what  # the replay is the same bet
            first_key_bet = body["id"]
    assert Bet.objects.filter(round=rnd).count() == 5


def test_the_field_errors_of_an_amount(dealer, make_table):
    from tables.services import round_open

    rnd = round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    api = client_for(make_user("alice", "player", chips=1000))
    for what, spot, amount, *_ in CASES:
        if what in FORMAT_ERRORS or what == "null":
            body = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": spot, "amount": amount}, format="json").json()
            expected = "This field may not be null." if what == "null" else "ASCII digits with at most two decimals"
            assert expected in body["fields"]["amount"][0], (what, body)
    assert not Bet.objects.exists()


def test_the_answers_before_the_service(alice, dealer, make_table):
    """A bad token (401), a caller who is not a player (403), a body that is not JSON (415), a GET."""
    from tables.services import round_open

    rnd = round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    url = f"/api/rounds/{rnd.pk}/bets/"
    bad = client_for(None)
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = bad.post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert (response.status_code, response.json()["message"], response["WWW-Authenticate"]) == (401, "Invalid token.", "Token")
    response = client_for(dealer).post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert (response.status_code, response.json()["message"]) == (403, "Only a player may bet.")
    response = client_for(alice).post(url, {"spot": "andar", "amount": "10"})  # multipart, as a form would send it
    assert (response.status_code, response.json()["code"]) == (415, "unsupported_media_type")
    response = client_for(alice).get(url)
    assert response.status_code == 200 and response.json()["bets"] == []
    response = client_for(alice).post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert response.status_code == 201 and Bet.objects.filter(player=alice).count() == 1


def test_the_bets_token_read_refuses_what_every_api_view_refuses(alice, dealer, make_table):
    """The bet view authenticates as every API view (accounts.auth): an expired token, an inactive
    player and a round that does not exist answer as on every other API view."""
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import Token
    from tables.services import round_open

    rnd = round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    url, bet = f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}
    api = client_for(alice)
    assert api.post("/api/rounds/999999999/bets/", bet, format="json").status_code == 404  # the token is fine, the round is not
    Token.objects.filter(user=alice).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = api.post(url, bet, format="json")
    assert (expired.status_code, expired.json()["code"]) == (401, "token_expired") and api.get("/api/me/").status_code == 401
    fresh = client_for(alice)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    inactive = fresh.post(url, bet, format="json")
    assert (inactive.status_code, inactive.json()["message"]) == (401, "User inactive or deleted.")
    assert not Bet.objects.exists()
