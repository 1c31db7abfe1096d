"""What a bet is checked against: the round, the player's wallet and what they already staked, in
one statement. bets.services checks the rules against it and writes through bets.ledger.

A bet is the studio's most frequent request, and on this kind of machine each SQL statement costs
about a tenth of a millisecond of Python and as much of PostgreSQL, so the read is one SELECT: the
round, the player's wallet in the round's currency, the house account, and the player's open stake
and main side in the round. It comes two ways:

- locked (`locked=True`, inside a transaction): the round FOR SHARE (bets do not wait for each
  other, but closing betting waits for the bets in flight) and the wallet FOR UPDATE, the lock order
  of everywhere: the round, then the wallet. A first bet in a currency creates the accounts.
- unlocked (autocommit): the same row without locks, plus the wallet row's version
  (xmin). The write (bets.ledger.bet_stake with `seen`) then takes effect only if the round still
  takes bets and the wallet row is still that version. Every change to a player's bets in a round (a
  bet, a cancel, a refund, a settlement) changes their wallet, so an unchanged wallet means that the
  stake, the main side and the balance that were checked are still true. A refusal needs no second
  look: it was true of a consistent snapshot.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from studio import auth, sql
from studio.errors import NotFound
from studio.money import from_minor
from engine import Side
from accounts.models import Token
from tables.models import Round

from .ledger import ACCOUNT, BET, HOUSE_OF_WALLET, accounts_from_row, wallet_and_house
from .models import Account

ROUND_FIELDS = ["id", "table_id", "status", "closes_at", "settings"]  # what betting needs of the round
_ROUND_COLUMNS = sql.columns(Round, ROUND_FIELDS, alias="r")
_ROUND_TABLE = Round._meta.db_table
ROUND_FOR_BETTING = f"SELECT {_ROUND_COLUMNS} FROM {_ROUND_TABLE} r WHERE r.id = %s FOR SHARE"
_MINE = f"FROM {BET} b WHERE b.round_id = r.id AND b.player_id = a.user_id AND b.status = 'open'"
# The round, the player's wallet (a) in its currency, the house, the player's open stake and main side.
_MAIN_SPOTS = ", ".join(f"'{side.value}'" for side in Side)  # the two main bets, from the engine (constants, not input)
_CONTEXT_COLUMNS = (f"{_ROUND_COLUMNS}, a.id, a.balance, {HOUSE_OF_WALLET}, (SELECT COALESCE(SUM(b.amount), 0) {_MINE}), "
                    f"(SELECT MIN(b.spot) {_MINE} AND b.spot IN ({_MAIN_SPOTS})), a.operator_id")


def _wallet_join(user: str = "%s") -> str:
    return f"JOIN {ACCOUNT} a ON a.kind = 'player' AND a.user_id = {user} AND a.currency = r.settings->>'currency'"


def _unlocked(user: str = "%s") -> str:
    """The unlocked read: the context and the wallet row's version; the round's id a parameter."""
    return f"SELECT {_CONTEXT_COLUMNS}, a.xmin::text FROM {_ROUND_TABLE} r {_wallet_join(user)} WHERE r.id = %s"


_UNLOCKED = _unlocked()
# The locked read: its parameters are the player's id, then the round's.
LOCKED_CONTEXT = f"SELECT {_CONTEXT_COLUMNS} FROM {_ROUND_TABLE} r {_wallet_join()} WHERE r.id = %s FOR SHARE OF r FOR UPDATE OF a"


_CONTEXT_WIDTH = len(ROUND_FIELDS) + 7  # the context's columns and the wallet's version


@functools.cache
def _by_token() -> str:
    """The token (by key) with its expiry, its user with their roles, and that user's unlocked context
    in the round: one statement. The user's part comes whatever the round and the wallet (the
    context's columns are NULL when either is missing)."""
    columns, _ = auth.user_columns()
    names = ", ".join(f"c{i}" for i in range(_CONTEXT_WIDTH))
    context = _unlocked(user="u.id")
    return (f"SELECT {columns}, t.expires_at, x.* FROM {Token._meta.db_table} t JOIN {get_user_model()._meta.db_table} u "
            f"ON u.id = t.user_id LEFT JOIN LATERAL ({context}) AS x({names}) ON true WHERE t.key = %s")


def bet_context_by_token(*, key: str, round_id: int):
    """(the token's user with their roles, the token's expiry, the user's unlocked context
    in the round or None) in one statement, for the bet view's authentication (bets.auth); None when
    there is no such token. The context is None without a round or a wallet in its currency: the
    locked read then handles it."""
    row = sql.fetch_one(_by_token(), [round_id, key])
    if row is None:
        return None
    user = auth.user_from_row(row)
    width = len(auth.user_columns()[1]) + 1
    expires_at, rest = row[width], row[width + 1:]
    return user, expires_at, _seen(rest, user)


@dataclass
class BetContext:
    round: Round  # with ROUND_FIELDS loaded
    wallet: Account  # locked, or as seen
    house: Account
    staked: Decimal  # the player's open bets in this round
    main_side: str | None  # "andar" or "bahar" if the player has an open bet on one
    seen: str | None = None  # read unlocked: the wallet row's version (xmin)
    operator_id: int | None = None  # a seamless player's operator (bets.seamless): the money is at the operator


def lock_round_for_betting(round_id: int) -> Round:
    """The round's shared lock alone (a match's Bet, repeating bets), as the locked read takes it."""
    row = sql.fetch_one(ROUND_FOR_BETTING, [round_id])
    if row is None:
        raise NotFound("No such round.", code="not_found")
    return sql.instance(Round, ROUND_FIELDS, row)


def bet_context(*, round_id: int, player, locked: bool) -> BetContext | None:
    """Everything a bet is checked against, in one statement. Locked: 404 if there is no round, and
    the accounts made on a first bet in the currency. Unlocked: None when there is no such round or
    no wallet in its currency yet (the locked read handles both)."""
    n = len(ROUND_FIELDS)
    if not locked:
        return _seen(sql.fetch_one(_UNLOCKED, [player.pk, round_id]), player)
    row = sql.fetch_one(LOCKED_CONTEXT, [player.pk, round_id])
    if row is None or row[n + 2] is None:  # no such round, or a first bet in this currency: make the accounts, read again
        rnd = lock_round_for_betting(round_id)
        wallet_and_house(user=player, currency=rnd.settings["currency"])
        row = sql.fetch_one(LOCKED_CONTEXT, [player.pk, round_id])
    return _context(row, player)


def _seen(row, player) -> BetContext | None:
    """The context of an unlocked read's row; None without a round, a wallet or a house account (the
    locked read makes the accounts)."""
    if row is None or row[0] is None or row[len(ROUND_FIELDS) + 2] is None:
        return None
    return _context(row[:-1], player, seen=row[-1])


def _context(row, player, seen: str | None = None) -> BetContext:
    n = len(ROUND_FIELDS)
    rnd = sql.instance(Round, ROUND_FIELDS, row[:n])
    wallet_id, balance, house_id, staked, main_side, operator_id = row[n:]
    wallet, house = accounts_from_row(user_id=player.pk, currency=rnd.settings["currency"], wallet_id=wallet_id,
                                      balance_minor=balance, house_id=house_id)
    wallet.operator_id = operator_id
    return BetContext(rnd, wallet, house, from_minor(staked), main_side, seen, operator_id)
