"""Benchmark (issue 4): POST /api/rounds/{id}/bets/ under 50 concurrent clients over HTTP.

The production server setup (scripts/serve.py --no-celery --workers 2: uvicorn studio.asgi:application,
DEBUG=0, a SECRET_KEY, PostgreSQL, REDIS_URL so the bet.placed messages go to Redis; no Celery worker
is needed) serves one round with a long betting window and a big max_bet. 500 players with plenty
of chips are shared out among the clients (each client cycles its own players, so no two requests
in flight wait for the same wallet lock). asyncio + httpx.AsyncClient, keep-alive connections.

The same client load is first sent to GET /healthz (one SELECT 1: the HTTP stack alone) and to
GET /api/me/ (token auth + a wallet read), so the reader sees what the bet itself costs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_bets_http.py [--requests 5000] [--clients 50] [--workers 2] [--keep]

Target (issue 4): at least 500 bets/s with p99 under 100 ms; no non-2xx answer.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_common import (  # noqa: E402
    Server, add_common_arguments, cpu_seconds, add_server_arguments, create_database, django_setup, drop_database, ledger_checks, machine, make_players,
    parse_server_env, percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, server_env,
)

TARGET_RATE, TARGET_P99_MS = 500.0, 100.0
CHIPS = 1_000_000
WARMUP = 200  # requests per phase before timing (connections opened, code paths warm)


def postgres_backends(monitor, db_name: str) -> set[int]:
    """The server's PostgreSQL sessions (their pids), through the monitoring connection `monitor`."""
    rows = monitor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [db_name])
    return {row[0] for row in rows.fetchall()}


async def drive(url: str, clients: int, make_request, warmup: int, requests: int, between, max_seconds: float) -> dict:
    """`clients` concurrent clients share first `warmup` requests (not timed), then, after calling
    between(), `requests` timed ones; client c sends its k-th request with make_request(http, c, k).
    Each client has its own httpx.AsyncClient and keep-alive connection, like 50 players' browsers
    (one AsyncClient pooling 50 connections costs about three times more client CPU per request, in
    httpcore, and the client shares these 2 cores with the server). No request starts after
    max_seconds of timing: the run stays bounded on a busy machine."""
    import httpx

    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    sessions = [httpx.AsyncClient(base_url=url, limits=limits, timeout=30) for _ in range(clients)]

    async def run(first: int, count: int, latencies: list[float], errors: dict[str, int], deadline: float):
        async def one_client(c: int):
            for k in range(c, count, clients):
                t = time.perf_counter()
                if t > deadline:
                    return
                try:
                    r = await make_request(sessions[c], c, first + k // clients)
                    code = r.status_code
                except httpx.HTTPError as exc:
                    code = type(exc).__name__
                latencies.append(time.perf_counter() - t)
                if not (isinstance(code, int) and 200 <= code < 300):
                    errors[str(code)] = errors.get(str(code), 0) + 1

        await asyncio.gather(*(one_client(c) for c in range(clients)))

    try:
        warm_errors: dict[str, int] = {}
        warm: list[float] = []
        await run(0, warmup, warm, warm_errors, time.perf_counter() + max_seconds)
        between()
        latencies: list[float] = []
        errors: dict[str, int] = {}
        start = time.perf_counter()
        await run(warmup // clients + 1, requests, latencies, errors, start + max_seconds)
        wall = time.perf_counter() - start
    finally:
        for session in sessions:
            await session.aclose()
    return {"latencies": latencies, "errors": errors, "wall": wall, "ok": len(latencies) - sum(errors.values()),
            "warmup_ok": len(warm) - sum(warm_errors.values())}


def phase(name: str, url: str, requests: int, clients: int, make_request, server_pids: set[int], monitor, db_name: str,
          max_seconds: float) -> dict:
    snapshot = {}

    def between():  # after the warm-up: the CPU counters of the client, the server and its database sessions
        snapshot["pg"] = postgres_backends(monitor, db_name)
        snapshot["cpu"] = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(snapshot["pg"]))

    result = asyncio.run(drive(url, clients, make_request, min(WARMUP, requests), requests, between, max_seconds))
    pg = snapshot["pg"] | postgres_backends(monitor, db_name)
    cpu_after = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(pg))
    done = len(result["latencies"])
    result["cpu_ms"] = [(a - b) * 1000 / max(done, 1) for a, b in zip(cpu_after, snapshot["cpu"])]
    result["name"] = name
    cut = f" (stopped at --max-seconds {max_seconds:.0f}: {requests - done} not sent)" if done < requests else ""
    print(f"  {name}: {done} requests in {result['wall']:.2f} s{cut}", flush=True)
    return result


def row(result: dict) -> list[str]:
    ms = sorted(x * 1000 for x in result["latencies"])
    errors = sum(result["errors"].values())
    detail = ", ".join(f"{k}: {v}" for k, v in result["errors"].items())
    return [result["name"], str(len(ms)), f"{errors}" + (f" ({detail})" if detail else ""), f"{len(ms) / result['wall']:,.0f}",
            f"{percentile(ms, 50):.1f}", f"{percentile(ms, 99):.1f}", f"{ms[-1]:.1f}",
            " / ".join(f"{x:.2f}" if x >= 0 else "n/a" for x in result["cpu_ms"])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5000, help="timed requests per phase")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers")
    parser.add_argument("--amount", default="10", help="chips per bet")
    parser.add_argument("--max-seconds", type=float, default=30, help="stop starting requests of a phase after this long")
    add_server_arguments(parser)
    add_common_arguments(parser, "bets_http")
    args = parser.parse_args()
    if not (1 <= args.requests <= 50000 and 1 <= args.clients <= 200 and args.clients <= args.players <= 20000):
        parser.error("need 1 <= requests <= 50000, 1 <= clients <= 200, clients <= players <= 20000")
    url, redis_url = require_postgres_url(), require_redis_url()
    db_name = "bench_bets_http"
    db_url = create_database(url, db_name)
    django_setup(db_url, redis_url)
    import psycopg
    from django.core.management import call_command
    from django.contrib.auth import get_user_model
    from django.db import connection

    from bets.models import Bet
    from tables.models import Table
    from tables.services import round_open

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database {db_name}", flush=True)
    call_command("studio_user", "bench_dealer", "--role", "dealer", "--password", "bench-dealer-pw", stdout=open(os.devnull, "w"))
    dealer = get_user_model().objects.get(username="bench_dealer")
    players = make_players(args.players, CHIPS, tokens=True)
    table = Table.objects.create(name="Bench bets", betting_seconds=3600, min_bet=1, max_bet=10_000_000)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    # Client c cycles players c, c + clients, c + 2 * clients, ...: its own, never another client's.
    own = [[p[2] for p in players[c::args.clients]] for c in range(args.clients)]
    auth = [[{"Authorization": f"Token {key}"} for key in keys] for keys in own]
    bet = {"spot": "andar", "amount": args.amount}

    def healthz(client, c, k):
        return client.get("/healthz")

    def me(client, c, k):
        return client.get("/api/me/", headers=auth[c][k % len(auth[c])])

    def place(client, c, k):
        return client.post(f"/api/rounds/{rnd.pk}/bets/", json=bet, headers=auth[c][k % len(auth[c])])

    pids = {os.getpid()}
    try:
        extra = parse_server_env(args.server_env)
        with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server:
            print(f"Server: {' '.join(server.command()[1:])} (DEBUG=0, REDIS_URL set"
                  f"{''.join(f', {k}={v}' for k, v in extra.items())}); {args.clients} clients, {args.players} players", flush=True)
            monitor = psycopg.connect(db_url.replace("postgresql://", "postgres://", 1), autocommit=True)
            results = [phase(name, server.url, args.requests, args.clients, fn, server.pids, monitor, db_name, args.max_seconds)
                       for name, fn in (("GET /healthz (floor: HTTP + SELECT 1)", healthz),
                                        ("GET /api/me/ (token auth + wallet read)", me),
                                        ("POST /api/rounds/{id}/bets/", place))]
            monitor.close()
            server.stop()
            pids |= server.pids
            logged = server.errors_logged()
        placed = Bet.objects.filter(round=rnd).count()
        checks = ledger_checks()
    finally:
        removed = purge_celery_messages(redis_url, pids)
        connection.close()
        if not args.keep:
            drop_database(url, db_name)

    print_table(["endpoint", "requests", "non-2xx", "req/s", "p50 ms", "p99 ms", "max ms", "CPU ms/req: client / server / postgres"],
                [row(r) for r in results], title=f"{args.clients} concurrent keep-alive clients, uvicorn --workers {args.workers}")
    expected = results[-1]["warmup_ok"] + results[-1]["ok"]
    checks.append(["every accepted bet is in the database", f"{placed} bets, {expected} accepted", "OK" if placed == expected else "FAILED"])
    print_table(["check", "found", "result"], checks, title="Ledger checks after the run")
    if logged:
        print("Errors in the server's log:", *(f"  {line}" for line in logged), sep="\n")
    print(f"Removed {removed} queued Celery messages (the round's close-betting task; no worker ran).")
    bets = results[-1]
    _, server_ms, pg_ms = bets["cpu_ms"]
    pg_ms = max(pg_ms, 0.0)  # n/a (a reused pid) counts as 0
    if server_ms + pg_ms > 0:
        print(f"CPU per bet: server {server_ms:.2f} ms + PostgreSQL {pg_ms:.2f} ms (its sessions that lived through the run; "
              f"connections opened per request are missed): with {os.cpu_count()} cores to themselves they could serve at most "
              f"{os.cpu_count() * 1000 / (server_ms + pg_ms):,.0f} bets/s.")
    print(f"Load average at the end: {os.getloadavg()[0]:.2f} (the client, the server and PostgreSQL share this machine).")
    ms = sorted(x * 1000 for x in bets["latencies"])
    rate, p99, errors = len(ms) / bets["wall"], percentile(ms, 99), sum(bets["errors"].values())
    ok = rate >= TARGET_RATE and p99 < TARGET_P99_MS and errors == 0
    print(f"Target: >= {TARGET_RATE:.0f} bets/s with p99 under {TARGET_P99_MS:.0f} ms and no errors -> "
          f"{rate:,.0f} bets/s, p99 {p99:.1f} ms, {errors} errors: {'MET' if ok else 'MISSED'}")
    return 0 if all(c[2] == "OK" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
