"""Keeping the rollups exact: every change to a round's figures is one upsert of deltas, in the
transaction of the change, through the hooks of tables.hooks.

- a settlement (or a re-settlement) adds the round: rounds, cards, times, players, and its bets
  grouped by spot in SQL (one INSERT ... SELECT ... ON CONFLICT DO UPDATE, whatever the number of bets);
- before a settled round is re-settled or voided, the same statement with every figure negated takes
  the settlement back (its bets are still as settled then), so a re-settlement ends with the new
  figures only;
- a void counts one void, an incident one incident, on the round's row.

A round's figures are placed by its table, the UTC hour it opened in, its dealer, its shift and its
rules (the engine's part of its settings snapshot, named by `rules_key` and kept once in a Rules
row), all fixed when it opens: the reversal always meets the row the settlement wrote.
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection
from django.db.models import Max

from bets.models import Account, Bet
from bets.settlement import bet_figures
from engine.config import rules_of
from tables.models import DealtCard, Round
from tables.selectors import round_multiplied

from .models import ROUND_FIGURES, WHOLE_ROUND, OperatorRollup, Rollup, RollupDay, Rules

ROLLUP = Rollup._meta.db_table
BET = Bet._meta.db_table
COUNTERS = ROUND_FIGURES
KEY = "table_id, hour, COALESCE(dealer_id, 0), COALESCE(shift_id, 0), rules, spot, multiplier"  # the expressions of the rollup_key index
_INSERT = f"INSERT INTO {ROLLUP} (table_id, hour, dealer_id, shift_id, rules, spot, multiplier, {', '.join(COUNTERS)}) "
_UPSERT = f" ON CONFLICT ({KEY}) DO UPDATE SET " + ", ".join(f"{c} = {ROLLUP}.{c} + excluded.{c}" for c in COUNTERS)
_PLACE = "CAST(%(table)s AS BIGINT), %(hour)s, CAST(%(dealer)s AS BIGINT), CAST(%(shift)s AS BIGINT), %(rules)s"
_SETTLED = f"{BET} WHERE round_id = %(round)s AND status IN ('won', 'lost')"

# The round's settled bets per spot and its players, in one scan: a row per spot, and the whole
# round's (spot NULL) with the number of players. The settlement reads the same figures from its own
# UPDATE (bets.settlement) and hands them over; a settlement taken back is read here.
BET_FIGURES = (f"SELECT spot, COUNT(*), COALESCE(SUM(amount), 0), COALESCE(SUM(payout), 0), COUNT(DISTINCT player_id) "
               f"FROM {_SETTLED} GROUP BY GROUPING SETS ((spot), ())")
_SPOTS = ("unnest(%(spots)s::text[], %(multipliers)s::smallint[], %(bets)s::bigint[], %(staked)s::bigint[], %(paid)s::bigint[]) "
          "AS s(spot, multiplier, n, staked, paid)")

# The round as a whole and each spot it was bet on, each figure times the sign.
SETTLEMENT = f"""{_INSERT}SELECT {_PLACE}, d.spot, d.multiplier, d.rounds, d.cards, d.card_ms, d.round_ms, 0, 0, d.players, d.n, d.staked, d.paid FROM (
  SELECT '' AS spot, CAST(1 AS SMALLINT) AS multiplier, %(rounds)s AS rounds, %(cards)s AS cards, %(card_ms)s AS card_ms,
         %(round_ms)s AS round_ms, %(players)s AS players, %(round_bets)s AS n, %(round_staked)s AS staked, %(round_paid)s AS paid
  UNION ALL
  SELECT s.spot, s.multiplier, 0, 0, 0, 0, 0, s.n, s.staked, s.paid FROM {_SPOTS}
) AS d WHERE 1 = 1 ORDER BY d.spot{_UPSERT}"""

# The same spots, on the round's day.
DAY = RollupDay._meta.db_table
DAY_SETTLEMENT = f"""INSERT INTO {DAY} (table_id, day, dealer_id, shift_id, rules, spot, multiplier, bets, stakes, payouts)
SELECT CAST(%(table)s AS BIGINT), %(day)s, CAST(%(dealer)s AS BIGINT), CAST(%(shift)s AS BIGINT), %(rules)s, s.spot, s.multiplier,
       s.n, s.staked, s.paid FROM {_SPOTS} ORDER BY s.spot
ON CONFLICT (table_id, day, COALESCE(dealer_id, 0), COALESCE(shift_id, 0), rules, spot, multiplier) DO UPDATE SET
  bets = {DAY}.bets + excluded.bets, stakes = {DAY}.stakes + excluded.stakes, payouts = {DAY}.payouts + excluded.payouts"""

# The settled bets of seamless operators' players, per operator (rounds with a seamless bet only).
OPERATOR_ROLLUP = OperatorRollup._meta.db_table
OPERATOR_SETTLEMENT = f"""INSERT INTO {OPERATOR_ROLLUP} (table_id, hour, operator_id, player_rounds, bets, stakes, payouts)
SELECT CAST(%(table)s AS BIGINT), %(hour)s, a.operator_id, %(sign)s * COUNT(DISTINCT b.player_id), %(sign)s * COUNT(*),
       %(sign)s * SUM(b.amount), %(sign)s * SUM(b.payout)
FROM {BET} b JOIN {Account._meta.db_table} a ON a.id = b.account_id
WHERE b.round_id = %(round)s AND b.status IN ('won', 'lost') AND a.operator_id IS NOT NULL GROUP BY a.operator_id ORDER BY a.operator_id
ON CONFLICT (table_id, hour, operator_id) DO UPDATE SET player_rounds = {OPERATOR_ROLLUP}.player_rounds + excluded.player_rounds,
  bets = {OPERATOR_ROLLUP}.bets + excluded.bets, stakes = {OPERATOR_ROLLUP}.stakes + excluded.stakes,
  payouts = {OPERATOR_ROLLUP}.payouts + excluded.payouts"""

# One figure of the round as a whole (a void, an incident).
COUNT = f"{_INSERT}SELECT {_PLACE}, '', 1, " + ", ".join(f"%({c})s" for c in COUNTERS) + f" WHERE 1 = 1{_UPSERT}"


def rules_key(config: dict) -> str:
    """The name of a set of rules (the engine's part of a round's settings): the first 16 hex
    digits of the SHA-256 of its canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(rules_of(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def round_rules(rnd: Round) -> str:
    """The key of the rules the round was played under, its Rules row stored if it is new (one
    INSERT ... ON CONFLICT DO NOTHING: a round's settlement costs the same whether its rules are new)."""
    config = rules_of(rnd.settings)
    key = rules_key(config)
    Rules.objects.bulk_create([Rules(key=key, config=config)], ignore_conflicts=True)
    return key


def round_hour(rnd: Round) -> datetime:
    return rnd.opened_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def round_day(rnd: Round) -> date:
    """The studio's (TIME_ZONE) day the round's hour starts in."""
    return round_hour(rnd).astimezone(ZoneInfo(settings.TIME_ZONE)).date()


def _place(rnd: Round) -> dict:
    return {"table": rnd.table_id, "hour": connection.ops.adapt_datetimefield_value(round_hour(rnd)),
            "day": connection.ops.adapt_datefield_value(round_day(rnd)), "dealer": rnd.dealer_id, "shift": rnd.shift_id,
            "rules": round_rules(rnd), "round": rnd.pk}


def _ms(start, end) -> int:
    return max(0, round((end - start).total_seconds() * 1000)) if start and end else 0


def round_figures(rnd: Round) -> dict:
    """The figures of the round as a whole that its rows hold (besides its bets)."""
    last_card = DealtCard.objects.filter(round_id=rnd.pk).aggregate(at=Max("dealt_at"))["at"]
    return {"rounds": 1, "cards": rnd.cards_dealt, "card_ms": _ms(rnd.closed_at, last_card), "round_ms": _ms(rnd.opened_at, rnd.finished_at)}


def rollup_settlement(*, rnd: Round, sign: int, figures: dict | None = None) -> None:
    """Add (sign 1) or take back (sign -1) the round's settlement: two statements (the hour's rows,
    the day's spots), from `figures` of its bets (bets.settlement.bet_figures) or, without them, one more reading them."""
    if sign not in (1, -1):
        raise ValueError(f"a settlement is added (1) or taken back (-1), not {sign!r}")
    if figures is None:
        with connection.cursor() as cur:
            cur.execute(BET_FIGURES, {"round": rnd.pk})
            figures = bet_figures(cur.fetchall())
    spots = sorted(figures["spots"].items())
    columns = list(zip(*(values for _, values in spots))) or [(), (), ()]
    multiplied = round_multiplied(rnd) or {}  # a spot's multiplier is the round's draw: a reversal meets the settlement's rows
    bets = {"spots": [spot for spot, _ in spots], "multipliers": [multiplied.get(spot, 1) for spot, _ in spots], **{k: [sign * v for v in column] for k, column in zip(("bets", "staked", "paid"), columns)},
            "players": sign * figures["players"], **{f"round_{k}": sign * sum(column) for k, column in zip(("bets", "staked", "paid"), columns)}}
    place = _place(rnd)
    with connection.cursor() as cur:
        cur.execute(SETTLEMENT, {**place, **{k: sign * v for k, v in round_figures(rnd).items()}, **bets})
        cur.execute(DAY_SETTLEMENT, {**place, **bets})


def rebuild_days() -> int:
    """RollupDay afresh from Rollup, in the TIME_ZONE of now (after it changed): returns its rows."""
    day, params = connection.ops.datetime_cast_date_sql("hour", (), settings.TIME_ZONE)
    with connection.cursor() as cur:
        cur.execute(f"DELETE FROM {DAY}")
        cur.execute(f"INSERT INTO {DAY} (table_id, day, dealer_id, shift_id, rules, spot, multiplier, bets, stakes, payouts) "
                    f"SELECT table_id, {day}, dealer_id, shift_id, rules, spot, multiplier, SUM(bets), SUM(stakes), SUM(payouts) "
                    f"FROM {ROLLUP} WHERE spot <> '' GROUP BY 1, 2, 3, 4, 5, 6, 7", [*params])
        cur.execute(f"SELECT COUNT(*) FROM {DAY}")
        return cur.fetchone()[0]


def rollup_count(*, rnd: Round, **figures: int) -> None:
    """Add figures of the round as a whole (voids=1, incidents=1): one statement."""
    if not set(figures) <= set(COUNTERS):
        raise ValueError(f"not counters of a round: {sorted(set(figures) - set(COUNTERS))}")
    with connection.cursor() as cur:
        cur.execute(COUNT, {**_place(rnd), **{c: figures.get(c, 0) for c in COUNTERS}})


# --- the hooks' receivers (reports.apps) -------------------------------------------------------

def rollup_operators(*, rnd: Round, sign: int) -> None:
    """Add (sign 1) or take back (sign -1) the round's seamless bets per operator: one statement."""
    with connection.cursor() as cur:
        cur.execute(OPERATOR_SETTLEMENT, {"table": rnd.table_id, "hour": connection.ops.adapt_datetimefield_value(round_hour(rnd)),
                                          "round": rnd.pk, "sign": sign})


def on_round_settled(sender, *, rnd: Round, seamless: bool = False, figures: dict | None = None, **kwargs) -> None:
    """tables.hooks.round_settled: a settlement or a re-settlement wrote the bets' results (and
    read their figures on the way)."""
    rollup_settlement(rnd=rnd, sign=1, figures=figures)
    if seamless:
        rollup_operators(rnd=rnd, sign=1)


def on_round_unsettling(sender, *, rnd: Round, seamless: bool = False, **kwargs) -> None:
    """tables.hooks.round_unsettling: a settled round's results are about to be reversed."""
    rollup_settlement(rnd=rnd, sign=-1)
    if seamless:
        rollup_operators(rnd=rnd, sign=-1)


def on_round_voided(sender, *, rnd: Round, **kwargs) -> None:
    rollup_count(rnd=rnd, voids=1)


def on_incident_raised(sender, *, rnd: Round, **kwargs) -> None:
    rollup_count(rnd=rnd, incidents=1)


__all__ = ["WHOLE_ROUND", "rebuild_days", "rollup_settlement", "rollup_count", "round_day", "round_figures", "round_hour",
           "round_rules", "rules_key"]
