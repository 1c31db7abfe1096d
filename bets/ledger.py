"""Wallets and the double-entry ledger. Every chip moves here, as a pair of entries summing to zero.

Player wallets keep a materialised balance (changed in the same statement batch as their entries,
under the wallet's row lock). The house and the mint are hot accounts shared by every bet, so they
keep no materialised balance: theirs is the sum of their entries (see `account_balance`).
"""
from __future__ import annotations

from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Sum
from django.utils import timezone

from studio import sql
from studio.errors import InvalidInput
from studio.money import from_minor, to_minor

from .models import Account, LedgerEntry

K = LedgerEntry.Kind
ACCOUNT = Account._meta.db_table
LEDGER = LedgerEntry._meta.db_table
DEFAULT_CURRENCY = "CHIPS"
# The house account of the currency of the wallet `a`, as a column of a statement reading `a`.
HOUSE_OF_WALLET = f"(SELECT h.id FROM {ACCOUNT} h WHERE h.kind = 'house' AND h.user_id IS NULL AND h.currency = a.currency)"


def house_account(currency: str = DEFAULT_CURRENCY) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.HOUSE, user=None, currency=currency)
    return account


def mint_account(currency: str = DEFAULT_CURRENCY) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.MINT, user=None, currency=currency)
    return account


def wallet_get(*, user, currency: str = DEFAULT_CURRENCY, lock: bool = False) -> Account:
    """The player's wallet in `currency`, created when missing; with `lock`, locked FOR UPDATE."""
    return wallet_and_house(user=user, currency=currency, lock=lock)[0]


def wallet_and_house(*, user, currency: str = DEFAULT_CURRENCY, lock: bool = True) -> tuple[Account, Account]:
    """The player's wallet (locked FOR UPDATE with `lock`) and the house account of its currency, in
    one statement (taking a bet back needs both); created when missing. Plain SQL: the ORM would
    spend more CPU building the statement than PostgreSQL spends running it."""
    statement = (f"SELECT a.id, a.balance, {HOUSE_OF_WALLET} FROM {ACCOUNT} a "
                 "WHERE a.kind = 'player' AND a.user_id = %s AND a.currency = %s")
    if lock and connection.features.has_select_for_update_of:
        statement += " FOR UPDATE OF a"
    row = sql.fetch_one(statement, [user.pk, currency])
    if row is None or row[2] is None:  # a new player or a new currency (rare): create what is missing
        Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user, currency=currency)
        house_account(currency)
        row = sql.fetch_one(statement, [user.pk, currency])
    return accounts_from_row(user_id=user.pk, currency=currency, wallet_id=row[0], balance_minor=row[1], house_id=row[2])


def accounts_from_row(*, user_id: int, currency: str, wallet_id: int, balance_minor, house_id: int) -> tuple[Account, Account]:
    """The (wallet, house) instances of a statement that read a wallet with HOUSE_OF_WALLET."""
    wallet = Account.from_db(DEFAULT_DB_ALIAS, ["id", "kind", "user_id", "currency", "balance"],
                             [wallet_id, Account.Kind.PLAYER, user_id, currency, from_minor(balance_minor)])
    house = Account.from_db(DEFAULT_DB_ALIAS, ["id", "kind", "user_id", "currency"], [house_id, Account.Kind.HOUSE, None, currency])
    return wallet, house


def account_balance(account: Account) -> Decimal:
    if account.kind == Account.Kind.PLAYER:
        return account.balance
    return LedgerEntry.objects.filter(account=account).aggregate(s=Sum("amount"))["s"] or Decimal("0.00")


def post(*, wallet: Account, counter: Account, amount: Decimal, kind: str, bet=None, round_id=None, version: int = 0,
         memo: str = "", allow_overdraft: bool = True) -> Decimal:
    """Move `amount` into `wallet` (negative: out of it) from `counter`. Returns the wallet's new balance.
    Without `allow_overdraft`, a debit the wallet cannot cover is refused and nothing is written.
    Two statements: the wallet's UPDATE ... RETURNING its new balance, and the entry pair's INSERT."""
    assert transaction.get_connection().in_atomic_block
    assert wallet.kind == Account.Kind.PLAYER and counter.kind != Account.Kind.PLAYER
    minor = to_minor(amount)
    sql, params = f"UPDATE {ACCOUNT} SET balance = balance + %s WHERE id = %s", [minor, wallet.pk]
    if minor < 0 and not allow_overdraft:
        sql, params = sql + " AND balance >= %s", params + [-minor]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    bet_id = bet.pk if bet is not None else None
    with connection.cursor() as cur:
        cur.execute(sql + " RETURNING balance", params)
        row = cur.fetchone()
        if row is None:
            raise InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                                   fields={"amount": [f"Your balance is {wallet_balance_now(wallet)}."]})
        cur.execute(f"INSERT INTO {LEDGER} (account_id, amount, kind, bet_id, round_id, version, memo, created_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s), (%s, %s, %s, %s, %s, %s, %s, %s)",
                    [wallet.pk, minor, kind, bet_id, round_id, version, memo, now,
                     counter.pk, -minor, kind, bet_id, round_id, version, memo, now])
    return from_minor(row[0])


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
