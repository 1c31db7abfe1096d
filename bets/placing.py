"""The SQL of placing a bet: what it reads (and locks), and what it writes. bets.services decides.

A bet is the studio's most frequent request, and on this kind of machine each SQL statement costs
about a tenth of a millisecond of Python and as much of PostgreSQL, so a bet makes two:

- `bet_context`: the round (FOR SHARE: bets do not wait for each other, but closing betting waits
  for the bets in flight), the player's wallet in the round's currency (FOR UPDATE), the house
  account, and the player's open stake and main side in the round, in one SELECT. The lock order
  is the same as everywhere: the round, then the wallet.
- `bet_write`: the bet row, the wallet's debit and the BET ledger pair, all or nothing. On
  PostgreSQL one statement (data-modifying CTEs): the debit is conditional on the balance, and the
  bet and its entries are inserted only if the debit happened. Elsewhere (SQLite, the embedded
  mode) the same three writes one after the other, through `ledger.post`.

On PostgreSQL, a bet sent on its own (an API call, not inside another transaction) first tries
without a transaction of its own: BEGIN and COMMIT are two more round trips, a quarter of a bet's
statements. `seen_context` reads the same row without locks, plus the wallet's row version (xmin);
the service checks the bet against it as usual; `bet_write_if_unchanged` then writes in one
autocommitted statement that takes effect only if the round still takes bets (under the same shared
lock, rechecked on the row's latest version) and the wallet row is still the version that was read.
Every change to a player's bets in a round (a bet, a cancel, a refund, a settlement) changes their
wallet, so an unchanged wallet means that the stake, the main side and the balance that were
checked are still true. If anything changed, the statement does nothing and the service places the
bet the locked way instead. A refusal needs no second look: it was true of a consistent snapshot.
`seen_context_by_token` is the same read for bets.fast, with the token's user and roles in it (an
unexpired token only).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from accounts.models import Token
from studio import auth, sql
from studio.errors import InvalidInput, NotFound
from studio.money import from_minor, to_minor
from tables.models import Round

from .ledger import HOUSE_OF_WALLET, accounts_from_row, post, wallet_and_house, wallet_balance_now
from .models import Account, Bet, LedgerEntry

BET_FIELDS = ["id", "round_id", "player_id", "account_id", "spot", "amount", "status", "payout", "idempotency_key",
              "created_at", "settled_at"]
_BET, _ACCOUNT, _LEDGER = Bet._meta.db_table, Account._meta.db_table, LedgerEntry._meta.db_table
ROUND_FIELDS = ["id", "table_id", "status", "closes_at", "settings"]  # what betting needs of the round
_ROUND_COLUMNS = sql.columns(Round, ROUND_FIELDS, alias="r")
_BET_COLUMNS = sql.columns(Bet, BET_FIELDS[1:])  # all but the id
_ROUND_TABLE = Round._meta.db_table
ROUND_FOR_BETTING = f"SELECT {_ROUND_COLUMNS} FROM {_ROUND_TABLE} r WHERE r.id = %s"
_MINE = f"FROM {_BET} b WHERE b.round_id = r.id AND b.player_id = a.user_id AND b.status = 'open'"
# The round, the player's wallet (a) in its currency, the house, the player's open stake and main side.
_CONTEXT_COLUMNS = (f"{_ROUND_COLUMNS}, a.id, a.balance, {HOUSE_OF_WALLET}, (SELECT COALESCE(SUM(b.amount), 0) {_MINE}), "
                    f"(SELECT MIN(b.spot) {_MINE} AND b.spot IN ('andar', 'bahar'))")
_PG_CURRENCY = "r.settings->>'currency'"


def _wallet_join(user: str, currency: str = _PG_CURRENCY) -> str:
    return f"JOIN {_ACCOUNT} a ON a.kind = 'player' AND a.user_id = {user} AND a.currency = {currency}"


_SEEN = f"SELECT {_CONTEXT_COLUMNS}, a.xmin::text FROM {_ROUND_TABLE} r {_wallet_join('%s')} WHERE r.id = %s"
INSERT_BET = f"INSERT INTO {_BET} ({_BET_COLUMNS}) VALUES ({', '.join(['%s'] * (len(BET_FIELDS) - 1))}) RETURNING id"
_ENTRY = "%(round)s, 0, '', %(now)s FROM b"  # round_id, version, memo, created_at of both entries


def _place_statement(round_cte: str = "", guard: str = "") -> str:
    return f"""
WITH {round_cte}w AS (UPDATE {_ACCOUNT} SET balance = balance - %(amount)s WHERE id = %(wallet)s AND balance >= %(amount)s{guard} RETURNING balance),
b AS (INSERT INTO {_BET} ({_BET_COLUMNS})
      SELECT %(round)s, %(player)s, %(wallet)s, %(spot)s, %(amount)s, 'open', 0, %(key)s, %(now)s, NULL FROM w RETURNING id),
l AS (INSERT INTO {_LEDGER} (account_id, amount, kind, bet_id, round_id, version, memo, created_at)
      SELECT %(wallet)s, -%(amount)s, 'bet', b.id, {_ENTRY} UNION ALL SELECT %(house)s, %(amount)s, 'bet', b.id, {_ENTRY})
SELECT b.id, w.balance FROM b, w"""


PLACE = _place_statement()
# The same write, only if the round still takes bets (its latest version, under the shared lock
# closing betting waits for) and the wallet row is still the version that was read.
PLACE_IF_UNCHANGED = _place_statement(
    round_cte=f"r AS (SELECT 1 FROM {_ROUND_TABLE} WHERE id = %(round)s AND status = 'betting' AND closes_at > %(now)s FOR SHARE),\n",
    guard=" AND xmin::text = %(seen)s AND EXISTS (SELECT 1 FROM r)")


@dataclass
class BetContext:
    round: Round  # with ROUND_FIELDS loaded
    wallet: Account  # locked (bet_context), or as seen (seen_context)
    house: Account
    staked: Decimal  # the player's open bets in this round
    main_side: str | None  # "andar" or "bahar" if the player has an open bet on one
    seen: str | None = None  # seen_context: the wallet row's version (xmin)


def lock_round_for_betting(round_id: int) -> Round:
    """The round's shared lock alone (a match's Bet, repeating bets): see `bet_context`."""
    for_share = " FOR SHARE" if connection.vendor == "postgresql" else ""
    row = sql.fetch_one(ROUND_FOR_BETTING + for_share, [round_id])
    if row is None:
        raise NotFound("No such round.", code="not_found")
    return sql.instance(Round, ROUND_FIELDS, row)


def context_statement() -> str:
    """`bet_context`'s SELECT for this database; its parameters are the player's id, then the round's."""
    if connection.vendor == "postgresql":
        return f"SELECT {_CONTEXT_COLUMNS} FROM {_ROUND_TABLE} r {_wallet_join('%s')} WHERE r.id = %s FOR SHARE OF r FOR UPDATE OF a"
    currency = "json_extract(r.settings, '$.currency')"
    return f"SELECT {_CONTEXT_COLUMNS} FROM {_ROUND_TABLE} r {_wallet_join('%s', currency)} WHERE r.id = %s"


@functools.cache
def _seen_by_token() -> str:
    columns, _ = auth.user_columns()
    # First: one row by the key, if it has not expired (an expired or revoked token finds nothing, and
    # bets.fast leaves the request to the DRF view, which answers the 401).
    token_user = f"(SELECT t.user_id FROM {Token._meta.db_table} t WHERE t.key = %s AND t.expires_at > now())"
    return (f"SELECT {columns}, {_CONTEXT_COLUMNS}, a.xmin::text FROM {_ROUND_TABLE} r {_wallet_join(token_user)} "
            f"JOIN {get_user_model()._meta.db_table} u ON u.id = a.user_id WHERE r.id = %s")


def bet_context(*, round_id: int, player) -> BetContext:
    """Everything a bet is checked against, locked, in one statement (404 if there is no round)."""
    statement = context_statement()
    row = sql.fetch_one(statement, [player.pk, round_id])
    n = len(ROUND_FIELDS)
    if row is None or row[n + 2] is None:  # no such round, or a first bet in this currency: make the accounts, read again
        rnd = lock_round_for_betting(round_id)
        wallet_and_house(user=player, currency=rnd.settings["currency"])
        row = sql.fetch_one(statement, [player.pk, round_id])
    return _context(row, player)


def seen_context(*, round_id: int, player) -> BetContext | None:
    """The same row without locks, with the wallet row's version (PostgreSQL, outside a transaction).
    None when there is no such round or no wallet in its currency yet: the locked way handles both."""
    row = sql.fetch_one(_SEEN, [player.pk, round_id])
    if row is None or row[len(ROUND_FIELDS) + 2] is None:
        return None
    return _context(row[:-1], player, seen=row[-1])


def seen_context_by_token(*, key: str, round_id: int):
    """(the token's user with its roles, as studio.auth reads them; `seen_context` for that user) in
    one statement, for bets.fast: None if the token (unexpired), the round or the wallet is not there."""
    row = sql.fetch_one(_seen_by_token(), [key, round_id])
    if row is None:
        return None
    user = auth.user_from_row(row)
    rest = row[len(auth.user_columns()[1]) + 1:]
    if rest[len(ROUND_FIELDS) + 2] is None:
        return None
    return user, _context(rest[:-1], user, seen=rest[-1])


def _context(row, player, seen: str | None = None) -> BetContext:
    n = len(ROUND_FIELDS)
    rnd = sql.instance(Round, ROUND_FIELDS, row[:n])
    wallet_id, balance, house_id, staked, main_side = row[n:]
    wallet, house = accounts_from_row(user_id=player.pk, currency=rnd.settings["currency"], wallet_id=wallet_id,
                                      balance_minor=balance, house_id=house_id)
    return BetContext(rnd, wallet, house, from_minor(staked), main_side, seen)


def bet_write(*, round_id: int, player, wallet: Account, house: Account, spot: str, amount: Decimal,
              idempotency_key: str | None) -> tuple[Bet, Decimal]:
    """Write the bet and debit its stake. Returns (the bet, the wallet's new balance)."""
    now = timezone.now()
    values = _values(round_id, player, wallet, spot, amount, idempotency_key, now)
    if connection.vendor != "postgresql":
        bet = _bet(sql.fetch_one(INSERT_BET, values)[0], values, player)
        return bet, post(wallet=wallet, counter=house, amount=-amount, kind=LedgerEntry.Kind.BET, bet=bet, round_id=round_id,
                         allow_overdraft=False)
    row = sql.fetch_one(PLACE, {"round": round_id, "player": player.pk, "wallet": wallet.pk, "house": house.pk,
                                "spot": spot, "amount": to_minor(amount), "key": idempotency_key, "now": now})
    if row is None:
        raise InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                               fields={"amount": [f"Your balance is {wallet_balance_now(wallet)}."]})
    return _bet(row[0], values, player), from_minor(row[1])


def bet_write_if_unchanged(*, context: BetContext, player, spot: str, amount: Decimal,
                           idempotency_key: str | None) -> tuple[Bet, Decimal] | None:
    """`bet_write` after `seen_context`, in one statement: None (and nothing written) if the round
    stopped taking bets or the wallet changed since it was read."""
    now = timezone.now()
    round_id, wallet = context.round.pk, context.wallet
    row = sql.fetch_one(PLACE_IF_UNCHANGED, {"round": round_id, "player": player.pk, "wallet": wallet.pk, "house": context.house.pk,
                                             "spot": spot, "amount": to_minor(amount), "key": idempotency_key, "now": now,
                                             "seen": context.seen})
    if row is None:
        return None
    return _bet(row[0], _values(round_id, player, wallet, spot, amount, idempotency_key, now), player), from_minor(row[1])


def _values(round_id: int, player, wallet: Account, spot: str, amount: Decimal, idempotency_key: str | None, now) -> list:
    """A new bet's BET_FIELDS but the id."""
    return [round_id, player.pk, wallet.pk, spot, to_minor(amount), Bet.Status.OPEN.value, 0, idempotency_key,
            connection.ops.adapt_datetimefield_value(now), None]


def _bet(bet_id: int, values: list, player) -> Bet:
    bet = sql.instance(Bet, BET_FIELDS, [bet_id, *values])
    bet.player = player
    return bet
