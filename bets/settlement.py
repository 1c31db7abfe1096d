"""Settlement: a whole round paid at once, in a constant number of SQL statements, exactly once.

The rules engine says, for the round's outcome, what each offered spot pays (odds or a loss); the
database applies it to every bet of the round in one UPDATE, and bets.ledger credits the winners
set-based (one INSERT ... SELECT of their entries, one of the house's, one UPDATE ... FROM of their
wallets); the round's compare-and-set to `settled` makes a second settlement a no-op. Amounts are integer hundredths here (studio.money), so the arithmetic is exact:
payout = stake + floor(stake * odds / chip_unit) * chip_unit.
"""
from __future__ import annotations

from fractions import Fraction

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from studio import metrics
from studio.errors import NotFound, WrongMoment
from studio.money import from_minor, to_minor
from tables import hooks, stream
from tables.events import BetSettled, RoundSettled
from engine import spot_odds_for
from tables.locking import Held, lock_round
from tables.models import Round
from tables.selectors import applied_multiplier, multiplied_of, round_config, round_deal, round_multiplied, round_totals
from tables.transitions import transition_or_refuse

from . import seamless
from .ledger import BET, house_account, round_entries, wallets_lock
from .models import Bet, LedgerEntry

SETTLED = (Bet.Status.WON, Bet.Status.LOST)


def _payout_case(odds: dict[str, object], unit: int) -> tuple[str, str, list]:
    """SQL CASE expressions for status and payout of every spot that wins, with their parameters."""
    status_whens, payout_whens, params_status, params_payout = [], [], [], []
    for spot, spot_odds in odds.items():
        if spot_odds is None:
            continue
        frac = Fraction(spot_odds)
        status_whens.append("WHEN %s THEN 'won'")
        params_status.append(spot)
        payout_whens.append("WHEN %s THEN amount + ((amount * %s) / %s) * %s")
        params_payout += [spot, frac.numerator, frac.denominator * unit, unit]
    status_sql = f"CASE spot {' '.join(status_whens)} ELSE 'lost' END" if status_whens else "'lost'"
    payout_sql = f"CASE spot {' '.join(payout_whens)} ELSE 0 END" if payout_whens else "0"
    return status_sql, payout_sql, params_status + params_payout


def round_settle(*, round_id: int) -> bool:
    """Settle a finished round. Returns False (a no-op) when it is not `finished`: already settled,
    voided, or being settled by another process right now (which holds the round's lock)."""
    with transaction.atomic():
        try:
            held = lock_round(round_id, wallets=_settle_lock)
        except NotFound:
            return False
        if held.round.status != Round.Status.FINISHED:
            return False
        with connection.cursor() as cur:  # background work: its own statement limit, not a request's
            cur.execute("SELECT set_config('statement_timeout', %s, true)", [str(settings.SETTLE_STATEMENT_TIMEOUT_MS)])
        _settle(held, frm=Round.Status.FINISHED, action="settled")
        return True


def _settle_lock(rnd: Round) -> bool | None:
    """The wallets a settlement of the round moves (its open bets'), in id order, for
    tables.locking.lock_round: whether one is a seamless player's; None for a round not finished."""
    if rnd.status != Round.Status.FINISHED:
        return None
    with connection.cursor() as cur:
        return wallets_lock(cur, round_id=rnd.pk, statuses=(Bet.Status.OPEN,))


def round_resettle_lock(rnd: Round) -> bool | None:
    """The wallets a re-settlement of the round moves, in id order, for tables.locking.lock_round
    (a correction): whether one is a seamless player's; None for a round not settled."""
    if rnd.status != Round.Status.SETTLED:
        return None
    with connection.cursor() as cur:
        return wallets_lock(cur, round_id=rnd.pk, statuses=SETTLED)


def round_resettle(held: Held, *, actor=None) -> None:
    """Settle a settled round again after its cards were corrected: the previous wins are reversed
    and the bets settled afresh, with new entries of a new version (old entries are never edited).
    The caller holds the round's locks, its wallets' too (lock_round with round_resettle_lock)."""
    rnd = held.round
    if rnd.status != Round.Status.SETTLED:
        raise WrongMoment(f"Round {rnd.pk} is {rnd.status}: only a settled round is settled again.", code=f"round_{rnd.status}")
    version = rnd.settlement_version + 1
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    house = house_account(rnd.settings["currency"])
    has_seamless = bool(held.wallets)
    hooks.round_unsettling.send(sender=Round, rnd=rnd, seamless=has_seamless)  # the bets still as settled: reactions take them back
    with connection.cursor() as cur:
        reverse_wins(cur, round_id=rnd.pk, house_id=house.pk, version=version, now=now)
    if has_seamless:  # the operators' credits rolled back; new ones go with the new settlement
        seamless.credits_rollback(rnd=rnd, version=version)
    with connection.cursor() as cur:
        cur.execute(f"UPDATE {BET} SET status = 'open', payout = 0, settled_at = NULL WHERE round_id = %s AND status IN ('won', 'lost')", [rnd.pk])
    _settle(held, frm=Round.Status.SETTLED, action="resettled", actor=actor, version=version, has_seamless=has_seamless)


def reverse_wins(cur, *, round_id: int, house_id: int, version: int, now) -> None:
    """Take back every win of the round (kind `reversal`, one entry per bet, one for the house)."""
    round_entries(cur, round_id=round_id, kind=LedgerEntry.Kind.REVERSAL, credit="-payout", statuses=(Bet.Status.WON,), house_id=house_id,
                  version=version, now=now, memo="round payouts reversed")


def bet_figures(rows) -> dict:
    """Rows of (spot, bets, staked, paid, players), a row per spot and the whole round's with spot
    None (GROUPING SETS; amounts in hundredths), as the figures `round_settled` hands over:
    {"players": n, "spots": {spot: (bets, staked, paid)}}."""
    figures = {"players": 0, "spots": {}}
    for spot, n, staked, paid, players in rows:
        if spot is None:
            figures["players"] = players
        else:
            figures["spots"][spot] = (n, staked, paid)
    return figures


def _settle(held: Held, *, frm: str, action: str, actor=None, version: int | None = None, has_seamless: bool | None = None) -> None:
    """The bets settled, their wins credited, the round moved to settled. The caller holds the
    round's locks and the wallets of its open bets (`held.wallets`: whether one is a seamless
    player's), or of its settled ones for a re-settlement (`has_seamless`)."""
    rnd = held.round
    round_id = rnd.pk
    if has_seamless is None:
        has_seamless = bool(held.wallets)
    version = version or rnd.settlement_version + 1
    outcome = round_deal(rnd).outcome
    config = round_config(rnd)
    odds = spot_odds_for(config, outcome, round_multiplied(rnd))  # a re-settlement keeps the round's drawn multipliers
    unit = to_minor(config.chip_unit)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    house = house_account(rnd.settings["currency"])
    status_sql, payout_sql, case_params = _payout_case(odds, unit)
    with connection.cursor() as cur:
        # Every open bet settled, and what they add up to per spot and in players, read from the
        # UPDATE itself: the round's bets are scanned once (docs/PERFORMANCE.md, settlement).
        cur.execute(f"WITH u AS (UPDATE {BET} SET status = {status_sql}, payout = {payout_sql}, settled_at = %s "
                    f"WHERE round_id = %s AND status = 'open' RETURNING spot, amount, payout, player_id) "
                    f"SELECT spot, COUNT(*), COALESCE(SUM(amount), 0), COALESCE(SUM(payout), 0), COUNT(DISTINCT player_id) "
                    f"FROM u GROUP BY GROUPING SETS ((spot), ())", case_params + [now, round_id])
        figures = bet_figures(cur.fetchall())
        round_entries(cur, round_id=round_id, kind=LedgerEntry.Kind.WIN, credit="payout", statuses=(Bet.Status.WON,), house_id=house.pk,
                      version=version, now=now, memo="round payouts")
    per_spot = sorted((spot, *values) for spot, values in figures["spots"].items())
    count = sum(row[1] for row in per_spot)
    staked, paid = from_minor(sum(row[2] for row in per_spot)), from_minor(sum(row[3] for row in per_spot))
    # The chained settlement holds what the bets must add up to, in all and per spot, so that a bet or
    # a ledger entry edited behind the studio's back shows against it (docs/AUDIT.md, integrity.verify).
    data = {"version": version, "winner": outcome.winner.value, "bets": count, "staked": str(staked), "paid": str(paid),
            "spots": {spot: {"bets": n, "staked": str(from_minor(s)), "paid": str(from_minor(p))} for spot, n, s, p in per_spot}}
    if has_seamless:  # what came back to seamless players goes to their operators (credits, through the outbox), in the chain too
        data["operators"] = seamless.round_credits(rnd=rnd, version=version)
    transition_or_refuse(held, frm=frm, to=Round.Status.SETTLED, actor=actor, action=action, data=data,
                         settled_at=timezone.now(), settlement_version=version, bet_count=count, total_staked=staked, total_paid=paid)
    rnd.refresh_from_db()
    lag = (rnd.settled_at - rnd.finished_at).total_seconds() if frm == Round.Status.FINISHED and rnd.finished_at else None

    def counted(bets=count):
        metrics.BETS_SETTLED.inc(bets)
        if lag is not None:
            metrics.SETTLE_LAG.observe(lag)

    transaction.on_commit(counted)
    stream.table_event(held, RoundSettled(winner=rnd.winner, totals=round_totals(rnd), version=version))
    hooks.round_settled.send(sender=Round, rnd=rnd, seamless=has_seamless, figures=figures)
    transaction.on_commit(lambda: notify_players(round_id=round_id))


def notify_players(*, round_id: int) -> int:
    """After commit: each player's result of the round, as one personal `bet.settled` message."""
    per_player: dict[int, dict] = {}
    multiplied = multiplied_of(Round.objects.filter(pk=round_id).values_list("multipliers", flat=True).first())
    rows = Bet.objects.filter(round_id=round_id, status__in=[Bet.Status.WON, Bet.Status.LOST]).values_list(
        "player_id", "id", "spot", "amount", "status", "payout", "account__balance", "account__operator_id")
    for player_id, bet_id, spot, amount, status, payout, balance, operator_id in rows.iterator(chunk_size=5000):
        shown = None if operator_id is not None else str(balance)  # a seamless player's balance is the operator's
        entry = per_player.setdefault(player_id, {"round": round_id, "bets": [], "payout": 0, "staked": 0, "balance": shown})
        entry["bets"].append({"bet": bet_id, "spot": spot, "amount": str(amount), "status": status, "payout": str(payout),
                              **applied_multiplier(multiplied, spot, status)})
        entry["payout"] += payout
        entry["staked"] += amount
    events = []
    for player_id, entry in per_player.items():
        returned, staked = entry["payout"], entry["staked"]
        entry.update(payout=str(returned), returned=str(returned), staked=str(staked), net=str(returned - staked))
        events.append((player_id, BetSettled(**entry)))
    stream.user_events(events)
    return len(events)
