"""Benchmark: bets over HTTP from 50 clients, the seamless wallet beside the internal one.

The production server setup (scripts/serve.py --no-celery --workers 2, DEBUG=0, PostgreSQL, Redis,
as scripts/bench_bets_http.py) serves two rounds with a long betting window: one at a play-chips
table whose players bet with the studio's own wallets, one at an INR table whose players were
launched by a seamless operator, whose wallet is the reference operator wallet
(scripts/reference_wallet.py, a separate process) answering every call after --latency-ms (20 ms).
Every seamless bet is a signed debit call to it before the bet is written.

The server runs 16 request threads a process (HTTP_THREADS=16; the default is 8): a seamless bet
holds its thread while the operator's wallet answers; the operator's share of them (studio/bulkhead.py)
is all 16, so that 50 clients at once measure the wallet path, not the bulkhead (scripts/bench_bulkhead.py). The two kinds of bet alternate in the same run, --runs times, closed loop (capacity, bets/s). Then
each is offered, paced, at half the internal capacity measured (the median of the runs), for its
latency (p50, p99, counted from when each request was due: scripts/http_load.py).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_seamless.py [--requests 3000] [--clients 50] [--runs 3] [--latency-ms 20]

Targets (docs/OPERATORS.md): seamless bets at least 60% of the internal figure; p99 under 150 ms at
half the internal capacity offered; no non-2xx answer; the ledger checks pass.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import http_load  # noqa: E402
from bench_common import (  # noqa: E402
    make_dealer,
    Server, add_common_arguments, add_server_arguments, cpu_seconds, create_database, django_setup, drop_database, ledger_checks, machine, make_players,
    parse_server_env, percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, server_env,
)

CHIPS = 1_000_000
SECRET = "bench-operator-secret"
TARGET_SHARE, TARGET_P99_MS = 0.60, 150.0
WARMUP = 100


def start_wallet(latency_ms: float) -> tuple[subprocess.Popen, str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    port = listener.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "reference_wallet.py"), "--fd", str(listener.fileno()), "--secret", SECRET,
                             "--open-balance", "100000000", "--latency-ms", str(latency_ms)], pass_fds=[listener.fileno()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    listener.close()
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/_control/state", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the reference wallet did not start")


def seamless_players(users: list[tuple[int, int, str]], operator) -> None:
    """Turn these bench players into the operator's launched players (set-based): an operator link and
    a seamless INR wallet each, as a launch makes them."""
    from accounts.models import OperatorPlayer
    from bets.ledger import house_account, operator_account
    from bets.models import Account

    OperatorPlayer.objects.bulk_create([OperatorPlayer(operator=operator, player_id=f"bench-{u}", user_id=u) for u, _, _ in users])
    Account.objects.bulk_create([Account(kind="player", user_id=u, currency="INR", operator=operator, balance=0) for u, _, _ in users])
    operator_account(operator_id=operator.pk, currency="INR")
    house_account("INR")


def run_phase(name, url, clients, make_request, count, check, rate=None, max_seconds=60.0, server_pids=(), wallet_pid=None) -> dict:
    http_load.drive(url, clients, make_request, count=min(WARMUP, count), max_seconds=max_seconds)
    before = (cpu_seconds(server_pids), cpu_seconds([wallet_pid]))
    timed = http_load.drive(url, clients, make_request, first=WARMUP // clients + 1, count=count, rate=rate, max_seconds=max_seconds,
                            check=check)
    after = (cpu_seconds(server_pids), cpu_seconds([wallet_pid]))
    ms = sorted(x * 1000 for x in timed.latencies)
    n = max(len(ms), 1)
    result = {"name": name, "n": len(ms), "rate": len(ms) / timed.wall, "p50": percentile(ms, 50), "p99": percentile(ms, 99),
              "max": ms[-1] if ms else 0.0, "errors": dict(timed.errors), "ok": timed.ok,
              "server_cpu_ms": (after[0] - before[0]) * 1000 / n, "wallet_cpu_ms": (after[1] - before[1]) * 1000 / n}
    print(f"  {name}: {result['n']} in {timed.wall:.2f} s, {result['rate']:,.0f}/s, p99 {result['p99']:.1f} ms, errors {result['errors']}; "
          f"CPU per bet: server {result['server_cpu_ms']:.2f} ms, wallet {result['wallet_cpu_ms']:.2f} ms", flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000, help="timed bets per closed-loop phase")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--players", type=int, default=1000, help="players of each kind")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3, help="closed-loop runs of each kind, alternated")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="the reference wallet's answer time")
    parser.add_argument("--paced-seconds", type=float, default=10)
    add_server_arguments(parser)
    add_common_arguments(parser, "seamless")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_seamless")
    django_setup(db_url, redis_url)
    from django.db import connection

    from accounts.operators import operator_set
    from bets.models import Bet, WalletTransaction
    from tables.models import Table
    from tables.services import round_open

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}", flush=True)
    wallet, wallet_url = start_wallet(args.latency_ms)
    dealer = make_dealer()
    players = make_players(2 * args.players, CHIPS, tokens=True)
    internal, seamless = players[:args.players], players[args.players:]
    operator = operator_set(code="bench", wallet="seamless", wallet_url=wallet_url, secret=SECRET, currency="INR")[0]
    seamless_players(seamless, operator)
    chips_table = Table.objects.create(name="Bench internal", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    inr_table = Table.objects.create(name="Bench seamless", currency="INR", betting_seconds=36000, min_bet=1, max_bet=10_000_000)
    rounds = {"internal": round_open(table_id=chips_table.pk, joker="KS", dealer=dealer),
              "seamless": round_open(table_id=inr_table.pk, joker="KS", dealer=dealer)}
    body = json.dumps({"spot": "andar", "amount": "10"}).encode()
    raw = {}
    for kind, group in (("internal", internal), ("seamless", seamless)):
        own = [[p[2] for p in group[c::args.clients]] for c in range(args.clients)]
        raw[kind] = [[http_load.request_bytes("POST", f"/api/rounds/{rounds[kind].pk}/bets/", "127.0.0.1",
                                              {"Authorization": f"Token {k}", "Content-Type": "application/json"}, body) for k in keys]
                     for keys in own]

    def maker(kind):
        return lambda c, k: raw[kind][c][k % len(raw[kind][c])]

    def is_bet(answer: bytes) -> bool:
        return b'"status":"open"' in answer

    closed, paced = {"internal": [], "seamless": []}, {}
    pids = {os.getpid()}
    try:
        # A seamless bet holds its request's thread while the operator's wallet answers (20 ms): the server
        # runs 16 threads a process instead of 8 (HTTP_THREADS), for both kinds of bet; --server-env HTTP_THREADS=8 to compare.
        # The operator's share of them is every thread: this measures the wallet path's capacity (50 clients
        # at once), not the bulkhead, whose benchmark is scripts/bench_bulkhead.py.
        extra = {"HTTP_THREADS": "16", "SEAMLESS_SHARE": "16", "SEAMLESS_SHARE_ALL": "16", **parse_server_env(args.server_env)}
        with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server:
            print(f"Server: {' '.join(server.command()[1:])} ({', '.join(f'{k}={v}' for k, v in extra.items())}); "
                  f"reference wallet answering in {args.latency_ms:.0f} ms; {args.clients} clients", flush=True)
            for n in range(args.runs):
                for kind in (("internal", "seamless") if n % 2 == 0 else ("seamless", "internal")):
                    closed[kind].append(run_phase(f"run {n + 1}: {kind}, closed loop", server.url, args.clients, maker(kind), args.requests,
                                                  is_bet, server_pids=server.pids, wallet_pid=wallet.pid))
            half = statistics.median(r["rate"] for r in closed["internal"]) / 2
            for kind in ("internal", "seamless"):
                paced[kind] = run_phase(f"{kind}, paced at {half:.0f}/s", server.url, args.clients, maker(kind), int(half * args.paced_seconds),
                                        is_bet, rate=half, server_pids=server.pids, wallet_pid=wallet.pid)
            server.stop()
            pids |= server.pids
            logged = server.errors_logged()
        checks = ledger_checks()
        accepted = sum(r["ok"] for rs in closed.values() for r in rs) + sum(r["ok"] for r in paced.values())
        placed = Bet.objects.filter(round__in=rounds.values()).count()
        unconfirmed = WalletTransaction.objects.filter(kind="debit").exclude(status="ok").count()
    finally:
        wallet.terminate()
        wallet.wait(10)
        removed = purge_celery_messages(redis_url, pids)
        connection.close()
        if not args.keep:
            drop_database(url, "bench_seamless")
    rows = []
    for kind in ("internal", "seamless"):
        rates = [r["rate"] for r in closed[kind]]
        cpu = statistics.median(r["server_cpu_ms"] for r in closed[kind])
        wallet_cpu = statistics.median(r["wallet_cpu_ms"] for r in closed[kind])
        rows.append([kind, ", ".join(f"{x:,.0f}" for x in rates), f"{statistics.median(rates):,.0f}", f"{cpu:.2f} / {wallet_cpu:.2f}",
                     f"{paced[kind]['rate']:,.0f}", f"{paced[kind]['p50']:.1f}", f"{paced[kind]['p99']:.1f}",
                     str(sum(sum(r["errors"].values()) for r in closed[kind]) + sum(paced[kind]["errors"].values()))])
    print_table(["wallet", "closed loop bets/s (each run)", "median", "CPU ms/bet: server / wallet", "paced: answered/s", "p50 ms", "p99 ms", "non-2xx"], rows,
                title=f"{args.clients} clients, {args.workers} web processes, the operator's wallet answering in {args.latency_ms:.0f} ms")
    checks.append(["every accepted bet is in the database (warm-ups too)", f"{placed} bets, at least {accepted} accepted",
                   "OK" if placed >= accepted else "FAILED"])
    print_table(["check", "found", "result"], checks, title="Ledger checks after the run")
    if logged:
        print("Errors in the server's log:", *(f"  {line}" for line in logged), sep="\n")
    print(f"Debits not turned into bets: {unconfirmed}. Removed {removed} queued Celery messages.")
    internal_rate = statistics.median(r["rate"] for r in closed["internal"])
    seamless_rate = statistics.median(r["rate"] for r in closed["seamless"])
    share = seamless_rate / internal_rate if internal_rate else 0.0
    ok = share >= TARGET_SHARE and paced["seamless"]["p99"] < TARGET_P99_MS
    print(f"Target: seamless >= {TARGET_SHARE:.0%} of internal, p99 < {TARGET_P99_MS:.0f} ms at half the internal capacity -> "
          f"{seamless_rate:,.0f} / {internal_rate:,.0f} bets/s = {share:.0%}; p99 seamless {paced['seamless']['p99']:.1f} ms, "
          f"internal {paced['internal']['p99']:.1f} ms: {'MET' if ok else 'MISSED'}")
    return 0 if all(c[2] == "OK" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
