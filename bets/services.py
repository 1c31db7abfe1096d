"""Placing, taking back and repeating bets. Lock order everywhere: round, then wallets by id."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from studio import metrics
from studio.errors import ApplicationError, InvalidInput, NotFound, WrongMoment, invalid
from studio.money import parse_amount
from tables import stream
from tables.events import BetCancelled, BetPlaced
from tables.access import require_round_visible
from engine import Side, offered_spots
from tables.models import Round
from tables.selectors import round_config

from . import seamless
from .ledger import bet_stake, post, wallet_and_house
from .models import Bet, LedgerEntry
from .placing import BetContext, bet_context, lock_round_for_betting

MAIN = tuple(side.value for side in Side)  # the two main bets
MAX_AMOUNT = Decimal("1000000000000")  # far above any table limit, far below BIGINT hundredths


def _refuse_unless_taking_bets(rnd: Round) -> None:
    if rnd.status == Round.Status.BETTING and rnd.closes_at > timezone.now():
        return
    if rnd.status == Round.Status.PAUSED:
        message = "The round is paused; bets wait until it resumes."
    else:
        message = "Betting is closed for this round."
    raise WrongMoment(message, code="betting_closed", extra={"status": rnd.status})


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
        raise invalid("amount", f"The amount must be a multiple of the chip unit ({unit}).", code="chip_unit")
    return amount


@dataclass(frozen=True, slots=True)
class Wanted:
    """A bet as asked for, before any check: the amount as it came (an API field, a repeat, a match's bet)."""
    round_id: int
    player: object
    spot: str
    amount: object
    idempotency_key: str | None = None
    via_match: bool = False
    seen: BetContext | None = None  # the unlocked context, when the caller read it already (bets.auth)


def bet_place(*, round_id: int, player, spot: str, amount, idempotency_key: str | None = None,
              via_match: bool = False, seen: BetContext | None = None) -> tuple[Bet, bool]:
    """Returns (bet, created), bet.balance being the wallet's balance after it. The same idempotency key
    returns the same bet (with the current balance), never a second debit. `seen`: the player's
    context in this round as read without locks with their token (bets.auth), in place of the
    unlocked read. At a match table bets go through the match (matches.services.match_bet), which
    passes via_match."""
    if seen is not None and (seen.round.pk != int(round_id) or seen.wallet.user_id != player.pk):
        seen = None  # not this bet's: read it here
    wanted = Wanted(round_id, player, spot, amount, idempotency_key or None, via_match, seen)
    try:
        return _bet_place(wanted)
    except ApplicationError as exc:
        metrics.BETS_REFUSED.labels(code=exc.code).inc()
        raise


def _bet_place(wanted: Wanted) -> tuple[Bet, bool]:
    replayed = _replay(wanted)
    if replayed is not None:
        return replayed, False
    try:
        if _optimistic(wanted):
            placed = _place(wanted, locked=False)
            if placed is not None:
                return placed, True
        with transaction.atomic():
            return _place(wanted, locked=True), True
    except _Seamless as seamless_player:
        return seamless.bets_place(player=wanted.player, round_id=wanted.round_id, wanted=[wanted], check=_check,
                                   context=seamless_player.context)[0], True
    except IntegrityError:
        replayed = _replay(wanted)  # the same key raced itself: the other request won
        if replayed is None:
            raise
        return replayed, False


def _optimistic(wanted: Wanted) -> bool:
    """The concurrency strategy, chosen here and nowhere else. A bet on its own (an API call, not
    inside another transaction) is read without locks and written in one guarded, autocommitted
    statement: BEGIN and COMMIT would be two more round trips, and the locks would be held across
    them. Everything else is locked: a match's bets and repeats (several bets, all or none, in the
    caller's transaction), and an optimistic bet whose round or wallet changed between its read and
    its write."""
    return not wanted.via_match and not connection.in_atomic_block


def _place(wanted: Wanted, *, locked: bool) -> Bet | None:
    """One read of the bet's context, one check of the rules, one write through the ledger. The
    placed bet (with .balance), a refusal, or (unlocked only) None: the locked way must decide (a
    first bet in the currency, or something changed since the read)."""
    if not locked and wanted.seen is not None:
        context = wanted.seen
    else:
        context = bet_context(round_id=wanted.round_id, player=wanted.player, locked=locked)
    if context is None:
        return None
    if context.operator_id is not None:
        if wanted.via_match:
            raise WrongMoment("Match tables are played with the studio's chips, not an operator's money.", code="match_table")
        raise _Seamless(context)  # (locked: rolls its transaction back) the operator's money, placed by bets.seamless
    stake = _check(context, wanted)
    written = bet_stake(round_id=context.round.pk, player=wanted.player, wallet=context.wallet, house=context.house,
                        spot=wanted.spot, amount=stake, idempotency_key=wanted.idempotency_key, seen=context.seen)
    return None if written is None else _placed(*written)


class _Seamless(Exception):
    """The player bets with an operator's money: their bets go through bets.seamless, outside any transaction."""

    def __init__(self, context: BetContext):
        super().__init__("seamless")
        self.context = context


def _replay(wanted: Wanted) -> Bet | None:
    """The bet already placed with this idempotency key, if any, with the balance of the wallet it
    was placed from (the table's currency): that wallet's balance now; for an operator's seamless
    player, the operator's balance after its debit, as the first answer said (bets.seamless)."""
    if not wanted.idempotency_key:
        return None
    bet = Bet.objects.select_related("account").filter(player=wanted.player, idempotency_key=wanted.idempotency_key).first()
    if bet is None:
        return None
    try:
        same_amount = parse_amount(wanted.amount) == bet.amount
    except ValueError:
        same_amount = False
    if bet.round_id != int(wanted.round_id) or bet.spot != wanted.spot or not same_amount:
        raise WrongMoment("This Idempotency-Key was already used for another bet.", code="idempotency_key_reused")
    bet.balance = bet.account.balance if bet.account.operator_id is None else seamless.debit_balance(bet=bet)
    return bet


def _refuse_at_match_table(rnd: Round) -> None:
    if rnd.settings.get("match"):
        raise WrongMoment("At a match table, bets go through the match's Bet button, and once in they stay for the round.",
                               code="match_table")


def _check(context: BetContext, wanted: Wanted) -> Decimal:
    """Every rule a bet must pass, against what was read; the stake as a Decimal. A round of a
    private table is no round at all to an outsider (404); the match checks its own players."""
    rnd, wallet, player, spot, via_match = context.round, context.wallet, wanted.player, wanted.spot, wanted.via_match
    if not via_match:
        require_round_visible(rnd=rnd, user=player)
    _refuse_unless_taking_bets(rnd)
    if not via_match:
        _refuse_at_match_table(rnd)
    config = round_config(rnd)
    if spot not in offered_spots(config):
        raise invalid("spot", f"This table does not offer {spot!r}.", code="spot_not_offered")
    amount = _amount(wanted.amount, config.chip_unit)
    limits = rnd.settings
    if spot in MAIN and not limits["allow_both_sides"] and context.main_side not in (None, spot):
        raise invalid("spot", f"You already bet on {context.main_side.capitalize()}: one main side a round at this table.",
                      code="both_sides")
    if context.operator_id is None and amount > wallet.balance:  # a seamless player's money is at the operator (bets.seamless)
        raise InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                               fields={"amount": [f"Your balance is {wallet.balance}."]})
    total = context.staked + amount
    max_bet, min_bet = Decimal(limits["max_bet"]), Decimal(limits["min_bet"])
    if total > max_bet:
        raise invalid("amount", f"At most {max_bet} a round at this table (you would stake {total}).", code="over_max_bet")
    if total < min_bet and (context.operator_id is not None or amount != wallet.balance):
        raise invalid("amount", f"At least {min_bet} a round at this table (or everything you have left).", code="under_min_bet")
    return amount


def _placed(bet: Bet, balance: Decimal) -> Bet:
    stream.user_event(bet.player_id, BetPlaced(round=bet.round_id, bet=bet.pk, spot=bet.spot, amount=f"{bet.amount:.2f}",
                                               balance=str(balance)))
    bet.balance = balance
    transaction.on_commit(metrics.BETS_ACCEPTED.inc)  # at once outside a transaction
    return bet


def bet_cancel(*, bet_id: int, player) -> tuple[Decimal | None, str]:
    """Take a bet back while betting is open; its stake returns. Returns the wallet's new balance and
    its currency; the balance is None for an operator's seamless player, whose stake goes back to the
    operator (a rollback sent after commit): their balance is the operator's (GET /api/me/)."""
    with transaction.atomic():
        bet = Bet.objects.filter(pk=bet_id, player=player).select_related("account").first()
        if bet is None:
            raise NotFound("No such bet of yours.", code="not_found")
        rnd = lock_round_for_betting(bet.round_id)
        _refuse_unless_taking_bets(rnd)
        _refuse_at_match_table(rnd)
        wallet, house = wallet_and_house(user=player, currency=bet.account.currency)
        if Bet.objects.filter(pk=bet.pk, status=Bet.Status.OPEN).update(status=Bet.Status.CANCELLED) != 1:
            raise WrongMoment("This bet was already taken back.", code="bet_not_open")
        balance = post(wallet=wallet, counter=house, amount=bet.amount, kind=LedgerEntry.Kind.CANCEL, bet=bet, round_id=rnd.pk)
        if bet.account.operator_id is not None:  # the stake goes back to the operator (a rollback of its debit)
            wallet.operator_id = bet.account.operator_id
            seamless.bet_cancelled(bet=bet, wallet=wallet)
            balance = None
        stream.user_event(player.pk, BetCancelled(round=rnd.pk, bet=bet.pk, spot=bet.spot, amount=str(bet.amount),
                                                  balance=None if balance is None else str(balance)))
        return balance, wallet.currency


def bet_repeat(*, round_id: int, player) -> list[Bet]:
    """Place the player's bets of their previous round at this table again: all, or none."""
    with transaction.atomic():
        rnd = lock_round_for_betting(round_id)
        previous = (
            Bet.objects.filter(player=player, round__table_id=rnd.table_id, round_id__lt=rnd.pk)
            .exclude(status=Bet.Status.CANCELLED).order_by("-round_id").values_list("round_id", flat=True).first()
        )
        if previous is None:
            raise WrongMoment("You have no previous bets at this table to repeat.", code="nothing_to_repeat")
        wanted = list(Bet.objects.filter(player=player, round_id=previous).exclude(status=Bet.Status.CANCELLED)
                      .order_by("id").values_list("spot", "amount"))
        seamless_player = Bet.objects.filter(player=player, round_id=previous, account__operator__isnull=False).exists()
    if seamless_player:  # each debit at the operator, outside the transaction; all or none
        return seamless.bets_place(player=player, round_id=rnd.pk, wanted=[Wanted(rnd.pk, player, s, a) for s, a in wanted], check=_check)
    with transaction.atomic():
        rnd = lock_round_for_betting(round_id)
        placed = []
        for spot, amount in wanted:
            try:
                placed.append(_place(Wanted(rnd.pk, player, spot, amount), locked=True))
            except ApplicationError as exc:
                raise type(exc)(f"Cannot repeat your last bets ({spot} {amount}): {exc.message}", code=exc.code,
                                    fields=exc.fields) from None
        return placed
