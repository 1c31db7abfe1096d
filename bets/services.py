"""Placing, taking back and repeating bets. Lock order everywhere: round, then wallets by id
(bets.placing.bet_locks takes a bet's locks).

A placing is one pass down: the player's kind of wallet (bets.wallets: the studio's ledger, or a
seamless operator's), what that wallet takes before the write (nothing for the studio's; the
debits at the operator, outside any transaction), then in one transaction one locked read of the
bet's context, one check of the rules, and one write per bet through the ledger."""
from __future__ import annotations

from decimal import Decimal

from django.db import IntegrityError, transaction

from studio import metrics
from studio.errors import ApplicationError, InvalidInput, NotFound, WrongMoment
from studio.money import parse_amount
from tables import stream
from tables.events import BetCancelled, BetPlaced
from tables.models import Round

from . import seamless
from .ledger import post
from .models import Bet, LedgerEntry
from .placing import Wanted, bet_context, bets_check, refuse_at_match_table, refuse_unless_taking_bets
from .wallets import Wallet, wallet_for


def bet_place(*, round_id: int, player, spot: str, amount, idempotency_key: str | None = None,
              via_match: bool = False) -> tuple[Bet, bool]:
    """Returns (bet, created), bet.balance being the wallet's balance after it (for an operator's
    seamless player, the operator's, as its debit answered). The same idempotency key returns the
    same bet (with the current balance), never a second debit. At a match table bets go through the
    match (matches.services.match_bet, in its transaction), which passes via_match."""
    wanted = Wanted(round_id, player, spot, amount, idempotency_key or None, via_match)
    try:
        replayed = _replay(wanted)
        if replayed is not None:
            return replayed, False
        try:
            return _bets_place(wallet_for(player=player, round_id=round_id), round_id=round_id, player=player, wanted=[wanted])[0], True
        except IntegrityError:
            replayed = _replay(wanted)  # the same key raced itself: the other request won
            if replayed is None:
                raise
            return replayed, False
    except ApplicationError as exc:
        metrics.BETS_REFUSED.labels(code=exc.code).inc()
        raise


def _bets_place(wallet: Wallet, *, round_id: int, player, wanted: list[Wanted]) -> list[Bet]:
    """Place `wanted` (all of one round, one player) from `wallet`, all or none."""
    if not wallet.studio and any(item.via_match for item in wanted):
        raise WrongMoment("Match tables are played with the studio's chips, not an operator's money.", code="match_table")
    receipts = wallet.debit(round_id=round_id, player=player, wanted=wanted)
    try:
        with transaction.atomic():
            context = bet_context(round_id=round_id, player=player)
            written = [wallet.stake(context=context, item=item, stake=stake, receipt=receipt)
                       for item, stake, receipt in zip(wanted, bets_check(context, wanted), receipts)]
    except Exception:  # a refusal under the locks, a lost race, a database error: nothing was written
        wallet.release(receipts)
        raise
    return [_placed(bet, balance) for bet, balance in written]


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


def _placed(bet: Bet, balance: Decimal) -> Bet:
    """A bet written: the player's `bet.placed` (built here only), counted, and its balance on the bet."""
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
        context = bet_context(round_id=bet.round_id, player=player)  # the bet path's locks: the round, then the wallet
        refuse_unless_taking_bets(context.round)
        refuse_at_match_table(context.round)
        if Bet.objects.filter(pk=bet.pk, status=Bet.Status.OPEN).update(status=Bet.Status.CANCELLED) != 1:
            raise WrongMoment("This bet was already taken back.", code="bet_not_open")
        wallet = context.wallet
        balance = post(wallet=wallet, counter=context.house, amount=bet.amount, kind=LedgerEntry.Kind.CANCEL, bet=bet,
                       round_id=bet.round_id)
        if wallet.operator_id is not None:  # the stake goes back to the operator (a rollback of its debit)
            seamless.bet_cancelled(bet=bet, wallet=wallet)
            balance = None
        stream.user_event(player.pk, BetCancelled(round=bet.round_id, bet=bet.pk, spot=bet.spot, amount=str(bet.amount),
                                                  balance=None if balance is None else str(balance)))
        return balance, wallet.currency


def bet_repeat(*, round_id: int, player) -> list[Bet]:
    """Place the player's bets of their previous round at this table again: all, or none."""
    table_id = Round.objects.filter(pk=round_id).values_list("table_id", flat=True).first()
    if table_id is None:
        raise NotFound("No such round.", code="not_found")
    previous = (Bet.objects.filter(player=player, round__table_id=table_id, round_id__lt=round_id)
                .exclude(status=Bet.Status.CANCELLED).order_by("-round_id").values_list("round_id", flat=True).first())
    if previous is None:
        raise WrongMoment("You have no previous bets at this table to repeat.", code="nothing_to_repeat")
    wanted = [Wanted(round_id, player, spot, amount) for spot, amount in
              Bet.objects.filter(player=player, round_id=previous).exclude(status=Bet.Status.CANCELLED).order_by("id").values_list("spot", "amount")]
    wallet = wallet_for(player=player, round_id=round_id)
    try:
        return _bets_place(wallet, round_id=round_id, player=player, wanted=wanted)
    except (InvalidInput, WrongMoment) as exc:
        if type(exc) not in (InvalidInput, WrongMoment):  # an operator's refusal says its own words
            raise
        raise type(exc)(f"Cannot repeat your last bets: {exc.message}", code=exc.code, fields=exc.fields, extra=exc.extra) from None
