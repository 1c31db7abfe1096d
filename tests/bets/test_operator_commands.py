"""The operators' commands: studio_operator (create, update, the secret shown once) and wallet_reconcile."""
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Operator
from accounts.operators import operator_player
from bets.models import WalletTransaction
from tables.services import round_open

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_studio_operator_creates_with_a_secret_shown_once_and_updates_without_it():
    created = run("studio_operator", "acme", "--wallet", "seamless", "--wallet-url", "http://127.0.0.1:18790/", "--currency", "INR")
    secret = created.split("secret (shown once): ")[1].strip()
    operator = Operator.objects.get(code="acme")
    assert operator.secret == secret and operator.wallet_url == "http://127.0.0.1:18790" and operator.currency == "INR"
    updated = run("studio_operator", "acme", "--wallet", "seamless", "--inactive")
    assert "updated" in updated and secret not in updated
    operator.refresh_from_db()
    assert operator.secret == secret and not operator.active


def test_studio_operator_refuses_a_seamless_operator_without_a_url():
    with pytest.raises(CommandError):
        run("studio_operator", "acme", "--wallet", "seamless")
    assert not Operator.objects.exists()


def test_wallet_reconcile_prints_each_rounds_transactions_and_the_unacknowledged(make_table, dealer):
    run("studio_operator", "acme", "--wallet", "seamless", "--wallet-url", "http://127.0.0.1:18790", "--secret", "s" * 20, "--currency", "INR")
    operator = Operator.objects.get(code="acme")
    player = operator_player(operator=operator, player_id="p-1", display_name="P")
    rnd = round_open(table_id=make_table(currency="INR").pk, joker="KS", dealer=dealer)
    common = {"operator": operator, "player": player, "currency": "INR", "round": rnd, "body": {"player_id": "p-1"}}
    WalletTransaction.objects.create(transaction_id="debit-1", kind="debit", status="ok", amount=Decimal("100"), **common)
    WalletTransaction.objects.create(transaction_id="credit-1", kind="credit", status="pending", amount=Decimal("190"), **common)
    day = rnd.opened_at.date()
    out = run("wallet_reconcile", "acme", "--from", str(day), "--to", f"{day}T23:59:59Z")
    assert f"round {rnd.pk}" in out and "debit-1" in out and "credit-1" in out
    assert "<- unacknowledged" in out and "debits 100.00, credits 0.00" in out
    assert "1 rounds, 2 transactions, 1 unacknowledged" in out
