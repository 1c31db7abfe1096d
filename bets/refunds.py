"""Refunds of a voided round: every open or settled bet gets its stake back and every win is
reversed, set-based and exactly once (the round's lock and status, plus the ledger's unique keys)."""
from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from studio.money import from_minor
from tables import hooks, stream
from tables.events import BetRefunded
from tables.locking import Held
from tables.models import Round

from . import seamless
from .ledger import BET, house_account, round_entries, wallets_lock
from .models import Bet, LedgerEntry
from .settlement import reverse_wins

REFUNDABLE = (Bet.Status.OPEN, Bet.Status.WON, Bet.Status.LOST)


def round_refund_lock(rnd: Round) -> bool:
    """The wallets a void of the round moves, in id order, for tables.locking.lock_round: whether one
    is a seamless player's."""
    with connection.cursor() as cur:
        return wallets_lock(cur, round_id=rnd.pk, statuses=REFUNDABLE)


def round_refund_all(held: Held, *, version: int) -> dict:
    """Refund the round's bets as ledger entries of `version`. The caller holds the round's locks
    with its wallets' (lock_round with round_refund_lock) and moves the round to `voided` in the
    same transaction. Returns the totals refunded."""
    rnd = held.round
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    house = house_account(rnd.settings["currency"])
    has_seamless = bool(held.wallets)
    if rnd.status == Round.Status.SETTLED:  # its bets still as settled: reactions take the settlement back
        hooks.round_unsettling.send(sender=Round, rnd=rnd, seamless=has_seamless)
    with connection.cursor() as cur:
        reverse_wins(cur, round_id=rnd.pk, house_id=house.pk, version=version, now=now)
        round_entries(cur, round_id=rnd.pk, kind=LedgerEntry.Kind.REFUND, credit="amount", statuses=REFUNDABLE, house_id=house.pk,
                      version=version, now=now, memo="round refunded")
    if has_seamless:  # the operators get the stakes back (and the winnings back from them): rollbacks, through the outbox
        if rnd.status == Round.Status.SETTLED:
            seamless.credits_rollback(rnd=rnd, version=version)
        seamless.debits_rollback(rnd=rnd, version=version, statuses=REFUNDABLE)
    with connection.cursor() as cur:
        cur.execute(f"SELECT COUNT(*), COALESCE(SUM(amount), 0) FROM {BET} WHERE round_id = %s AND status IN ('open', 'won', 'lost')", [rnd.pk])
        count, refunded = cur.fetchone()
        cur.execute(f"UPDATE {BET} SET status = 'refunded', payout = amount, settled_at = %s "
                    f"WHERE round_id = %s AND status IN ('open', 'won', 'lost')", [now, rnd.pk])
    round_id = rnd.pk
    transaction.on_commit(lambda: notify_refunds(round_id=round_id))
    return {"bets": count, "refunded": str(from_minor(refunded))}


def notify_refunds(*, round_id: int) -> int:
    """After commit: each affected player's refunds and new balance, one personal message each."""
    per_player: dict[int, dict] = {}
    rows = Bet.objects.filter(round_id=round_id, status=Bet.Status.REFUNDED).values_list(
        "player_id", "id", "spot", "amount", "account__balance", "account__operator_id")
    for player_id, bet_id, spot, amount, balance, operator_id in rows.iterator(chunk_size=5000):
        shown = None if operator_id is not None else str(balance)  # a seamless player's balance is the operator's
        entry = per_player.setdefault(player_id, {"round": round_id, "bets": [], "refunded": 0, "balance": shown})
        entry["bets"].append({"bet": bet_id, "spot": spot, "amount": str(amount), "status": "refunded"})
        entry["refunded"] += amount
    events = [(pid, BetRefunded(**{**e, "refunded": str(e["refunded"])})) for pid, e in per_player.items()]
    stream.user_events(events)
    return len(events)
