"""Wallets and the double-entry ledger. Every chip moves here, and only here: this module is the one
writer of ledger rows, each movement a set of entries summing to zero.

Player wallets keep a materialised balance (changed in the same statement batch as their entries,
under the wallet's row lock). The house and the mint are hot accounts shared by every bet, so they
keep no materialised balance: theirs is the sum of their entries (see `account_balance`).

Three kinds of writers:
- `post`: one movement between a wallet and the house or the mint (issuing chips, taking a bet back).
- `bet_stake`: a new bet, its stake's debit and the BET pair, all or nothing, in one statement
  (data-modifying CTEs): the debit is conditional on the balance, and the bet and its entries are
  inserted only if the debit happened. With `seen` (a wallet row version read without locks) the
  statement takes effect only if the round still takes bets (its latest version, under the shared
  lock closing betting waits for) and the wallet row is still that version; otherwise it writes
  nothing and returns None.
- `round_entries`: set-based, a whole round at once (settlement, reversals, refunds): one entry per
  bet, one balancing entry for the house, and the wallets moved by the same sums, three statements
  whatever the number of bets. The unique keys (ledger_once_per_bet, ledger_once_per_round) make
  writing the same entries twice fail instead of paying twice.
"""
from __future__ import annotations

from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Sum
from django.utils import timezone

from studio import sql
from studio.errors import InvalidInput, require_transaction
from studio.money import from_minor, to_minor
from tables.models import Round

from .models import Account, Bet, LedgerEntry, WalletTransaction

K = LedgerEntry.Kind
ACCOUNT = Account._meta.db_table
LEDGER = LedgerEntry._meta.db_table
BET = Bet._meta.db_table
_ENTRY_COLUMNS = "account_id, amount, kind, bet_id, round_id, version, memo, created_at"
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
    if lock:
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
    require_transaction("a ledger movement")
    if wallet.kind != Account.Kind.PLAYER or counter.kind == Account.Kind.PLAYER:
        raise ValueError(f"a movement is between a player's wallet and a house, mint or operator account, "
                         f"not {wallet.kind} and {counter.kind}")
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
            raise _not_enough(wallet)
        cur.execute(f"INSERT INTO {LEDGER} ({_ENTRY_COLUMNS}) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s), (%s, %s, %s, %s, %s, %s, %s, %s)",
                    [wallet.pk, minor, kind, bet_id, round_id, version, memo, now,
                     counter.pk, -minor, kind, bet_id, round_id, version, memo, now])
    return from_minor(row[0])


def wallet_balance_now(wallet: Account) -> Decimal:
    return Account.objects.values_list("balance", flat=True).get(pk=wallet.pk)


def _not_enough(wallet: Account) -> InvalidInput:
    return InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                        fields={"amount": [f"Your balance is {wallet_balance_now(wallet)}."]})


# --- a bet's stake ---------------------------------------------------------------------------------

BET_FIELDS = ["id", "round_id", "player_id", "account_id", "spot", "amount", "status", "payout", "idempotency_key",
              "created_at", "settled_at"]
_BET_COLUMNS = sql.columns(Bet, BET_FIELDS[1:])  # all but the id
INSERT_BET = f"INSERT INTO {BET} ({_BET_COLUMNS}) VALUES ({', '.join(['%s'] * (len(BET_FIELDS) - 1))}) RETURNING id"
_STAKE_ENTRY = "%(round)s, 0, '', %(now)s FROM b"  # round_id, version, memo, created_at of both entries


def _stake_statement(round_cte: str = "", guard: str = "") -> str:
    return f"""
WITH {round_cte}w AS (UPDATE {ACCOUNT} SET balance = balance - %(amount)s WHERE id = %(wallet)s AND balance >= %(amount)s{guard} RETURNING balance),
b AS (INSERT INTO {BET} ({_BET_COLUMNS})
      SELECT %(round)s, %(player)s, %(wallet)s, %(spot)s, %(amount)s, 'open', 0, %(key)s, %(now)s, NULL FROM w RETURNING id),
l AS (INSERT INTO {LEDGER} ({_ENTRY_COLUMNS})
      SELECT %(wallet)s, -%(amount)s, 'bet', b.id, {_STAKE_ENTRY} UNION ALL SELECT %(house)s, %(amount)s, 'bet', b.id, {_STAKE_ENTRY})
SELECT b.id, w.balance FROM b, w"""


STAKE = _stake_statement()
STAKE_IF_UNCHANGED = _stake_statement(
    round_cte=f"r AS (SELECT 1 FROM {Round._meta.db_table} WHERE id = %(round)s AND status = 'betting' AND closes_at > %(now)s FOR SHARE),\n",
    guard=" AND xmin::text = %(seen)s AND EXISTS (SELECT 1 FROM r)")


def bet_stake(*, round_id: int, player, wallet: Account, house: Account, spot: str, amount: Decimal,
              idempotency_key: str | None, seen: str | None = None) -> tuple[Bet, Decimal] | None:
    """Write a checked bet and debit its stake: (the bet, the wallet's new balance). Without `seen`,
    under the wallet's lock (a debit the wallet cannot cover is refused). With `seen` (in autocommit):
    None, and nothing written, if the round stopped taking bets or the wallet changed."""
    now = timezone.now()
    minor = to_minor(amount)
    values = [round_id, player.pk, wallet.pk, spot, minor, Bet.Status.OPEN.value, 0, idempotency_key,
              connection.ops.adapt_datetimefield_value(now), None]
    params = {"round": round_id, "player": player.pk, "wallet": wallet.pk, "house": house.pk, "spot": spot, "amount": minor,
              "key": idempotency_key, "now": now}
    if seen is None:
        row = sql.fetch_one(STAKE, params)
        if row is None:
            raise _not_enough(wallet)
    else:
        row = sql.fetch_one(STAKE_IF_UNCHANGED, params | {"seen": seen})
        if row is None:
            return None
    return _bet(row[0], values, player), from_minor(row[1])


def _bet(bet_id: int, values: list, player) -> Bet:
    bet = sql.instance(Bet, BET_FIELDS, [bet_id, *values])
    bet.player = player
    return bet


# --- a whole round at once -------------------------------------------------------------------------

def wallets_lock(cur, *, round_id: int, statuses: tuple[str, ...]) -> bool:
    """Lock the wallets of the round's bets in `statuses`, in id order, as every other path locks them.
    Returns whether any of them is a seamless player's (bets.seamless then writes the operators'
    side), read by the same statement."""
    wallets = (f"SELECT id, operator_id FROM {ACCOUNT} WHERE id IN (SELECT account_id FROM {BET} WHERE round_id = %s "
               f"AND status IN {_literal(statuses)}) ORDER BY id")
    cur.execute(f"SELECT COALESCE(bool_or(w.operator_id IS NOT NULL), false) FROM ({wallets} FOR UPDATE) w", [round_id])
    return bool(cur.fetchone()[0])


def round_entries(cur, *, round_id: int, kind: str, credit: str, statuses: tuple[str, ...], house_id: int, version: int,
                  now, memo: str) -> None:
    """For every bet of the round in `statuses`: an entry of `kind` crediting its wallet with `credit`
    (a column expression of the bet: "payout", "-payout", "amount"); one house entry of minus their
    sum (with `memo`, if the sum is not zero); each wallet's balance moved by its bets' sum. Three
    statements. The caller holds the round's lock and the wallets' (`wallets_lock`)."""
    where = f"WHERE round_id = %s AND status IN {_literal(statuses)}"
    cur.execute(f"INSERT INTO {LEDGER} ({_ENTRY_COLUMNS}) "
                f"SELECT account_id, {credit}, %s, id, round_id, %s, '', %s FROM {BET} {where}", [kind, version, now, round_id])
    cur.execute(f"INSERT INTO {LEDGER} ({_ENTRY_COLUMNS}) "
                f"SELECT %s, -SUM({credit}), %s, NULL, %s, %s, %s, %s FROM {BET} {where} HAVING SUM({credit}) <> 0",
                [house_id, kind, round_id, version, memo, now, round_id])
    cur.execute(f"UPDATE {ACCOUNT} SET balance = {ACCOUNT}.balance + s.total FROM (SELECT account_id, SUM({credit}) AS total "
                f"FROM {BET} {where} GROUP BY account_id) AS s WHERE {ACCOUNT}.id = s.account_id", [round_id])


def _literal(statuses: tuple[str, ...]) -> str:
    unknown = [s for s in statuses if s not in Bet.Status.values]  # constants, never input
    if unknown:
        raise ValueError(f"not bet statuses: {unknown}")
    return "(" + ", ".join(f"'{s}'" for s in statuses) + ")"


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


# --- the seamless wallet (bets.seamless) -----------------------------------------------------------
# A seamless player's money stays at their operator. The studio's ledger still records every move:
# a confirmed debit brings the stake from the operator's account (kind `operator`, one per operator
# and currency) into the player's wallet and, in the same statement, on to the house as the bet; a
# settlement's credit takes what came back from the wallet to the operator's account, and rollbacks
# undo debits and credits the same way. So a seamless player's wallet is zero between rounds, and an
# operator account's balance is what that operator's players won from the house, net.

def operator_account(*, operator_id: int, currency: str) -> Account:
    account, _ = Account.objects.get_or_create(kind=Account.Kind.OPERATOR, operator_id=operator_id, currency=currency, user=None)
    return account


def seamless_wallet(*, user, operator_id: int, currency: str) -> Account:
    """The seamless player's wallet in `currency` (created, or taken over from no operator, when missing);
    the operator's and the house's accounts made on the way."""
    wallet, _ = Account.objects.get_or_create(kind=Account.Kind.PLAYER, user=user, currency=currency, defaults={"operator_id": operator_id})
    if wallet.operator_id != operator_id:
        Account.objects.filter(pk=wallet.pk).update(operator_id=operator_id)
        wallet.operator_id = operator_id
    operator_account(operator_id=operator_id, currency=currency)
    house_account(currency)
    return wallet


_SEAMLESS_STAKE_ENTRIES = (f"INSERT INTO {LEDGER} ({_ENTRY_COLUMNS}) VALUES "
                           + ", ".join(["(%s, %s, %s, %s, %s, 0, '', %s)"] * 4))


def seamless_stake(*, round_id: int, player, wallet: Account, house: Account, operator: Account, spot: str, amount: Decimal,
                   idempotency_key: str | None) -> Bet:
    """A bet whose stake the operator confirmed it debited: the bet, and the stake from the operator's
    account through the player's wallet to the house (two pairs of entries; the wallet's balance does
    not change). The caller holds the round's shared lock and the wallet's lock, and checked the rules."""
    require_transaction("a seamless stake")
    now = timezone.now()
    minor = to_minor(amount)
    values = [round_id, player.pk, wallet.pk, spot, minor, Bet.Status.OPEN.value, 0, idempotency_key,
              connection.ops.adapt_datetimefield_value(now), None]
    bet = _bet(sql.fetch_one(INSERT_BET, values)[0], values, player)
    at = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cur:
        # A new row version of the wallet, as every other change to the player's bets makes: an
        # unlocked bet that read the wallet before this one then writes nothing (seamless_stake_if_unchanged).
        cur.execute(f"UPDATE {ACCOUNT} SET balance = balance WHERE id = %s", [wallet.pk])
        cur.execute(_SEAMLESS_STAKE_ENTRIES, [
            wallet.pk, minor, K.OP_DEBIT, bet.pk, round_id, at, operator.pk, -minor, K.OP_DEBIT, bet.pk, round_id, at,
            wallet.pk, -minor, K.BET, bet.pk, round_id, at, house.pk, minor, K.BET, bet.pk, round_id, at])
    return bet


def seamless_round_moves(*, round_id: int, kind: str, version: int, moves: list[tuple[int, int, Decimal, int | None]], memo: str) -> None:
    """Moves between seamless wallets and their operators' accounts for a whole round (a settlement's
    credits, a void's or a re-settlement's rollbacks): `moves` are (wallet id, operator account id,
    amount into the wallet, bet id or None). One entry per move on its wallet, one per operator
    account for their sum (unique per round, kind and version, as the house's), and each wallet's
    balance moved by its sum. The caller holds the round's lock and the wallets'."""
    require_transaction("a round's seamless moves")
    moves = [m for m in moves if m[2] != 0]
    if not moves:
        return
    now = timezone.now()
    entries, per_operator, per_wallet = [], {}, {}
    for wallet_id, operator_id, amount, bet_id in moves:
        entries.append(LedgerEntry(account_id=wallet_id, amount=amount, kind=kind, bet_id=bet_id, round_id=round_id, version=version,
                                   memo="", created_at=now))
        per_operator[operator_id] = per_operator.get(operator_id, Decimal("0")) + amount
        per_wallet[wallet_id] = per_wallet.get(wallet_id, Decimal("0")) + amount
    entries += [LedgerEntry(account_id=op, amount=-total, kind=kind, round_id=round_id, version=version, memo=memo, created_at=now)
                for op, total in sorted(per_operator.items()) if total != 0]
    LedgerEntry.objects.bulk_create(entries)
    with connection.cursor() as cur:
        for wallet_id, total in sorted(per_wallet.items()):
            if total != 0:
                cur.execute(f"UPDATE {ACCOUNT} SET balance = balance + %s WHERE id = %s", [to_minor(total), wallet_id])


_WTX = WalletTransaction._meta.db_table
_SEAMLESS_ENTRY = "%(round)s, 0, '', %(now)s FROM b"
SEAMLESS_STAKE_IF_UNCHANGED = f"""
WITH r AS (SELECT 1 FROM {Round._meta.db_table} WHERE id = %(round)s AND status = 'betting' AND closes_at > %(now)s FOR SHARE),
d AS (SELECT id FROM {_WTX} WHERE id = %(debit)s AND status = 'pending' FOR UPDATE),
w AS (UPDATE {ACCOUNT} SET balance = balance WHERE id = %(wallet)s AND xmin::text = %(seen)s
      AND EXISTS (SELECT 1 FROM r) AND EXISTS (SELECT 1 FROM d) RETURNING id),
b AS (INSERT INTO {BET} ({_BET_COLUMNS})
      SELECT %(round)s, %(player)s, %(wallet)s, %(spot)s, %(amount)s, 'open', 0, %(key)s, %(now)s, NULL FROM w RETURNING id),
l AS (INSERT INTO {LEDGER} ({_ENTRY_COLUMNS})
      SELECT %(wallet)s, %(amount)s, 'op_debit', b.id, {_SEAMLESS_ENTRY} UNION ALL SELECT %(operator)s, -%(amount)s, 'op_debit', b.id, {_SEAMLESS_ENTRY}
      UNION ALL SELECT %(wallet)s, -%(amount)s, 'bet', b.id, {_SEAMLESS_ENTRY} UNION ALL SELECT %(house)s, %(amount)s, 'bet', b.id, {_SEAMLESS_ENTRY}),
u AS (UPDATE {_WTX} t SET status = 'ok', acknowledged_at = %(now)s, operator_balance = %(balance)s, bet_id = b.id FROM b
      WHERE t.id = %(debit)s RETURNING t.id)
SELECT b.id FROM b, u"""


def seamless_stake_if_unchanged(*, round_id: int, player, wallet: Account, house: Account, operator_account_id: int, spot: str,
                                amount: Decimal, idempotency_key: str | None, seen: str, debit_id: int,
                                operator_balance: Decimal | None) -> Bet | None:
    """In autocommit: seamless_stake in one statement, with the debit confirmed (pending to
    ok, its row locked first) and tied to the bet, if the round still takes bets and the wallet row
    is still the version `seen` when the rules were checked (as bet_stake's guard); otherwise
    nothing is written and None is returned (the caller takes the locked way)."""
    now = timezone.now()
    minor = to_minor(amount)
    params = {"round": round_id, "player": player.pk, "wallet": wallet.pk, "house": house.pk, "operator": operator_account_id,
              "spot": spot, "amount": minor, "key": idempotency_key, "now": now, "seen": seen, "debit": debit_id,
              "balance": to_minor(operator_balance) if operator_balance is not None else None}
    row = sql.fetch_one(SEAMLESS_STAKE_IF_UNCHANGED, params)
    if row is None:
        return None
    values = [round_id, player.pk, wallet.pk, spot, minor, Bet.Status.OPEN.value, 0, idempotency_key,
              connection.ops.adapt_datetimefield_value(now), None]
    return _bet(row[0], values, player)
