"""An operator's server launches a player (POST /api/operator/sessions/, docs/OPERATORS.md): one
studio player per (operator, player_id), a token for the API and a page URL with a one-time code; every
refusal leaves nothing behind."""
import json
import time

import pytest
from django.contrib.auth import get_user_model

from accounts.models import OperatorLaunch, OperatorPlayer, Token
from accounts.operators import operator_set
from accounts.services import user_update
from bets.models import Account
from studio import signing
from tests.bets.seamless_world import SECRET, launch_body, signed_launch
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def casino(db):
    return operator_set(code="acme", wallet="internal", secret=SECRET, currency="CHIPS")[0]


@pytest.fixture
def chips_table(make_table):
    return make_table(currency="CHIPS")


def counts():
    return (get_user_model().objects.count(), OperatorPlayer.objects.count(), OperatorLaunch.objects.count(), Token.objects.count(),
            Account.objects.count())


def test_a_launch_makes_the_player_once_and_answers_a_token_and_a_one_time_page_url(casino, chips_table):
    first = signed_launch(client_for(None), launch_body("p-17", chips_table))
    assert first.status_code == 201, first.content
    token, url = first.json()["token"], first.json()["url"]
    assert token not in url and "/play/launch/" in url
    api = client_for(None)
    api.credentials(HTTP_AUTHORIZATION="Token " + token)
    me = api.get("/api/me/").json()
    assert me["roles"] == ["player"] and me["currency"] == "CHIPS"
    again = signed_launch(client_for(None), launch_body("p-17", chips_table, display_name="Other name", timestamp=int(time.time()) - 1))
    assert again.status_code == 201
    assert OperatorPlayer.objects.filter(operator=casino, player_id="p-17").count() == 1

    page = client_for(None)
    path = url.split("testserver", 1)[1]
    opened = page.get(path)
    assert opened.status_code == 302 and opened["Location"] == f"/play/tables/{chips_table.pk}/?lang=hi"
    assert page.get(opened["Location"]).status_code == 200
    assert client_for(None).get(path).status_code == 404  # once


def test_a_page_url_of_a_player_blocked_since_the_launch_logs_no_one_in(casino, chips_table):
    launched = signed_launch(client_for(None), launch_body("p-18", chips_table))
    assert launched.status_code == 201, launched.content
    user_update(actor=None, source="command", user=OperatorPlayer.objects.get(player_id="p-18").user, is_active=False)
    page = client_for(None)
    assert page.get(launched.json()["url"].split("testserver", 1)[1]).status_code == 404
    assert "_auth_user_id" not in page.session  # no one logged in


@pytest.mark.parametrize("case", ["bad_signature", "missing_signature", "unknown_operator", "wrong_secret"])
def test_a_launch_that_is_not_the_operators_is_401_with_nothing_created(casino, chips_table, case):
    before = counts()
    body = launch_body("p-1", chips_table)
    kwargs = {"bad_signature": {"signature": "00" * 32}, "missing_signature": {"signature": ""},
              "unknown_operator": {"code": "nobody"}, "wrong_secret": {"secret": "not-the-secret"}}[case]
    response = signed_launch(client_for(None), body, **kwargs)
    assert response.status_code == 401, response.content
    assert response.json()["code"] == "bad_signature"
    assert counts() == before


def test_an_inactive_operator_is_403(casino, chips_table):
    operator_set(code="acme", wallet="internal", active=False)
    before = counts()
    response = signed_launch(client_for(None), launch_body("p-1", chips_table))
    assert response.status_code == 403 and response.json()["code"] == "operator_inactive"
    assert counts() == before


@pytest.mark.parametrize("skew", [-301, 301, -100000])
def test_a_timestamp_more_than_five_minutes_away_is_401(casino, chips_table, skew):
    before = counts()
    response = signed_launch(client_for(None), launch_body("p-1", chips_table, timestamp=int(time.time()) + skew))
    assert response.status_code == 401 and response.json()["code"] == "stale_timestamp"
    assert counts() == before


def test_a_replayed_body_is_401(casino, chips_table):
    raw = json.dumps(launch_body("p-1", chips_table)).encode()
    assert signed_launch(client_for(None), raw).status_code == 201
    before = counts()
    response = signed_launch(client_for(None), raw)
    assert response.status_code == 401 and response.json()["code"] == "replayed"
    assert counts() == before


@pytest.mark.parametrize("change, field", [
    ({"currency": "INR"}, "currency"),
    ({"table": 999999}, "table"),
    ({"player_id": ""}, "player_id"),
    ({"player_id": 17}, "player_id"),
    ({"timestamp": "now"}, "timestamp"),
    ({"language": "xx"}, "language"),
    ({"table": None}, "table"),
])
def test_a_bad_field_or_a_currency_the_table_does_not_play_is_400(casino, chips_table, change, field):
    before = counts()
    response = signed_launch(client_for(None), launch_body("p-1", chips_table, **change))
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert counts() == before


def test_a_body_that_is_not_json_is_400(casino):
    response = signed_launch(client_for(None), b"not json")
    assert response.status_code == 400


@pytest.mark.parametrize("depth", [1_000, 30_000])
def test_a_signed_body_nested_too_deep_is_400_with_nothing_created(casino, chips_table, depth):
    before = counts()
    raw = b'{"player_id": ' + b"[" * depth + b"]" * depth + b"}"
    response = signed_launch(client_for(None), raw)
    assert response.status_code == 400 and response.json()["code"] == "invalid", response.content
    assert counts() == before


@pytest.mark.parametrize("field", ["player_id", "display_name"])
@pytest.mark.parametrize("value", ["p-1\n", "p\n-1", "p-1\r", "p\t1", "p-1\x00", "p\x1b1", "p-1\u2028"], ids=repr)
def test_control_characters_in_a_player_id_or_name_are_400_with_nothing_created(casino, chips_table, field, value):
    before = counts()
    response = signed_launch(client_for(None), launch_body("p-1", chips_table, **{field: value}))
    assert response.status_code == 400 and list(response.json()["fields"]) == [field], response.content
    assert counts() == before


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain", ""])
def test_a_signed_body_that_is_not_sent_as_json_is_415_with_nothing_created(casino, chips_table, content_type):
    before = counts()
    raw = json.dumps(launch_body("p-1", chips_table)).encode()
    headers = {"HTTP_X_OPERATOR": "acme", "HTTP_X_SIGNATURE": signing.sign(SECRET, raw)}
    response = client_for(None).generic("POST", "/api/operator/sessions/", raw, content_type=content_type, **headers)
    assert response.status_code == 415 and response.json()["code"] == "unsupported_media_type", response.content
    assert counts() == before


def test_supervisors_see_operators_without_their_secret(casino, supervisor_api, alice_api):
    listed = supervisor_api.get("/api/operators/")
    assert listed.status_code == 200
    assert listed.json()[0]["code"] == "acme" and SECRET not in listed.content.decode()
    assert alice_api.get("/api/operators/").status_code == 403
    assert alice_api.get("/api/operator/transactions/").status_code == 403
