"""What a bet is checked against, and the check: the round, the player's wallet and what they
already staked, read in one statement (`bet_context`), and every rule a bet must pass
(`bets_check`). bets.services places bets with them; bets.seamless checks an operator's player's
bets on a snapshot before it asks the operator for the money.

The bet path's locks are taken in one function, `bet_locks`: the round FOR SHARE (bets do not wait
for each other, but closing betting waits for the bets in flight), then the player's wallet FOR
UPDATE, the order of everywhere (round, then wallets by id). Every change to a player's bets in a
round locks their wallet, so the context read after the locks (a statement of its own: a
statement's snapshot is taken before it waits for a lock, and would miss a bet committed while it
waited) stays true until the bet is written in the same transaction. Without the locks
(`lock=False`) the read is a snapshot that serves only to refuse early, before an operator is asked
for money; the bet is checked again under the locks before it is written.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from django.utils import timezone

from engine import Side, offered_spots
from studio import sql
from studio.errors import InvalidInput, NotFound, WrongMoment, invalid
from studio.money import from_minor, parse_amount
from tables.access import require_round_visible
from tables.models import Round
from tables.selectors import round_config

from .ledger import ACCOUNT, BET, HOUSE_OF_WALLET, accounts_from_row, wallet_and_house
from .models import Account

MAIN = tuple(side.value for side in Side)  # the two main bets
MAX_AMOUNT = Decimal("1000000000000")  # far above any table limit, far below BIGINT hundredths

ROUND_FIELDS = ["id", "table_id", "status", "closes_at", "settings"]  # what betting needs of the round
_ROUND_COLUMNS = sql.columns(Round, ROUND_FIELDS, alias="r")
_ROUND_TABLE = Round._meta.db_table
ROUND_FOR_BETTING = f"SELECT {_ROUND_COLUMNS} FROM {_ROUND_TABLE} r WHERE r.id = %s FOR SHARE"
_MINE = f"FROM {BET} b WHERE b.round_id = r.id AND b.player_id = a.user_id AND b.status = 'open'"
_MAIN_SPOTS = ", ".join(f"'{side}'" for side in MAIN)  # from the engine (constants, not input)
# The round, the player's wallet (a) in its currency, the house, the player's open stake and main
# side, the wallet's operator. Parameters: the player's id, then the round's.
CONTEXT = (
    f"SELECT {_ROUND_COLUMNS}, a.id, a.balance, {HOUSE_OF_WALLET}, (SELECT COALESCE(SUM(b.amount), 0) {_MINE}), "
    f"(SELECT MIN(b.spot) {_MINE} AND b.spot IN ({_MAIN_SPOTS})), a.operator_id FROM {_ROUND_TABLE} r "
    f"JOIN {ACCOUNT} a ON a.kind = 'player' AND a.user_id = %s AND a.currency = r.settings->>'currency' WHERE r.id = %s")
# The round, then the player's wallet in its currency (PostgreSQL locks a joined row's marks in the
# order of the statement's tables). Parameters: the player's id, then the round's.
BET_LOCKS = (f"SELECT a.id FROM {_ROUND_TABLE} r JOIN {ACCOUNT} a ON a.kind = 'player' AND a.user_id = %s "
             f"AND a.currency = r.settings->>'currency' WHERE r.id = %s FOR SHARE OF r FOR UPDATE OF a")


@dataclass(frozen=True)
class BetContext:
    round: Round  # with ROUND_FIELDS loaded
    wallet: Account  # the player's wallet in the round's currency
    house: Account
    balance: Decimal  # the wallet's balance (what is left of it, as a repeat's bets are checked one by one)
    staked: Decimal  # the player's open bets in this round
    main_side: str | None  # "andar" or "bahar" if the player has an open bet on one
    operator_id: int | None = None  # the wallet's operator: a seamless player's money is at the operator


def lock_round_for_betting(round_id: int) -> Round:
    """The round's shared lock alone, as `bet_context` takes it (a match's Bet, before its players' rows)."""
    row = sql.fetch_one(ROUND_FOR_BETTING, [round_id])
    if row is None:
        raise NotFound("No such round.", code="not_found")
    return sql.instance(Round, ROUND_FIELDS, row)


def bet_locks(*, round_id: int, player) -> None:
    """The locks a bet is placed (or taken back) under, in the caller's transaction: the round's shared
    lock, then the player's wallet in the round's currency, made on a first bet in it. 404 without
    such a round."""
    if sql.fetch_one(BET_LOCKS, [player.pk, round_id]) is None:  # no such round, or a first bet in its currency
        rnd = lock_round_for_betting(round_id)
        wallet_and_house(user=player, currency=rnd.settings["currency"])  # made, and locked


def bet_context(*, round_id: int, player, lock: bool = True) -> BetContext | None:
    """Everything a bet is checked against, in one statement; 404 without such a round. With `lock`
    (in the caller's transaction) read under `bet_locks`. Without: a snapshot, None when the player
    has no wallet in the round's currency."""
    if lock:
        bet_locks(round_id=round_id, player=player)
    row = sql.fetch_one(CONTEXT, [player.pk, round_id])
    if row is None and not lock and not Round.objects.filter(pk=round_id).exists():
        raise NotFound("No such round.", code="not_found")
    return None if row is None or row[len(ROUND_FIELDS) + 2] is None else _context(row, player)


def _context(row, player) -> BetContext:
    n = len(ROUND_FIELDS)
    rnd = sql.instance(Round, ROUND_FIELDS, row[:n])
    wallet_id, balance, house_id, staked, main_side, operator_id = row[n:]
    wallet, house = accounts_from_row(user_id=player.pk, currency=rnd.settings["currency"], wallet_id=wallet_id,
                                      balance_minor=balance, house_id=house_id)
    wallet.operator_id = operator_id
    return BetContext(rnd, wallet, house, wallet.balance, from_minor(staked), main_side, operator_id)


# --- the rules ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Wanted:
    """A bet as asked for, before any check: the amount as it came (an API field, a repeat, a match's bet)."""
    round_id: int
    player: object
    spot: str
    amount: object
    idempotency_key: str | None = None
    via_match: bool = False


def bets_check(context: BetContext, wanted: list[Wanted]) -> list[Decimal]:
    """Every rule for each bet, each seeing the ones before it as staked: their stakes, or the
    first refusal."""
    stakes = []
    for item in wanted:
        stake = _check(context, item)
        stakes.append(stake)
        main = item.spot if item.spot in MAIN else None
        left = context.balance - stake if context.operator_id is None else context.balance
        context = replace(context, balance=left, staked=context.staked + stake, main_side=context.main_side or main)
    return stakes


def refuse_unless_taking_bets(rnd: Round) -> None:
    if rnd.status == Round.Status.BETTING and rnd.closes_at > timezone.now():
        return
    if rnd.status == Round.Status.PAUSED:
        message = "The round is paused; bets wait until it resumes."
    else:
        message = "Betting is closed for this round."
    raise WrongMoment(message, code="betting_closed", extra={"status": rnd.status})


def refuse_at_match_table(rnd: Round) -> None:
    if rnd.settings.get("match"):
        raise WrongMoment("At a match table, bets go through the match's Bet button, and once in they stay for the round.",
                          code="match_table")


def _amount(value, unit: Decimal) -> Decimal:
    """The amount of a bet, however it came (an API's field, a repeat, a match's Bet), by the one parser."""
    try:
        amount = parse_amount(value)
    except ValueError as exc:
        raise invalid("amount", str(exc)) from None
    if amount <= 0:
        raise invalid("amount", "The amount must be positive.")
    if amount > MAX_AMOUNT:
        raise invalid("amount", f"The amount is too large (at most {MAX_AMOUNT}).")
    if amount % unit != 0:
        raise invalid("amount", f"The amount must be a multiple of the chip unit ({unit}).", code="chip_unit",
                      extra={"chip_unit": str(unit)})
    return amount


def _check(context: BetContext, wanted: Wanted) -> Decimal:
    """Every rule a bet must pass, against what was read; the stake as a Decimal. A round of a
    private table is no round at all to an outsider (404); the match checks its own players."""
    rnd, balance, player, spot, via_match = context.round, context.balance, wanted.player, wanted.spot, wanted.via_match
    if not via_match:
        require_round_visible(rnd=rnd, user=player)
    refuse_unless_taking_bets(rnd)
    if not via_match:
        refuse_at_match_table(rnd)
    config = round_config(rnd)
    if spot not in offered_spots(config):
        raise invalid("spot", f"This table does not offer {spot!r}.", code="spot_not_offered", extra={"spot": spot})
    amount = _amount(wanted.amount, config.chip_unit)
    limits = rnd.settings
    if spot in MAIN and not limits["allow_both_sides"] and context.main_side not in (None, spot):
        raise invalid("spot", f"You already bet on {context.main_side.capitalize()}: one main side a round at this table.",
                      code="both_sides", extra={"side": context.main_side})
    seamless = context.operator_id is not None  # a seamless player's money is at the operator, which answers for it
    if not seamless and amount > balance:
        raise InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                           fields={"amount": [f"Your balance is {balance}."]}, extra={"balance": f"{balance:.2f}"})
    total = context.staked + amount
    max_bet, min_bet = Decimal(limits["max_bet"]), Decimal(limits["min_bet"])
    if total > max_bet:
        raise invalid("amount", f"At most {max_bet} a round at this table (you would stake {total}).", code="over_max_bet",
                      extra={"max_bet": f"{max_bet:.2f}", "would_stake": f"{total:.2f}"})
    if total < min_bet and (seamless or amount != balance):
        raise invalid("amount", f"At least {min_bet} a round at this table (or everything you have left).", code="under_min_bet",
                      extra={"min_bet": f"{min_bet:.2f}", "would_stake": f"{total:.2f}"})
    return amount
