"""A player's wallets, one per currency: `GET /api/me/` answers each wallet's balance by currency
and makes none; an idempotent replay of a bet answers the balance of the wallet the bet came from,
in its table's currency."""
import pytest
from django.contrib.auth import get_user_model

from bets.ledger import chips_issue
from bets.models import Account
from tests.bets.flow import D, bet, open_round, placed
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def wallets(user) -> list[tuple[str, D]]:
    return list(Account.objects.filter(user=user, kind="player").order_by("currency").values_list("currency", "balance"))


def test_me_answers_every_wallet_by_currency(alice_api, alice):
    chips_issue(user=alice, amount=D("250"), currency="INR")
    me = alice_api.get("/api/me/").json()
    assert (me["balance"], me["currency"]) == ("1000.00", "CHIPS")  # CHIPS, as before
    assert me["balances"] == [{"currency": "CHIPS", "balance": "1000.00"}, {"currency": "INR", "balance": "250.00"}]


def test_reading_me_makes_no_wallet(outsider):
    """A user who never held anything (made without the studio_user command, which opens a CHIPS
    wallet), and a player whose only wallet is in rupees."""
    me = client_for(outsider).get("/api/me/").json()
    assert (me["balance"], me["currency"], me["balances"]) == ("0.00", "CHIPS", [])
    assert wallets(outsider) == []
    ravi = get_user_model().objects.create(username="ravi")
    chips_issue(user=ravi, amount=D("80"), currency="INR")
    me = client_for(ravi).get("/api/me/").json()
    assert (me["balance"], me["currency"], me["balances"]) == ("0.00", "CHIPS", [{"currency": "INR", "balance": "80.00"}])
    assert wallets(ravi) == [("INR", D("80"))]  # no CHIPS wallet made by the read


def test_a_replayed_bet_answers_the_balance_in_its_tables_currency_now(dealer_api, alice_api, alice, make_table):
    chips_issue(user=alice, amount=D("300"), currency="INR")
    round_id = open_round(dealer_api, make_table(currency="INR"))
    first = bet(alice_api, round_id, "andar", "50", key="tap-inr")
    assert (first.status_code, first.json()["balance"]) == (201, "250.00")
    placed(alice_api, round_id, "count_6_10", "20")
    again = bet(alice_api, round_id, "andar", "50", key="tap-inr")
    assert (again.status_code, again.json()["id"], again.json()["balance"]) == (200, first.json()["id"], "230.00")
    assert wallets(alice) == [("CHIPS", D("1000")), ("INR", D("230"))]
