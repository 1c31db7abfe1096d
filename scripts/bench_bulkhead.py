"""Benchmark: a slow operator's share of the studio (studio/bulkhead.py). What everyone else's
requests cost while one seamless operator's wallet answers every call in --latency-ms (3 s).

The production server setup (scripts/serve.py --no-celery --workers 2, the default 8 request
threads a process, DEBUG=0, PostgreSQL, Redis, as scripts/bench_seamless.py) and the reference
operator wallet. Three phases, each measuring the same two requests of other players, paced at
--rate a second (latency counted from when each was due, scripts/http_load.py): `GET
/api/tables/{id}/` of a table without seamless players, and an internal player's bet there.

- idle: nothing else runs (the floor);
- slow operator: --seamless clients keep the slow operator's bets in flight all along (each sends
  its next bet when the last is answered, after the Retry-After of a 503 `operator_busy`);
- slow operator, no bulkhead: the same, on servers whose share is every thread (SEAMLESS_SHARE and
  SEAMLESS_SHARE_ALL set to the thread count): the way it was without a bulkhead.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_bulkhead.py [--seamless 60] [--latency-ms 3000] [--rate 20] [--seconds 15]

Target (issue: one slow operator never stalls the studio): with the bulkhead, the other requests'
p99 stays under a second while every operator call takes 3 s.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path


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
from bench_seamless import SECRET, seamless_players, start_wallet  # noqa: E402

CHIPS = 1_000_000
TARGET_P99_MS = 1000.0
THREADS = 8


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seamless", type=int, default=60, help="clients keeping the slow operator's bets in flight")
    parser.add_argument("--latency-ms", type=float, default=3000.0, help="the operator's wallet's answer time")
    parser.add_argument("--rate", type=float, default=20.0, help="the other requests a second (reads and internal bets)")
    parser.add_argument("--seconds", type=float, default=15.0, help="each phase's length")
    parser.add_argument("--workers", type=int, default=2)
    add_common_arguments(parser, "bulkhead")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_bulkhead")
    django_setup(db_url, redis_url)
    from django.db import connection

    from accounts.operators import operator_set
    from tables.models import Table
    from tables.services import round_open

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}", flush=True)
    wallet, wallet_url = start_wallet(args.latency_ms)
    dealer = make_dealer()
    players = make_players(args.seamless + 200, CHIPS, tokens=True)
    internal, seamless = players[:200], players[200:]
    operator = operator_set(code="slow", wallet="seamless", wallet_url=wallet_url, secret=SECRET, currency="INR")[0]
    seamless_players(seamless, operator)
    chips_table = Table.objects.create(name="Bench others", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    inr_table = Table.objects.create(name="Bench slow operator", currency="INR", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    other_round = round_open(table_id=chips_table.pk, joker="KS", dealer=dealer)
    slow_round = round_open(table_id=inr_table.pk, joker="KS", dealer=dealer)
    read = http_load.request_bytes("GET", f"/api/tables/{chips_table.pk}/", "127.0.0.1")
    body = json.dumps({"spot": "bahar", "amount": "1"}).encode()
    bets = [http_load.request_bytes("POST", f"/api/rounds/{other_round.pk}/bets/", "127.0.0.1",
                                    {"Authorization": f"Token {p[2]}", "Content-Type": "application/json"}, body) for p in internal]
    results, pids = {}, {os.getpid()}
    base = {"SEAMLESS_TIMEOUT": str(args.latency_ms / 1000 + 5), "HTTP_THREADS": str(THREADS)}
    phases = [("idle", base, False), ("slow operator", base, True),
              ("slow operator, no bulkhead", {**base, "SEAMLESS_SHARE": str(THREADS), "SEAMLESS_SHARE_ALL": str(THREADS)}, True)]
    try:
        for name, extra, slow in phases:
            with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server:
                stop, counts, threads = threading.Event(), {}, []
                loaded = time.monotonic()
                if slow:
                    threads = betting_clients(server.url, [p[2] for p in seamless], slow_round.pk, stop, counts)
                    time.sleep(args.latency_ms / 1000 + 1)  # every client has a bet waiting or refused by now
                results[name] = measure_others(server.url, args.rate, args.seconds, read, bets)
                elapsed = time.monotonic() - loaded
                stop.set()
                for thread in threads:
                    thread.join(args.latency_ms / 1000 + 30)
                results[name]["slow"] = {k: v / elapsed for k, v in counts.items() if v}
                print(f"  {name}: p50 {results[name]['p50']:.1f} ms, p99 {results[name]['p99']:.1f} ms, errors {results[name]['errors']}; "
                      f"slow operator's bets a second: {', '.join(f'{k} {v:.1f}' for k, v in results[name]['slow'].items()) or '-'}",
                      flush=True)
                server.stop()
                pids |= server.pids
        checks = ledger_checks()
    finally:
        wallet.terminate()
        wallet.wait(10)
        removed = purge_celery_messages(redis_url, pids)
        connection.close()
        if not args.keep:
            drop_database(url, "bench_bulkhead")
    rows = [[name, str(r["n"]), f"{r['p50']:.1f}", f"{r['p99']:.1f}", f"{r['max']:.1f}", str(sum(r["errors"].values())),
             ", ".join(f"{k} {v:.1f}/s" for k, v in r["slow"].items()) or "-"] for name, r in results.items()]
    print_table(["phase", "requests", "p50 ms", "p99 ms", "max ms", "non-2xx", "the slow operator's bets"], rows,
                title=f"Reads of another table and internal bets, paced at {args.rate:g}/s; {args.workers} web processes of {THREADS} "
                      f"threads; the operator answering in {args.latency_ms:.0f} ms to {args.seamless} clients")
    print_table(["check", "found", "result"], checks, title="Ledger checks after the run")
    print(f"Removed {removed} queued Celery messages.")
    p99 = results["slow operator"]["p99"]
    print(f"Target: the other requests' p99 under {TARGET_P99_MS:.0f} ms with the slow operator -> {p99:.0f} ms "
          f"(idle {results['idle']['p99']:.0f} ms, no bulkhead {results['slow operator, no bulkhead']['p99']:.0f} ms): "
          f"{'MET' if p99 < TARGET_P99_MS else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
