"""The OpenAPI schema is true: it validates with no warning, each operation's body is its own, the
types are the ones answered, and every operation documents its refusals (the error body)."""
import os

import pytest
import yaml
from django.core.management import call_command

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    return yaml.safe_load(path.read_text())


def test_spectacular_validates_the_schema_with_no_warning():
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", os.devnull)


def _body(schema, path, method="post"):
    ref = schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return ref.rsplit("/", 1)[-1], schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def test_a_bet_and_a_match_bet_each_have_their_own_body(schema):
    name, bet = _body(schema, "/api/rounds/{id}/bets/")
    assert name == "BetInputRequest" and set(bet["properties"]) == {"spot", "amount"}
    name, match_bet = _body(schema, "/api/matches/{id}/bet/")
    assert name == "MatchBetInputRequest" and set(match_bet["properties"]) == {"bets"}
    assert {"type": "integer", "minimum": 1} in bet["properties"]["amount"]["oneOf"]


def test_me_answers_each_wallet_by_currency(schema):
    components = schema["components"]["schemas"]
    me = components["Me"]
    assert {"username", "roles", "balance", "currency", "balances"} <= set(me["required"])
    assert me["properties"]["balances"]["items"] == {"$ref": "#/components/schemas/WalletBalance"}
    assert set(components["WalletBalance"]["properties"]) == {"currency", "balance"}
    assert "balances" not in components["Cancelled"]["properties"]  # taking a bet back answers its own wallet


def test_betting_left_ms_may_be_null(schema):
    assert schema["components"]["schemas"]["Round"]["properties"]["betting_left_ms"]["nullable"] is True


def test_the_match_state_is_described(schema):
    state = schema["components"]["schemas"]["MatchState"]
    assert {"id", "code", "players", "me", "current_round"} <= set(state["properties"])


def test_every_operation_documents_its_refusals_with_the_error_body(schema):
    assert schema["components"]["schemas"]["Error"]["required"] == ["code", "message", "fields"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            refusals = {code: r for code, r in operation["responses"].items() if code.startswith("4")}
            assert refusals, (method, path)
            for response in refusals.values():
                assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
            if "requestBody" in operation:
                assert {"400", "413", "415"} <= set(refusals), (method, path)
                assert list(operation["requestBody"]["content"]) == ["application/json"], (method, path)  # JSON only
            if "{id}" in path:
                assert "404" in refusals, (method, path)
    assert "401" not in schema["paths"]["/api/auth/token/"]["post"]["responses"]
    assert "403" not in schema["paths"]["/api/tables/{id}/odds/"]["get"]["responses"]  # anyone may read
