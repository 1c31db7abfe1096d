"""Benchmark: settle one round of 100,000 bets from 20,000 players on PostgreSQL.

Builds, set-based (COPY and INSERT ... SELECT), 20,000 players with wallets funded by ledger ISSUE
entries, then two identical rounds (opened, bets placed, betting closed and cards dealt through the
real services): every bet has its BET ledger pair and its wallet debit, exactly as bets.services
posts them. Round A is settled by the real bets.settlement.round_settle, round B by a naive
one-bet-at-a-time ORM settlement (bet_result, bet.save(), LedgerEntry.create, wallet save) on a
subset of its bets (--naive-bets), extrapolated to the whole round. After the real settlement the
ledger is checked: it sums to 0, every wallet equals the sum of its entries, every bet's payout is
the rules engine's.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_settle.py [--players 20000] [--bets-per-player 5] [--naive-bets 10000] [--multipliers] [--keep]

With --multipliers the table has random multipliers (MULTIPLIERS: two of three spots that win in
the deal drawn each round, x2 or x5), so the settlement pays multiplied winnings; its statements
are the same.

The settlement's after-commit notifications (one bet.settled message per player) go through the
Redis channel layer, after the commit the figure stops at; a sample of 200 Redis publishes is also
timed both ways a Celery worker could send them. Targets: 100,000 bets in under 2 s; at least 20x the
naive way.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_common import (  # noqa: E402
    make_dealer,
    CpuClock, add_common_arguments, copy_rows, create_database, django_setup, drop_database, ledger_checks, machine, make_players,
    pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, timed,
)

TARGET_SECONDS, TARGET_SPEEDUP = 2.0, 20.0
CHIPS = 1000  # each player's starting chips
# Worked example 2 of RULES.md: joker KS; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥: Andar wins on card 7,
# First 3 (K♠ A♣ Q♠) is a straight, card count 6-10 wins. Several kinds of spot win.
JOKER, DEAL = "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]
MULTIPLIERS = {"spots": ["andar", "first_three", "count_6_10"], "draws": 2, "values": [[2, 3], [5, 1]]}


def choose_bets(rng: random.Random, players: int, per_player: int, config) -> list[tuple[int, str, int]]:
    """(player index, spot, amount): one main side and side bets, at most the table's 500 a round."""
    from engine import offered_spots

    sides = [s for s in offered_spots(config) if s not in ("andar", "bahar")]
    bets = []
    for i in range(players):
        spots = [rng.choice(["andar", "bahar"])] + rng.sample(sides, per_player - 1)
        bets += [(i, spot, 10 * rng.randint(1, 10)) for spot in spots]
    return bets


def make_round(*, table, dealer, players, bets) -> int:
    """Open a round, place `bets` set-based (bets, BET ledger pairs, wallet debits), close, deal."""
    from django.db import connection, transaction
    from django.utils import timezone

    from bets.ledger import house_account
    from bets.models import Account, Bet, LedgerEntry
    from tables.services import card_deal, round_close_betting, round_open

    rnd = round_open(table_id=table.pk, joker=JOKER, dealer=dealer)
    now = timezone.now()
    house = house_account("CHIPS")
    B, L, A = Bet._meta.db_table, LedgerEntry._meta.db_table, Account._meta.db_table
    with transaction.atomic():
        copy_rows(B, ["round_id", "player_id", "account_id", "spot", "amount", "status", "payout", "created_at"],
                  ((rnd.pk, players[i][0], players[i][1], spot, amount * 100, "open", 0, now) for i, spot, amount in bets))
        with connection.cursor() as cur:
            cur.execute(f"INSERT INTO {L} (account_id, amount, kind, bet_id, round_id, version, memo, created_at) "
                        f"SELECT account_id, -amount, 'bet', id, round_id, 0, '', %s FROM {B} WHERE round_id = %s "
                        f"UNION ALL SELECT %s, amount, 'bet', id, round_id, 0, '', %s FROM {B} WHERE round_id = %s",
                        [now, rnd.pk, house.pk, now, rnd.pk])
            cur.execute(f"UPDATE {A} SET balance = {A}.balance - s.total FROM (SELECT account_id, SUM(amount) AS total "
                        f"FROM {B} WHERE round_id = %s GROUP BY account_id) AS s WHERE {A}.id = s.account_id", [rnd.pk])
    round_close_betting(round_id=rnd.pk, actor=dealer)
    for card in DEAL:
        _, match = card_deal(round_id=rnd.pk, card=card, actor=dealer)
    assert match, "the worked deal ends on its last card"
    with connection.cursor() as cur:  # fresh statistics, as autovacuum would give a table this size
        for name in (B, L, A):
            cur.execute(f"ANALYZE {name}")
    return rnd.pk


def settle_real(round_id: int) -> dict:
    """Time the real round_settle. An outer atomic block lets us stamp the commit: its first
    on-commit hook (ours) runs before the settlement's own hooks (the player notifications)."""
    from django.db import connection, transaction

    from bets.settlement import round_settle

    statements: list[tuple[float, str]] = []
    marks: list[float] = []

    def record(execute, sql, params, many, context):
        t = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if not marks:
                statements.append((time.perf_counter() - t, " ".join(sql.split())))

    clock = CpuClock()
    with connection.execute_wrapper(record):
        start = clock.read()
        with transaction.atomic():
            transaction.on_commit(lambda: marks.append(clock.read()))
            settled = round_settle(round_id=round_id)
            before_commit = time.perf_counter()
        end = time.perf_counter()
    assert settled, "round_settle returned False"
    (wall, py, pg), (wall0, py0, pg0) = marks[0], start
    return {"total": wall - wall0, "py_cpu": py - py0, "pg_cpu": pg - pg0, "commit": wall - before_commit,
            "notify": end - wall, "statements": statements}


def settle_naive(round_id: int, limit: int | None) -> dict:
    """One bet at a time through the ORM: bet_result, bet.save(), LedgerEntry.create, wallet save."""
    from django.db import transaction
    from django.utils import timezone

    from bets.ledger import house_account
    from bets.models import Account, Bet, LedgerEntry
    from engine import bet_result
    from tables.models import Round
    from tables.selectors import round_config, round_deal, round_multiplied

    clock = CpuClock()
    wall0, py0, pg0 = clock.read()
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=round_id)
        config, outcome = round_config(rnd), round_deal(rnd).outcome
        house = house_account(rnd.settings["currency"])
        now = timezone.now()
        bets = Bet.objects.filter(round_id=round_id, status=Bet.Status.OPEN).order_by("id")
        count = 0
        for bet in bets[:limit] if limit else bets:
            result = bet_result(config, bet.spot, bet.amount, outcome, round_multiplied(rnd))
            bet.status = Bet.Status.WON if result.won else Bet.Status.LOST
            bet.payout, bet.settled_at = result.payout, now
            bet.save()
            if result.won:
                LedgerEntry.objects.create(account_id=bet.account_id, amount=result.payout, kind=LedgerEntry.Kind.WIN,
                                           bet=bet, round_id=round_id, version=1)
                LedgerEntry.objects.create(account=house, amount=-result.payout, kind=LedgerEntry.Kind.WIN,
                                           bet=bet, round_id=round_id, version=1)
                wallet = Account.objects.select_for_update().get(pk=bet.account_id)
                wallet.balance += result.payout
                wallet.save()
            count += 1
    wall, py, pg = clock.read()
    return {"count": count, "total": wall - wall0, "py_cpu": py - py0, "pg_cpu": pg - pg0}


def verify(round_id: int, bets_expected: int) -> list[list[str]]:
    """The ledger invariant and every bet's payout against the rules engine."""
    from django.db import connection

    from bets.models import Bet, LedgerEntry
    from studio.money import from_minor
    from engine import bet_result
    from tables.models import Round
    from tables.selectors import round_config, round_deal, round_multiplied

    L, B = LedgerEntry._meta.db_table, Bet._meta.db_table
    checks = [[name, found, result == "OK"] for name, found, result in ledger_checks()]
    with connection.cursor() as cur:
        cur.execute(f"SELECT spot, amount, status, payout, COUNT(*) FROM {B} WHERE round_id = %s GROUP BY 1, 2, 3, 4", [round_id])
        groups = cur.fetchall()
        cur.execute(f"SELECT COUNT(*) FROM {L} WHERE round_id = %s AND kind = 'win' AND bet_id IS NOT NULL", [round_id])
        win_entries = cur.fetchone()[0]
    rnd = Round.objects.get(pk=round_id)
    config, outcome = round_config(rnd), round_deal(rnd).outcome
    bad, won, paid = 0, 0, 0
    for spot, amount, status, payout, n in groups:
        result = bet_result(config, spot, from_minor(amount), outcome, round_multiplied(rnd))
        ok = status == ("won" if result.won else "lost") and from_minor(payout) == result.payout
        bad += 0 if ok else n
        won += n if status == "won" else 0
        paid += payout * n
    settled = sum(g[4] for g in groups)
    checks.append(["every bet settled with the rules engine's payout", f"{settled - bad}/{bets_expected} bets",
                   bad == 0 and settled == bets_expected])
    checks.append(["one WIN entry per winning bet", f"{win_entries} entries, {won} won bets", win_entries == won])
    checks.append(["the round is settled with its totals", f"{rnd.status}, {rnd.bet_count} bets, paid {rnd.total_paid}",
                   rnd.status == "settled" and rnd.bet_count == bets_expected and rnd.total_paid == from_minor(paid)])
    return [[name, detail, "OK" if ok else "FAILED"] for name, detail, ok in checks]


def redis_publish_sample(redis_url: str, players: int, n: int = 200) -> list[list[str]]:
    """The cost of the settlement's per-player messages through Redis from a plain thread: all on one
    event loop and connection (as tables.stream.publish sends them), and, for comparison, one
    async_to_sync per message (a new event loop and Redis connection each)."""
    from asgiref.sync import async_to_sync
    from channels_redis.pubsub import RedisPubSubChannelLayer

    prefix = os.environ.get("CHANNELS_PREFIX", "bench")
    layer = RedisPubSubChannelLayer(hosts=[redis_url], prefix=prefix)
    message = {"type": "stream.event", "event": {"type": "bet.settled", "round": 0, "bets": [], "payout": "0"}}
    start = time.perf_counter()
    for i in range(n):
        async_to_sync(layer.group_send)(f"user.bench{i}", message)
    one_by_one = (time.perf_counter() - start) / n

    async def send_all():
        for i in range(n):
            await layer.group_send(f"user.bench{i}", message)

    start = time.perf_counter()
    async_to_sync(send_all)()
    batched = (time.perf_counter() - start) / n
    return [["all messages on one loop and connection", f"{batched * 1000:.3f}", f"{batched * players:.1f}"],
            ["one async_to_sync per message (a loop each)", f"{one_by_one * 1000:.3f}", f"{one_by_one * players:.1f}"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20000)
    parser.add_argument("--bets-per-player", type=int, default=5, choices=range(1, 6))
    parser.add_argument("--naive-bets", type=int, default=10000, help="bets the naive way settles (0: all), extrapolated")
    parser.add_argument("--multipliers", action="store_true", help="a table with random multipliers (MULTIPLIERS)")
    add_common_arguments(parser, "settle")
    args = parser.parse_args()
    if not 1 <= args.players <= 50000:
        parser.error("--players must be between 1 and 50000")
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_settle")
    # Tasks go to a broker nobody consumes (no worker runs), so the match does not settle the round
    # behind our back; they are removed at the end.
    django_setup(db_url, redis_url, LOG_LEVEL="ERROR", DB_STATEMENT_TIMEOUT_MS="0")  # builds 100,000 bets in a few statements
    from django.db import connection

    from tables.models import Round, Table

    n_bets = args.players * args.bets_per_player
    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database bench_settle", flush=True)
    try:
        print(f"Setting up {args.players} players and two rounds of {n_bets} bets (set-based):", flush=True)
        dealer = make_dealer()
        table = Table.objects.create(name="Bench settle", betting_seconds=600, multipliers=MULTIPLIERS if args.multipliers else None)
        with timed(f"{args.players} players, wallets and ISSUE entries"):
            players = make_players(args.players, CHIPS)
        bets = choose_bets(random.Random(args.seed), args.players, args.bets_per_player, table.engine_config())
        with timed(f"round A: {n_bets} bets + BET ledger pairs + wallet debits, dealt"):
            round_a = make_round(table=table, dealer=dealer, players=players, bets=bets)
        with timed(f"round B: the same {n_bets} bets, the same deal"):
            round_b = make_round(table=table, dealer=dealer, players=players, bets=bets)
        print("Settling round A with bets.settlement.round_settle ...", flush=True)
        real = settle_real(round_a)
        if args.multipliers:
            print(f"Round A's drawn multipliers: {Round.objects.get(pk=round_a).multipliers}", flush=True)
        checks = verify(round_a, n_bets)
        limit = None if args.naive_bets <= 0 or args.naive_bets >= n_bets else args.naive_bets
        print(f"Settling {'all' if limit is None else limit} bets of round B the naive way ...", flush=True)
        naive = settle_naive(round_b, limit)
        naive_count, naive_time = naive["count"], naive["total"]
        checks += [[f"after the naive run too: {name}", found, result] for name, found, result in ledger_checks()]
        publish = redis_publish_sample(redis_url, args.players)
    finally:
        connection.close()
        purge_celery_messages(redis_url, {os.getpid()})
        if not args.keep:
            drop_database(url, "bench_settle")

    print_table(["settlement statement (round A)", "ms"],
                [[sql[:100] + ("..." if len(sql) > 100 else ""), f"{t * 1000:.1f}"] for t, sql in real["statements"]],
                title="Where the real settlement's time goes (each SQL statement, in order)")
    real_rate = n_bets / real["total"]
    naive_rate = naive_count / naive_time
    naive_note = "" if limit is None else f" ({naive_count} bets, extrapolated)"
    scale = n_bets / naive_count
    rows = [
        ["bets.settlement.round_settle (one transaction)", str(n_bets), f"{real['total']:.2f}", f"{real_rate:,.0f}", "1x",
         f"{real['py_cpu']:.2f} / {real['pg_cpu']:.2f}"],
        [f"naive ORM, one bet at a time{naive_note}", str(n_bets), f"{n_bets / naive_rate:.1f}", f"{naive_rate:,.0f}",
         f"1/{real_rate / naive_rate:.0f}", f"{naive['py_cpu'] * scale:.1f} / {naive['pg_cpu'] * scale:.1f}"],
    ]
    print_table(["settlement of one round", "bets", "seconds", "bets/s", "speed", "CPU s: Python / PostgreSQL"], rows,
                title=f"Settling one round: {n_bets} bets from {args.players} players (PostgreSQL)")
    print(f"round_settle: {real['total']:.3f} s to commit (COMMIT itself {real['commit'] * 1000:.0f} ms); then its after-commit "
          f"player notifications (notify_players, {args.players} bet.settled messages, Redis layer): {real['notify']:.2f} s.")
    print(f"Load average at the end: {os.getloadavg()[0]:.2f}: on a busy machine the wall clock counts the neighbours' work "
          "too; the CPU seconds much less.")
    print(f"Naive: {naive_count} bets in {naive_time:.2f} s, one transaction"
          + ("" if limit is None else f"; the whole round would take about {n_bets / naive_rate:.0f} s."))
    print_table(["check", "found", "result"], checks, title="Ledger checks")
    if publish:
        print_table(["sending the per-player messages through Redis", "ms/message", f"s for {args.players} players"],
                    publish, title="Redis publish cost of the after-commit notifications (200-message sample)")
    speedup = real_rate / naive_rate
    ok_time, ok_speed = real["total"] < TARGET_SECONDS, speedup >= TARGET_SPEEDUP
    print(f"Targets: {n_bets} bets in under {TARGET_SECONDS:.0f} s -> {real['total']:.2f} s: {'MET' if ok_time else 'MISSED'}; "
          f"at least {TARGET_SPEEDUP:.0f}x the naive way -> {speedup:.0f}x: {'MET' if ok_speed else 'MISSED'}")
    return 0 if all(c[2] == "OK" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
