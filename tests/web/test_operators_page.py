"""The supervisors' operators page (/supervisor/operators/): operators read-only, their wallet
transactions with the stuck first, and the alert when one stays unacknowledged too long."""
from decimal import Decimal

import pytest
from django.test import Client

from accounts.operators import operator_set, operator_player
from bets.models import WalletTransaction
from tables.services import round_open

pytestmark = pytest.mark.django_db


def test_supervisors_see_the_stuck_transactions_first_and_an_alert(settings, supervisor, alice, dealer, make_table):
    operator = operator_set(code="acme", wallet="seamless", wallet_url="http://127.0.0.1:9/wallet", secret="s3cret-s3cret", currency="INR")[0]
    player = operator_player(operator=operator, player_id="p-1", display_name="P")
    rnd = round_open(table_id=make_table(currency="INR").pk, joker="KS", dealer=dealer)
    common = {"operator": operator, "player": player, "amount": Decimal("10"), "currency": "INR", "round": rnd,
              "body": {"player_id": "p-1"}}
    WalletTransaction.objects.create(transaction_id="credit-old", kind="credit", status="ok", **common)
    WalletTransaction.objects.create(transaction_id="rollback-stuck", kind="rollback", status="pending", last_error="insufficient_funds: spent",
                                     **common)
    settings.SEAMLESS_ALERT_AFTER = 0
    client = Client()
    client.force_login(supervisor)
    page = client.get("/supervisor/operators/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="wallet-alert"' in html and "s3cret" not in html
    assert html.index("rollback-stuck") < html.index("credit-old")
    only = client.get("/supervisor/operators/?status=pending").content.decode()
    assert "rollback-stuck" in only and "credit-old" not in only
    hindi = client.get("/supervisor/operators/", HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    assert "ऑपरेटर" in hindi
    player_client = Client()
    player_client.force_login(alice)
    assert player_client.get("/supervisor/operators/").status_code == 403
