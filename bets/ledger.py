"""Wallets and the double-entry ledger. Every chip moves here, and only here: this module is the one
writer of ledger rows, each movement a set of entries summing to zero.

Player wallets keep a materialised balance (changed in the same statement batch as their entries,
under the wallet's row lock). The house and the mint are hot accounts shared by every bet, so they
keep no materialised balance: theirs is the sum of their entries (see `account_balance`).

Three kinds of writers:
- `post`: one movement between a wallet and the house or the mint (issuing chips, taking a bet back).
- `bet_stake`: a new bet and its stake's entries, all or nothing, in one statement (data-modifying
  CTEs), the debit of the studio's wallet conditional on its balance; for an operator's seamless
  player the stake comes from the operator's account instead (their wallet is a pass-through).
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

from .models import Account, Bet, LedgerEntry

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
# The wallet moved (its debit conditional on the balance), then the bet and its entries inserted only
# if it moved: data-modifying CTEs, one statement, all or nothing. The entries come as three arrays.
STAKE = f"""
WITH w AS (UPDATE {ACCOUNT} SET balance = balance - %(debit)s WHERE id = %(wallet)s AND balance >= %(debit)s RETURNING balance),
b AS (INSERT INTO {BET} ({_BET_COLUMNS})
      SELECT %(round)s, %(player)s, %(wallet)s, %(spot)s, %(amount)s, 'open', 0, %(key)s, %(now)s, NULL FROM w RETURNING id),
l AS (INSERT INTO {LEDGER} ({_ENTRY_COLUMNS})
      SELECT e.account, e.amount, e.kind, b.id, %(round)s, 0, '', %(now)s
      FROM b, unnest(%(accounts)s::bigint[], %(amounts)s::bigint[], %(kinds)s::text[]) AS e(account, amount, kind))
SELECT b.id, w.balance FROM b, w"""


def bet_stake(*, round_id: int, player, wallet: Account, house: Account, spot: str, amount: Decimal,
              idempotency_key: str | None, operator: Account | None = None) -> tuple[Bet, Decimal]:
    """Write a checked bet: (the bet, the wallet's balance after it), in one statement. From the
    studio's wallet (`operator` None) the stake goes from the wallet to the house, and a stake the
    wallet cannot cover is refused with nothing written. From an operator's money (`operator`: that
    operator's account, the operator having confirmed its debit) the stake goes from the operator's
    account through the player's wallet to the house: two pairs of entries, the wallet's balance
    unchanged. The caller holds the round's shared lock and the wallet's lock (bets.placing) and
    checked the rules."""
    require_transaction("a bet's stake")
    now = timezone.now()
    minor = to_minor(amount)
    if operator is None:
        debit, entries = minor, [(wallet.pk, -minor, K.BET), (house.pk, minor, K.BET)]
    else:
        debit, entries = 0, [(wallet.pk, minor, K.OP_DEBIT), (operator.pk, -minor, K.OP_DEBIT),
                             (wallet.pk, -minor, K.BET), (house.pk, minor, K.BET)]
    accounts, amounts, kinds = (list(column) for column in zip(*entries))
    row = sql.fetch_one(STAKE, {"round": round_id, "player": player.pk, "wallet": wallet.pk, "spot": spot, "amount": minor,
                                "key": idempotency_key, "now": now, "debit": debit, "accounts": accounts, "amounts": amounts,
                                "kinds": [str(k) for k in kinds]})
    if row is None:
        raise _not_enough(wallet)
    values = [round_id, player.pk, wallet.pk, spot, minor, Bet.Status.OPEN.value, 0, idempotency_key,
              connection.ops.adapt_datetimefield_value(now), None]
    bet = sql.instance(Bet, BET_FIELDS, [row[0], *values])
    bet.player = player
    return bet, from_minor(row[1])


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
