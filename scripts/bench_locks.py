"""Benchmark: a round's row held for long (studio/bulkhead.py, round_share). What everyone else's
requests cost while a session holds one round's row (SELECT ... FOR UPDATE, as a psql session
left open would) and --waiting clients keep betting on that round.

The production server setup (scripts/serve.py --no-celery --workers 2, the default 8 request
threads a process and lock_timeout of 3 s (DB_LOCK_TIMEOUT_MS), DEBUG=0, PostgreSQL, Redis). Three
phases, each measuring the same two requests of other players, paced at --rate a second (latency
counted from when each was due, scripts/http_load.py): `GET /api/tables/{id}/` of another table,
and a bet at that table's round.

- idle: nothing else runs (the floor);
- held lock: the round's row is held all along, and --waiting clients keep bets on it in flight
  (each sends its next bet when the last is answered, after the Retry-After of a 503 `busy`);
- held lock, no share: the same, on servers whose round share is every thread (ROUND_SHARE and
  ROUND_SHARE_ALL set to the thread count): every thread may wait for the lock.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_locks.py [--waiting 60] [--rate 20] [--seconds 15]

Target (issue: a held lock holds up only the requests that need that row): with the share, the
other requests' p99 under a second (a third of the lock's timeout) while the row is held.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import http_load  # noqa: E402
from bench_neighbours import betting_clients, measure_others  # noqa: E402
from bench_common import (  # noqa: E402
    make_dealer,
    Server, add_common_arguments, create_database, django_setup, drop_database, ledger_checks, machine,
    make_players, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url,
    server_env,
)

CHIPS = 1_000_000
TARGET_P99_MS = 1000.0
THREADS = 8
LOCK_TIMEOUT_MS = 3000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiting", type=int, default=60, help="clients keeping bets on the held round in flight")
    parser.add_argument("--rate", type=float, default=20.0, help="the other requests a second (reads and bets at another table)")
    parser.add_argument("--seconds", type=float, default=15.0, help="each phase's length")
    parser.add_argument("--workers", type=int, default=2)
    add_common_arguments(parser, "locks")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_locks")
    django_setup(db_url, redis_url)
    from django.db import connection

    from tables.models import Round, Table
    from tables.services import round_open

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}", flush=True)
    dealer = make_dealer()
    players = make_players(args.waiting + 200, CHIPS, tokens=True)
    others, waiting = players[:200], players[200:]
    other_table = Table.objects.create(name="Bench others", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    held_table = Table.objects.create(name="Bench held", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    other_round = round_open(table_id=other_table.pk, joker="KS", dealer=dealer)
    held_round = round_open(table_id=held_table.pk, joker="KS", dealer=dealer)
    read = http_load.request_bytes("GET", f"/api/tables/{other_table.pk}/", "127.0.0.1")
    body = json.dumps({"spot": "bahar", "amount": "1"}).encode()
    bets = [http_load.request_bytes("POST", f"/api/rounds/{other_round.pk}/bets/", "127.0.0.1",
                                    {"Authorization": f"Token {p[2]}", "Content-Type": "application/json"}, body) for p in others]
    results, pids = {}, {os.getpid()}
    base = {"HTTP_THREADS": str(THREADS), "DB_LOCK_TIMEOUT_MS": str(LOCK_TIMEOUT_MS)}
    phases = [("idle", base, False), ("held lock", base, True),
              ("held lock, no share", {**base, "ROUND_SHARE": str(THREADS), "ROUND_SHARE_ALL": str(THREADS)}, True)]
    try:
        for name, extra, held in phases:
            with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server, psycopg.connect(db_url) as holder:
                stop, counts, threads = threading.Event(), {}, []
                loaded = time.monotonic()
                if held:
                    holder.execute(f"SELECT id FROM {Round._meta.db_table} WHERE id = %s FOR UPDATE", [held_round.pk])
                    threads = betting_clients(server.url, [p[2] for p in waiting], held_round.pk, stop, counts)
                    time.sleep(LOCK_TIMEOUT_MS / 1000 + 1)  # every client has had a bet wait or be refused by now
                results[name] = measure_others(server.url, args.rate, args.seconds, read, bets)
                elapsed = time.monotonic() - loaded
                stop.set()
                for thread in threads:
                    thread.join(LOCK_TIMEOUT_MS / 1000 + 30)
                holder.rollback()
                results[name]["waiting"] = {k: v / elapsed for k, v in counts.items() if v}
                print(f"  {name}: p50 {results[name]['p50']:.1f} ms, p99 {results[name]['p99']:.1f} ms, errors {results[name]['errors']}; "
                      f"bets on the held round a second: {', '.join(f'{k} {v:.1f}' for k, v in results[name]['waiting'].items()) or '-'}",
                      flush=True)
                server.stop()
                pids |= server.pids
        checks = ledger_checks()
    finally:
        removed = purge_celery_messages(redis_url, pids)
        connection.close()
        if not args.keep:
            drop_database(url, "bench_locks")
    rows = [[name, f"{r['n']} of {r['sent']}", f"{r['p50']:.1f}", f"{r['p99']:.1f}", f"{r['max']:.1f}", str(sum(r["errors"].values())),
             ", ".join(f"{k} {v:.1f}/s" for k, v in r["waiting"].items()) or "-"] for name, r in results.items()]
    print_table(["phase", "answered", "p50 ms", "p99 ms", "max ms", "non-2xx", "bets on the held round"], rows,
                title=f"Reads of another table and bets there, paced at {args.rate:g}/s; {args.workers} web processes of {THREADS} "
                      f"threads; one round's row held, {args.waiting} clients betting on it, lock_timeout {LOCK_TIMEOUT_MS} ms")
    print_table(["check", "found", "result"], checks, title="Ledger checks after the run")
    print(f"Removed {removed} queued Celery messages.")
    p99 = results["held lock"]["p99"]
    print(f"Target: the other requests' p99 under {TARGET_P99_MS:.0f} ms with a round's row held -> {p99:.0f} ms "
          f"(idle {results['idle']['p99']:.0f} ms, no share {results['held lock, no share']['p99']:.0f} ms): "
          f"{'MET' if p99 < TARGET_P99_MS and not results['held lock']['errors'] and results['held lock']['n'] == results['held lock']['sent'] else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
