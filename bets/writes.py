"""What placing a bet writes: the bet row, the wallet's debit and the BET ledger pair, all or nothing.

On PostgreSQL it is one statement (data-modifying CTEs): the debit is conditional on the balance,
and the bet and its entries are inserted only if the debit happened, so a wallet that cannot cover
the stake leaves no row behind. Elsewhere (SQLite, the embedded mode) it is the same three writes
one after the other, through `ledger.post`. The caller has validated the bet and holds the round's
shared lock and the wallet's row lock (bets.services).
"""
from __future__ import annotations

from decimal import Decimal

from django.db import connection
from django.utils import timezone

from studio import sql
from studio.errors import ApplicationError
from studio.money import from_minor, to_minor

from .ledger import post, wallet_balance_now
from .models import Account, Bet, LedgerEntry

BET_FIELDS = ["id", "round_id", "player_id", "account_id", "spot", "amount", "status", "payout", "idempotency_key",
              "created_at", "settled_at"]
_BET, _ACCOUNT, _LEDGER = Bet._meta.db_table, Account._meta.db_table, LedgerEntry._meta.db_table
INSERT_BET = (f"INSERT INTO {_BET} ({sql.columns(Bet, BET_FIELDS[1:])}) "
              f"VALUES ({', '.join(['%s'] * (len(BET_FIELDS) - 1))}) RETURNING id")
_ENTRY = "%(round)s, 0, '', %(now)s FROM b"  # round_id, version, memo, created_at of both entries
PLACE = f"""
WITH w AS (UPDATE {_ACCOUNT} SET balance = balance - %(amount)s WHERE id = %(wallet)s AND balance >= %(amount)s RETURNING balance),
b AS (INSERT INTO {_BET} ({sql.columns(Bet, BET_FIELDS[1:])})
      SELECT %(round)s, %(player)s, %(wallet)s, %(spot)s, %(amount)s, 'open', 0, %(key)s, %(now)s, NULL FROM w RETURNING id),
l AS (INSERT INTO {_LEDGER} (account_id, amount, kind, bet_id, round_id, version, memo, created_at)
      SELECT %(wallet)s, -%(amount)s, 'bet', b.id, {_ENTRY} UNION ALL SELECT %(house)s, %(amount)s, 'bet', b.id, {_ENTRY})
SELECT b.id, w.balance FROM b, w"""


def bet_write(*, round_id: int, player, wallet: Account, house: Account, spot: str, amount: Decimal,
              idempotency_key: str | None) -> tuple[Bet, Decimal]:
    """Write the bet and debit its stake. Returns (the bet, the wallet's new balance)."""
    now = timezone.now()
    values = [round_id, player.pk, wallet.pk, spot, to_minor(amount), Bet.Status.OPEN.value, 0, idempotency_key,
              connection.ops.adapt_datetimefield_value(now), None]
    if connection.vendor != "postgresql":
        bet = _bet(sql.fetch_one(INSERT_BET, values)[0], values, player)
        return bet, post(wallet=wallet, counter=house, amount=-amount, kind=LedgerEntry.Kind.BET, bet=bet, round_id=round_id,
                         allow_overdraft=False)
    row = sql.fetch_one(PLACE, {"round": round_id, "player": player.pk, "wallet": wallet.pk, "house": house.pk,
                                "spot": spot, "amount": to_minor(amount), "key": idempotency_key, "now": now})
    if row is None:
        raise ApplicationError("Not enough chips for this bet.", code="insufficient_funds", status=400,
                               fields={"amount": [f"Your balance is {wallet_balance_now(wallet)}."]})
    return _bet(row[0], values, player), from_minor(row[1])


def _bet(bet_id: int, values: list, player) -> Bet:
    bet = sql.instance(Bet, BET_FIELDS, [bet_id, *values])
    bet.player = player
    return bet
