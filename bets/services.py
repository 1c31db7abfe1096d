"""Placing, taking back and repeating bets. Lock order everywhere: round, then wallets by id."""
from __future__ import annotations

from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from studio import metrics
from studio.errors import ApplicationError, InvalidInput, NotFound, WrongMoment, invalid
from studio.money import parse_amount
from tables import stream
from tables.events import BetCancelled, BetPlaced
from tables.access import require_round_visible
from engine import offered_spots
from tables.models import Round
from tables.selectors import round_config

from .ledger import post, wallet_and_house, wallet_get
from .models import Bet, LedgerEntry
from .placing import BetContext, bet_context, bet_write, bet_write_if_unchanged, lock_round_for_betting, seen_context

MAIN = ("andar", "bahar")
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


def bet_place(*, round_id: int, player, spot: str, amount, idempotency_key: str | None = None,
              via_match: bool = False, seen: BetContext | None = None) -> tuple[Bet, bool]:
    """Returns (bet, created), bet.balance being the wallet's balance after it. The same idempotency key
    returns the same bet, never a second debit.
    At a match table bets go through the match (matches.services.match_bet), which passes via_match.
    `seen`: the bet's context already read without locks (bets.fast reads it with the token)."""
    try:
        return _bet_place(round_id=round_id, player=player, spot=spot, amount=amount, idempotency_key=idempotency_key,
                          via_match=via_match, seen=seen)
    except ApplicationError as exc:
        metrics.BETS_REFUSED.labels(code=exc.code).inc()
        raise


def _bet_place(*, round_id: int, player, spot: str, amount, idempotency_key: str | None, via_match: bool,
               seen: BetContext | None) -> tuple[Bet, bool]:
    if idempotency_key:
        existing = Bet.objects.filter(player=player, idempotency_key=idempotency_key).first()
        if existing is not None:
            return _replay(existing, player, round_id, spot, amount), False
    try:
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            bet = _place_unlocked(round_id=round_id, player=player, spot=spot, amount=amount, idempotency_key=idempotency_key,
                                  via_match=via_match, seen=seen)
            if bet is not None:
                return bet, True
        with transaction.atomic():
            bet = _place(round_id=round_id, player=player, spot=spot, amount=amount, idempotency_key=idempotency_key, via_match=via_match)
            return bet, True
    except IntegrityError:
        if idempotency_key:  # the same key raced itself: the other request won
            existing = Bet.objects.filter(player=player, idempotency_key=idempotency_key).first()
            if existing is not None:
                return _replay(existing, player, round_id, spot, amount), False
        raise


def _replay(bet: Bet, player, round_id: int, spot: str, amount) -> Bet:
    try:
        same_amount = parse_amount(amount) == bet.amount
    except ValueError:
        same_amount = False
    if bet.round_id != int(round_id) or bet.spot != spot or not same_amount:
        raise WrongMoment("This Idempotency-Key was already used for another bet.", code="idempotency_key_reused")
    bet.balance = wallet_get(user=player).balance
    return bet


def _refuse_at_match_table(rnd: Round) -> None:
    if rnd.settings.get("match"):
        raise WrongMoment("At a match table, bets go through the match's Bet button, and once in they stay for the round.",
                               code="match_table")


def _place(*, round_id: int, player, spot: str, amount, idempotency_key: str | None, via_match: bool = False) -> Bet:
    """The locked way: the round (shared lock), then the wallet (locked), checked, written."""
    context = bet_context(round_id=round_id, player=player)
    amount = _check(context, player=player, spot=spot, amount=amount, via_match=via_match)
    bet, balance = bet_write(round_id=context.round.pk, player=player, wallet=context.wallet, house=context.house, spot=spot,
                             amount=amount, idempotency_key=idempotency_key or None)
    return _placed(bet, balance)


def _place_unlocked(*, round_id: int, player, spot: str, amount, idempotency_key: str | None, via_match: bool,
                    seen: BetContext | None) -> Bet | None:
    """Without a transaction of its own (bets.placing explains why and how): the bet, a refusal, or
    None when the locked way must decide (a first bet in the currency, or something changed)."""
    context = seen or seen_context(round_id=round_id, player=player)
    if context is None:
        return None
    amount = _check(context, player=player, spot=spot, amount=amount, via_match=via_match)
    written = bet_write_if_unchanged(context=context, player=player, spot=spot, amount=amount, idempotency_key=idempotency_key or None)
    return None if written is None else _placed(*written)


def _check(context: BetContext, *, player, spot: str, amount, via_match: bool) -> Decimal:
    """Every rule a bet must pass, against what was read; the amount as a Decimal. A round of a
    private table is no round at all to an outsider (404); the match checks its own players."""
    rnd, wallet = context.round, context.wallet
    if not via_match:
        require_round_visible(rnd=rnd, user=player)
    _refuse_unless_taking_bets(rnd)
    if not via_match:
        _refuse_at_match_table(rnd)
    config = round_config(rnd)
    if spot not in offered_spots(config):
        raise invalid("spot", f"This table does not offer {spot!r}.", code="spot_not_offered")
    amount = _amount(amount, config.chip_unit)
    limits = rnd.settings
    if spot in MAIN and not limits["allow_both_sides"] and context.main_side not in (None, spot):
        raise invalid("spot", f"You already bet on {context.main_side.capitalize()}: one main side a round at this table.",
                      code="both_sides")
    if amount > wallet.balance:
        raise InvalidInput("Not enough chips for this bet.", code="insufficient_funds",
                               fields={"amount": [f"Your balance is {wallet.balance}."]})
    total = context.staked + amount
    max_bet, min_bet = Decimal(limits["max_bet"]), Decimal(limits["min_bet"])
    if total > max_bet:
        raise invalid("amount", f"At most {max_bet} a round at this table (you would stake {total}).", code="over_max_bet")
    if total < min_bet and amount != wallet.balance:
        raise invalid("amount", f"At least {min_bet} a round at this table (or everything you have left).", code="under_min_bet")
    return amount


def _placed(bet: Bet, balance: Decimal) -> Bet:
    stream.user_event(bet.player_id, BetPlaced(round=bet.round_id, bet=bet.pk, spot=bet.spot, amount=f"{bet.amount:.2f}",
                                               balance=str(balance)))
    bet.balance = balance
    transaction.on_commit(metrics.BETS_ACCEPTED.inc)  # at once outside a transaction
    return bet


def bet_cancel(*, bet_id: int, player) -> Decimal:
    """Take a bet back while betting is open; its stake returns. Returns the new balance."""
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
        stream.user_event(player.pk, BetCancelled(round=rnd.pk, bet=bet.pk, spot=bet.spot, amount=str(bet.amount), balance=str(balance)))
        return balance


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
        placed = []
        for spot, amount in wanted:
            try:
                placed.append(_place(round_id=rnd.pk, player=player, spot=spot, amount=amount, idempotency_key=None))
            except ApplicationError as exc:
                raise type(exc)(f"Cannot repeat your last bets ({spot} {amount}): {exc.message}", code=exc.code,
                                    fields=exc.fields) from None
        return placed
