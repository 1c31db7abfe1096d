"""Benchmark: the reports of a 20-table studio's year, and settlement with the rollup added.

1. A year (2026, 8,760 hours) of rollups for 20 tables (15 classic, 5 no-commission) with one dealer
   per table and hour out of 40 (eight-hour shifts), a row for the rounds as a whole and one per spot
   the table offers: about 2.67 million rows, generated set-based (one INSERT ... SELECT over
   generate_series), their daily spot rows (one INSERT ... SELECT), then VACUUM ANALYZE.
2. GET /api/reports/ in-process (Django's handler, a supervisor, the JSON answer built), several
   runs each: a month (December) grouped by day and by dealer, the year grouped by day and by
   dealer. Targets: a month under 200 ms, the year under 1 s.
3. Settlement of one round of 100,000 bets from 20,000 players (scripts/bench_settle.py's rounds)
   with the rollup's receivers connected, against the same round settled without them, alternated
   (--pairs). Target: under 2 s with the rollup. The rollup rows of the settled rounds are checked
   against their bets.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python scripts/bench_reports.py \\
        [--runs 7] [--pairs 2] [--players 20000] [--tables 20] [--keep]

It creates its own database bench_reports on that server (BENCH_SUFFIX=x: bench_reports_x) and drops
it at the end unless --keep is given.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_common import (  # noqa: E402
    add_common_arguments, create_database, django_setup, drop_database, machine, make_players, pg_version, print_table,
    purge_celery_messages, require_postgres_url, require_redis_url, timed,
)

MONTH_TARGET, YEAR_TARGET, SETTLE_TARGET = 0.2, 1.0, 2.0
YEAR = ("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
MONTH = ("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z")
DEALERS = 40


def make_studio(n_tables: int):
    """Tables (every fourth a no-commission one) and the dealers, and a supervisor."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from tables.models import Table

    User = get_user_model()
    tables = [Table.objects.create(name=f"Bench {i + 1:02d}", betting_seconds=600, mode="no_commission" if i % 4 == 3 else "classic")
              for i in range(n_tables)]
    group = Group.objects.get_or_create(name="dealer")[0]
    dealers = User.objects.bulk_create([User(username=f"bench_d{i:02d}", password="!") for i in range(DEALERS)])
    group.user_set.add(*dealers)
    supervisor = User.objects.create(username="bench_supervisor", password="!")
    supervisor.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    return tables, dealers, supervisor


def build_year(tables, dealers) -> int:
    """A year of rollup rows, set-based: one statement. Figures are plausible and deterministic
    (a hash of table, hour and spot), not consistent with each other: the queries do not care."""
    from django.db import connection

    from engine import offered_spots
    from reports.models import Rollup, Rules
    from reports.rollup import rules_key

    values, params = [], []
    for n, table in enumerate(tables):
        key = rules_key(table.config_dict())
        Rules.objects.get_or_create(key=key, defaults={"config": table.config_dict()})
        values.append("(%s::bigint, %s::int, %s::text[], %s::text)")
        params += [table.pk, n, ["", *offered_spots(table.engine_config())], key]
    dealer_ids = [d.pk for d in dealers]
    sql = f"""
INSERT INTO {Rollup._meta.db_table} (table_id, hour, dealer_id, shift_id, rules, spot, rounds, cards, card_ms, round_ms, incidents,
                                   voids, player_rounds, bets, stakes, payouts)
SELECT t.id, h.hour, (%s::int[])[1 + (t.n * 3 + h.i / 8) %% {len(dealer_ids)}], NULL, t.rules, s.spot,
       CASE WHEN s.spot = '' THEN 60 + x.r %% 30 ELSE 0 END,
       CASE WHEN s.spot = '' THEN (60 + x.r %% 30) * 13 ELSE 0 END,
       CASE WHEN s.spot = '' THEN (60 + x.r %% 30)::bigint * 13 * 4000 + x.r ELSE 0 END,
       CASE WHEN s.spot = '' THEN (60 + x.r %% 30)::bigint * 45000 ELSE 0 END,
       CASE WHEN s.spot = '' AND x.r %% 50 = 0 THEN 1 ELSE 0 END,
       CASE WHEN s.spot = '' AND x.r %% 200 = 0 THEN 1 ELSE 0 END,
       CASE WHEN s.spot = '' THEN (60 + x.r %% 30) * 20 ELSE 0 END,
       (100 + x.r %% 50) * CASE WHEN s.spot = '' THEN 15 ELSE 1 END,
       (100 + x.r %% 50)::bigint * CASE WHEN s.spot = '' THEN 15 ELSE 1 END * 2000,
       (100 + x.r %% 50)::bigint * CASE WHEN s.spot = '' THEN 15 ELSE 1 END * 2000 * (900 + x.r %% 150) / 1000
FROM (VALUES {', '.join(values)}) AS t (id, n, spots, rules)
CROSS JOIN LATERAL (SELECT hour, (EXTRACT(EPOCH FROM hour - %s::timestamptz) / 3600)::int AS i
                    FROM generate_series(%s::timestamptz, %s::timestamptz - interval '1 hour', interval '1 hour') AS hour) AS h
CROSS JOIN LATERAL unnest(t.spots) WITH ORDINALITY AS s (spot, k)
CROSS JOIN LATERAL (SELECT ((t.n * 7919 + h.i * 104729 + s.k * 31) %% 1000)::int AS r) AS x
ORDER BY h.hour, t.n, s.k"""  # in the order settlements write them: hour after hour
    with connection.cursor() as cur:
        cur.execute(sql, [dealer_ids, *[p for p in params], YEAR[0], YEAR[0], YEAR[1]])
        cur.execute(f"SELECT COUNT(*) FROM {Rollup._meta.db_table}")
        return cur.fetchone()[0]


def vacuum_analyze() -> None:
    from django.db import connection

    from reports.models import Rollup, RollupDay

    with connection.cursor() as cur:
        cur.execute(f"VACUUM ANALYZE {Rollup._meta.db_table}")
        cur.execute(f"VACUUM ANALYZE {RollupDay._meta.db_table}")


def time_reports(supervisor, runs: int) -> list[list[str]]:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user=supervisor)
    cases = [("a month by day", "day", MONTH, MONTH_TARGET), ("a month by dealer", "dealer", MONTH, MONTH_TARGET),
             ("a month by table", "table", MONTH, MONTH_TARGET),
             ("the year by day", "day", YEAR, YEAR_TARGET), ("the year by dealer", "dealer", YEAR, YEAR_TARGET)]
    rows = []
    for label, group, (start, end), target in cases:
        seconds = []
        for _ in range(runs + 1):  # the first run warms the caches and is left out
            t = time.perf_counter()
            response = client.get("/api/reports/", {"group": group, "from": start, "to": end}, HTTP_HOST="127.0.0.1")
            seconds.append(time.perf_counter() - t)
            assert response.status_code == 200, response.content[:500]
        body = response.json()
        seconds = seconds[1:]
        median, best = statistics.median(seconds), min(seconds)
        rows.append([label, str(len(body["rows"])), f"{body['total']['rounds']:,}", f"{median * 1000:.0f}", f"{best * 1000:.0f}",
                     f"{max(seconds) * 1000:.0f}", f"< {target * 1000:.0f}", "MET" if median < target else "MISSED"])
    return rows


def settle_pairs(pairs: int, players_n: int, seed: int) -> tuple[list[list[str]], list[tuple[str, float]], list[list[str]]]:
    """Settle 2 x `pairs` identical rounds of 100,000 bets, alternately with and without the rollup."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from bench_settle import CHIPS, choose_bets, make_round, settle_real
    from bets.models import Bet
    from reports import rollup
    from reports.models import Rollup
    from studio.money import from_minor
    from tables import hooks
    from tables.models import Round, Table

    dealer = get_user_model().objects.get(username="bench_d00")
    table = Table.objects.create(name="Bench settle", betting_seconds=600)
    with timed(f"{players_n} players, wallets and ISSUE entries"):
        players = make_players(players_n, CHIPS)
    bets = choose_bets(random.Random(seed), players_n, 5, table.engine_config())
    results: list[tuple[str, float]] = []
    details = []
    checks = []
    for i in range(pairs * 2):
        with_rollup = i % 2 == 0
        with timed(f"round {i + 1}: {len(bets)} bets, dealt"):
            round_id = make_round(table=table, dealer=dealer, players=players, bets=bets)
        if not with_rollup:
            hooks.round_settled.disconnect(dispatch_uid="reports.on_round_settled")
        try:
            real = settle_real(round_id)
        finally:
            if not with_rollup:
                hooks.round_settled.connect(rollup.on_round_settled, dispatch_uid="reports.on_round_settled")
        label = "with the rollup" if with_rollup else "without the rollup"
        results.append((label, real["total"]))
        rollup_ms = [t for t, sql in real["statements"] if "reports_rollup" in sql]
        details.append([f"round {i + 1}: {label}", f"{real['total']:.3f}", f"{real['commit'] * 1000:.0f}",
                        f"{sum(rollup_ms) * 1000:.1f}" if rollup_ms else "-", f"{real['py_cpu']:.2f} / {real['pg_cpu']:.2f}"])
        if with_rollup:
            rnd = Round.objects.get(pk=round_id)
            with connection.cursor() as cur:
                cur.execute(f"SELECT spot, COUNT(*), SUM(amount), SUM(payout) FROM {Bet._meta.db_table} WHERE round_id = %s GROUP BY spot",
                            [round_id])
                by_spot = {spot: (n, from_minor(s), from_minor(p)) for spot, n, s, p in cur.fetchall()}
            hour = rnd.opened_at.replace(minute=0, second=0, microsecond=0)
            kept = {r.spot: (r.bets, r.stakes, r.payouts) for r in Rollup.objects.filter(table=table, hour=hour, dealer=dealer)}
            whole = kept.pop("")
            total = tuple(sum(v[k] for v in by_spot.values()) for k in range(3))
            # several rounds share the hour's rows: compare this round's part, the rows divided by the rounds in them
            rounds = Rollup.objects.get(table=table, hour=hour, dealer=dealer, spot="").rounds
            ok = all(kept[s][0] == rounds * by_spot[s][0] and kept[s][1] == rounds * by_spot[s][1] for s in by_spot) and \
                whole[0] == rounds * total[0] and whole[1] == rounds * total[1]
            checks.append([f"round {i + 1}: the rollup holds its bets and stakes per spot", f"{len(by_spot)} spots, {total[0]} bets",
                           "OK" if ok else "FAILED"])
    return details, results, checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each report (after one warm-up)")
    parser.add_argument("--pairs", type=int, default=2, help="settlements with and without the rollup, alternated (0: none)")
    parser.add_argument("--players", type=int, default=20000, help="players of the settled rounds (5 bets each)")
    parser.add_argument("--tables", type=int, default=20)
    add_common_arguments(parser, "reports")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_reports")
    django_setup(db_url, redis_url, LOG_LEVEL="ERROR", DB_STATEMENT_TIMEOUT_MS="0", ACCESS_LOG="0")
    from django.db import connection

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database bench_reports", flush=True)
    try:
        tables, dealers, supervisor = make_studio(args.tables)
        with timed("a year of rollups (one INSERT ... SELECT over generate_series)"):
            rows = build_year(tables, dealers)
        with timed("the daily spot rows from them (reports.rollup.rebuild_days, set-based)"):
            from reports.rollup import rebuild_days

            day_rows = rebuild_days()
        with timed("VACUUM ANALYZE"):
            vacuum_analyze()
        print(f"  {rows:,} rollup rows for {args.tables} tables x 8,760 hours; {day_rows:,} daily spot rows", flush=True)
        report_rows = time_reports(supervisor, args.runs)
        settle = settle_pairs(args.pairs, args.players, args.seed) if args.pairs else None
    finally:
        connection.close()
        purge_celery_messages(redis_url, {os.getpid()})
        if not args.keep:
            drop_database(url, "bench_reports")

    print_table(["GET /api/reports/", "rows", "rounds", "median ms", "best ms", "worst ms", "target", "result"], report_rows,
                title=f"Reports over {rows:,} rollup rows ({args.runs} runs each after a warm-up, in-process, JSON built)")
    ok = all(r[-1] == "MET" for r in report_rows)
    if settle:
        details, results, checks = settle
        print_table(["settlement of 100,000 bets", "seconds to commit", "COMMIT ms", "rollup statement ms", "CPU s: Python / PostgreSQL"],
                    details, title="Settlement with and without the rollup, alternated")
        with_r = [s for label, s in results if label == "with the rollup"]
        without = [s for label, s in results if label != "with the rollup"]
        print(f"With the rollup: median {statistics.median(with_r):.3f} s, best {min(with_r):.3f} s; without: median "
              f"{statistics.median(without):.3f} s, best {min(without):.3f} s. Target: under {SETTLE_TARGET:.0f} s with the rollup -> "
              f"{'MET' if max(with_r) < SETTLE_TARGET else 'MISSED'}")
        print_table(["check", "found", "result"], checks, title="Rollup checks")
        ok = ok and max(with_r) < SETTLE_TARGET and all(c[2] == "OK" for c in checks)
    print(f"Load average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
