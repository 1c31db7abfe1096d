"""Wallets and the double-entry ledger. Every chip moves here, as a pair of entries summing to zero.

Player wallets keep a materialised balance (changed in the same statement batch as their entries,
under the wallet's row lock). The house and the mint are hot accounts shared by every bet, so they
keep no materialised balance: theirs is the sum of their entries (see `account_balance`).
"""
from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import F, Sum

from studio.errors import ApplicationError

from .models import Account, LedgerEntry

K = LedgerEntry.Kind
DEFAULT_CURRENCY = "CHIPS"


def house_account(currency: str = DEFAULT_CURRENCY) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.HOUSE, user=None, currency=currency)
    return account


def mint_account(currency: str = DEFAULT_CURRENCY) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.MINT, user=None, currency=currency)
    return account


def wallet_get(*, user, currency: str = DEFAULT_CURRENCY, lock: bool = False) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user, currency=currency)
    if lock:
        account = Account.objects.select_for_update().get(pk=account.pk)
    return account


def account_balance(account: Account) -> Decimal:
    if account.kind == Account.Kind.PLAYER:
        return account.balance
    return LedgerEntry.objects.filter(account=account).aggregate(s=Sum("amount"))["s"] or Decimal("0.00")


def post(*, wallet: Account, counter: Account, amount: Decimal, kind: str, bet=None, round_id=None, version: int = 0,
         memo: str = "", allow_overdraft: bool = True) -> Decimal:
    """Move `amount` into `wallet` (negative: out of it) from `counter`. Returns the wallet's new balance.
    Without `allow_overdraft`, a debit the wallet cannot cover is refused and nothing is written."""
    assert transaction.get_connection().in_atomic_block
    assert wallet.kind == Account.Kind.PLAYER and counter.kind != Account.Kind.PLAYER
    rows = Account.objects.filter(pk=wallet.pk)
    if amount < 0 and not allow_overdraft:
        rows = rows.filter(balance__gte=-amount)
    if rows.update(balance=F("balance") + _minor(amount)) != 1:
        raise ApplicationError("Not enough chips for this bet.", code="insufficient_funds", status=400,
                               fields={"amount": [f"Your balance is {wallet_balance_now(wallet)}."]})
    LedgerEntry.objects.bulk_create([
        LedgerEntry(account=wallet, amount=amount, kind=kind, bet=bet, round_id=round_id, version=version, memo=memo),
        LedgerEntry(account=counter, amount=-amount, kind=kind, bet=bet, round_id=round_id, version=version, memo=memo),
    ])
    return wallet_balance_now(wallet)


def _minor(amount: Decimal):
    from studio.money import money

    return money(amount)


def wallet_balance_now(wallet: Account) -> Decimal:
    return Account.objects.values_list("balance", flat=True).get(pk=wallet.pk)


@transaction.atomic
def chips_issue(*, user, amount: Decimal, currency: str = DEFAULT_CURRENCY, memo: str = "issued") -> Decimal:
    """An admin adjustment: the mint issues chips to a player (or takes them back, when negative)."""
    wallet = wallet_get(user=user, currency=currency, lock=True)
    return post(wallet=wallet, counter=mint_account(currency), amount=amount, kind=K.ISSUE, memo=memo, allow_overdraft=False)


def chips_set(*, user, balance: Decimal, currency: str = DEFAULT_CURRENCY) -> Decimal:
    """Bring a player's balance to `balance` with one adjustment entry (the studio_user command)."""
    with transaction.atomic():
        wallet = wallet_get(user=user, currency=currency, lock=True)
        delta = balance - wallet.balance
        if delta == 0:
            return wallet.balance
        return post(wallet=wallet, counter=mint_account(currency), amount=delta, kind=K.ISSUE, memo="set balance")
