"""Operators' wallet transactions unacknowledged past SEAMLESS_ALERT_AFTER raise one of the integrity
monitor's alerts (subject `operator`), once while open, again after an acknowledgement if still stuck."""
from decimal import Decimal

import pytest

from accounts.operators import operator_player, operator_set
from bets.models import WalletTransaction
from integrity.models import Alert
from integrity.services import alert_acknowledge, wallet_alerts_raise
from tables.services import round_open

pytestmark = pytest.mark.django_db


def test_a_stuck_transaction_raises_an_operator_alert_once(settings, dealer, supervisor, make_table, supervisor_api):
    operator = operator_set(code="acme", wallet="seamless", wallet_url="http://127.0.0.1:9", secret="s" * 20, currency="INR")[0]
    player = operator_player(operator=operator, player_id="p-1", display_name="P")
    rnd = round_open(table_id=make_table(currency="INR").pk, joker="KS", dealer=dealer)
    WalletTransaction.objects.create(transaction_id="rollback-x", kind="rollback", status="pending", amount=Decimal("190"), operator=operator,
                                     player=player, currency="INR", round=rnd, body={"player_id": "p-1"})
    assert wallet_alerts_raise() == 0  # not stuck yet (SEAMLESS_ALERT_AFTER: 300 s)
    settings.SEAMLESS_ALERT_AFTER = 0
    assert wallet_alerts_raise() == 1
    assert wallet_alerts_raise() == 0  # one open alert per operator
    listed = supervisor_api.get("/api/alerts/?status=open").json()
    assert [(a["subject"], a["name"], a["check"], a["statistic"]) for a in listed] == [("operator", "acme", "wallet_unacknowledged", 1)]
    alert_acknowledge(alert_id=listed[0]["id"], actor=supervisor, note="operator contacted")
    assert wallet_alerts_raise() == 1  # still stuck: raised again
    WalletTransaction.objects.update(status="ok")
    Alert.objects.update(acknowledged_at=rnd.opened_at, acknowledged_by=supervisor)
    assert wallet_alerts_raise() == 0
