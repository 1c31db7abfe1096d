"""Benchmark: POST /api/rounds/{id}/bets/ under 50 concurrent clients over HTTP.

The production server setup (scripts/serve.py --no-celery --workers 2: two web processes on one port, web/server.py,
DEBUG=0, a SECRET_KEY, PostgreSQL, REDIS_URL so the bet.placed messages go to Redis; no Celery worker
is needed) serves one round with a long betting window and a big max_bet. 5,000 players with plenty
of chips (so that each places a few bets in the round, as at a real table, not dozens) are shared
out among the clients (each client cycles its own players, so no two requests in flight wait for
the same wallet lock). The load comes from scripts/http_load.py: 50 keep-alive
connections on one asyncio loop, sending prebuilt requests (it shares the 2 cores with the server).

The same load is first sent, closed-loop, to GET /healthz (one SELECT 1: the HTTP stack alone) and
to GET /api/me/ (token auth + a wallet read), so the reader sees what the bet itself costs. Then
the bets, twice: closed-loop (each client sends its next bet when the last is answered: capacity,
bets/s), and paced at --rate bets/s in all (latency at that load, counted from when each request
was due, so a stall is charged for every request it held up).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_bets_http.py [--requests 5000] [--clients 50] [--workers 2] [--rate 500] [--keep]

(BENCH_PORTS and BENCH_SUFFIX keep runs apart on a shared machine: scripts/bench_common.py.)

Targets, as ratios to the floor measured in the same run on the same stack (a cheaper stack raises
both): bets at least 0.5x the `/healthz` floor's requests per second, closed loop; p99 under 100 ms
when offered half that capacity (the paced phase's default rate); `GET /api/me/` at least 0.5x the
floor; no non-2xx answer and every ledger check passing. With 50 clients in a closed loop, latency
is clients / throughput by Little's law, so the closed loop measures the rate and the paced phase
the latency.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import http_load  # noqa: E402
from bench_common import (  # noqa: E402
    make_dealer,
    Server, add_common_arguments, cpu_seconds, add_server_arguments, create_database, django_setup, drop_database, ledger_checks, machine, make_players,
    parse_server_env, percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, server_env,
)

TARGET_RATIO, TARGET_P99_MS = 0.5, 100.0  # of the floor's requests/s; ms at half the bets' capacity
CHIPS = 1_000_000
WARMUP = 200  # requests per phase before timing (connections opened, code paths warm)


def postgres_backends(monitor, db_name: str) -> set[int]:
    """The server's PostgreSQL sessions (their pids), through the monitoring connection `monitor`."""
    rows = monitor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [db_name])
    return {row[0] for row in rows.fetchall()}


def phase(name: str, url: str, requests: int, clients: int, make_request, server_pids: set[int], monitor, db_name: str,
          max_seconds: float, rate: float | None = None, check=None) -> dict:
    """Warm up (WARMUP requests, not timed), then time `requests` more, closed-loop or paced at `rate`,
    with the CPU used meanwhile by the client, the server's processes and their PostgreSQL sessions."""
    warm = http_load.drive(url, clients, make_request, count=min(WARMUP, requests), max_seconds=max_seconds)
    pg = postgres_backends(monitor, db_name)
    before = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(pg))
    timed = http_load.drive(url, clients, make_request, first=WARMUP // clients + 1, count=requests, rate=rate,
                            max_seconds=max_seconds, check=check)
    pg |= postgres_backends(monitor, db_name)
    after = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(pg))
    done = len(timed.latencies)
    result = {"name": name, "rate": rate, "latencies": timed.latencies, "errors": timed.errors, "wall": timed.wall, "ok": timed.ok,
              "warmup_ok": warm.ok, "cpu_ms": [(x - y) * 1000 / max(done, 1) for x, y in zip(after, before)]}
    cut = f" (stopped at --max-seconds {max_seconds:.0f}: {requests - done} not sent)" if done < requests else ""
    print(f"  {name}: {done} requests in {timed.wall:.2f} s{cut}", flush=True)
    return result


def bound_line(floor_ms: list[float], me_ms: list[float], bet_pg_ms: float, bets_to_me: float) -> str:
    """Not judged: the most the bets could reach on this run's figures. The closed loop keeps both
    cores busy, so rates stand in the inverse ratio of the CPU a request costs the machine (client,
    server, PostgreSQL). A bet is at least a token-authenticated request, `GET /api/me/`'s client and
    server CPU, plus its own PostgreSQL work: even with its parsing, checks, write and publish free
    it would cost that much."""
    floor_total = sum(max(x, 0.0) for x in floor_ms)
    least_bet = max(me_ms[0], 0.0) + max(me_ms[1], 0.0) + bet_pg_ms
    ceiling = floor_total / least_bet if least_bet > 0 else float("nan")
    return (f"Not judged: bets / GET /api/me/ {bets_to_me:.2f}x. A bet costs at least what GET /api/me/ costs the client and "
            f"the server plus its own PostgreSQL work ({least_bet:.2f} ms against the floor's {floor_total:.2f} ms in all): "
            f"at most {ceiling:.2f}x the floor on this run's figures, were the bet's own Python free.")


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
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2, help="web processes")
    parser.add_argument("--amount", default="10", help="chips per bet")
    parser.add_argument("--max-seconds", type=float, default=30, help="stop starting requests of a phase after this long")
    parser.add_argument("--rate", type=float, default=None, help="bets/s offered in the paced phase (default: half the closed loop's)")
    parser.add_argument("--paced-seconds", type=float, default=10, help="length of the paced phase")
    add_server_arguments(parser)
    add_common_arguments(parser, "bets_http")
    args = parser.parse_args()
    if not (1 <= args.requests <= 50000 and 1 <= args.clients <= 200 and args.clients <= args.players <= 20000):
        parser.error("need 1 <= requests <= 50000, 1 <= clients <= 200, clients <= players <= 20000")
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_bets_http")
    db_name = urlsplit(db_url).path.lstrip("/")
    django_setup(db_url, redis_url)
    import psycopg
    from django.db import connection

    from bets.models import Bet
    from tables.models import Table
    from tables.services import round_open

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database {db_name}", flush=True)
    dealer = make_dealer()
    players = make_players(args.players, CHIPS, tokens=True)
    table = Table.objects.create(name="Bench bets", betting_seconds=3600, min_bet=1, max_bet=10_000_000)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    # Client c cycles players c, c + clients, c + 2 * clients, ...: its own, never another client's.
    own = [[p[2] for p in players[c::args.clients]] for c in range(args.clients)]
    host = "127.0.0.1"
    body = json.dumps({"spot": "andar", "amount": args.amount}).encode()
    auth = [[{"Authorization": f"Token {key}"} for key in keys] for keys in own]
    raw_healthz = http_load.request_bytes("GET", "/healthz", host)
    raw_me = [[http_load.request_bytes("GET", "/api/me/", host, h) for h in hs] for hs in auth]
    raw_bet = [[http_load.request_bytes("POST", f"/api/rounds/{rnd.pk}/bets/", host, {**h, "Content-Type": "application/json"}, body)
                for h in hs] for hs in auth]

    def healthz(c, k):
        return raw_healthz

    def me(c, k):
        return raw_me[c][k % len(raw_me[c])]

    def place(c, k):
        return raw_bet[c][k % len(raw_bet[c])]

    def is_bet(body: bytes) -> bool:  # a 201 with the bet in it
        return b'"status":"open"' in body

    pids = {os.getpid()}
    try:
        extra = parse_server_env(args.server_env)
        with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server:
            print(f"Server: {' '.join(server.command()[1:])} (DEBUG=0, REDIS_URL set"
                  f"{''.join(f', {k}={v}' for k, v in extra.items())}); {args.clients} clients, {args.players} players", flush=True)
            monitor = psycopg.connect(db_url.replace("postgresql://", "postgres://", 1), autocommit=True)
            common = dict(url=server.url, clients=args.clients, server_pids=server.pids, monitor=monitor, db_name=db_name,
                          max_seconds=args.max_seconds)
            results = [phase("GET /healthz (floor: HTTP + SELECT 1)", requests=args.requests, make_request=healthz, **common),
                       phase("GET /api/me/ (token auth + wallet read)", requests=args.requests, make_request=me, **common),
                       phase("POST bets, closed loop (capacity)", requests=args.requests, make_request=place, check=is_bet, **common)]
            capacity = len(results[2]["latencies"]) / results[2]["wall"]
            rate = args.rate or max(1.0, capacity / 2)
            results.append(phase(f"POST bets, paced at {rate:.0f}/s (latency)", requests=int(rate * args.paced_seconds),
                                 make_request=place, check=is_bet, rate=rate, **common))
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
            drop_database(url, "bench_bets_http")

    print_table(["endpoint", "requests", "non-2xx", "req/s", "p50 ms", "p99 ms", "max ms", "CPU ms/req: client / server / postgres"],
                [row(r) for r in results], title=f"{args.clients} concurrent keep-alive clients, {args.workers} web processes")
    expected = sum(r["warmup_ok"] + r["ok"] for r in results[2:])
    checks.append(["every accepted bet is in the database", f"{placed} bets, {expected} accepted", "OK" if placed == expected else "FAILED"])
    print_table(["check", "found", "result"], checks, title="Ledger checks after the run")
    if logged:
        print("Errors in the server's log:", *(f"  {line}" for line in logged), sep="\n")
    print(f"Removed {removed} queued Celery messages (the round's close-betting task; no worker ran).")
    capacity, paced = results[2], results[3]
    _, server_ms, pg_ms = capacity["cpu_ms"]
    pg_ms = max(pg_ms, 0.0)  # n/a (a reused pid) counts as 0
    if server_ms + pg_ms > 0:
        print(f"CPU per bet: server {server_ms:.2f} ms + PostgreSQL {pg_ms:.2f} ms (its sessions that lived through the run): "
              f"with {os.cpu_count()} cores to themselves they could serve at most {os.cpu_count() * 1000 / (server_ms + pg_ms):,.0f} bets/s.")
    print(f"Load average at the end: {os.getloadavg()[0]:.2f} (the client, the server and PostgreSQL share this machine).")
    floor_rate, me_rate = (len(r["latencies"]) / r["wall"] for r in results[:2])
    bet_rate = len(capacity["latencies"]) / capacity["wall"]
    print(bound_line(results[0]["cpu_ms"], results[1]["cpu_ms"], pg_ms, bet_rate / me_rate))
    ms = sorted(x * 1000 for x in paced["latencies"])
    offered = paced["rate"]
    achieved = len(ms) / paced["wall"]
    p50, p99 = percentile(ms, 50), percentile(ms, 99)
    errors = sum(sum(r["errors"].values()) for r in results)
    ledger_ok = all(c[2] == "OK" for c in checks)

    def verdict(ok: bool) -> str:
        return "MET" if ok else "MISSED"

    print(f"Target: bets >= {TARGET_RATIO}x the floor -> {bet_rate:,.0f} against {floor_rate:,.0f} req/s, "
          f"{bet_rate / floor_rate:.2f}x: {verdict(bet_rate >= TARGET_RATIO * floor_rate)}")
    print(f"Target: GET /api/me/ >= {TARGET_RATIO}x the floor -> {me_rate:,.0f} req/s, {me_rate / floor_rate:.2f}x: "
          f"{verdict(me_rate >= TARGET_RATIO * floor_rate)}")
    print(f"Target: p99 < {TARGET_P99_MS:.0f} ms offered half the bets' capacity -> {offered:,.0f} bets/s offered "
          f"({achieved:,.0f}/s answered): p50 {p50:.1f} ms, p99 {p99:.1f} ms: {verdict(p99 < TARGET_P99_MS)}")
    print(f"Target: no errors, every ledger check passing -> {errors} errors, ledger {'OK' if ledger_ok else 'FAILED'}: "
          f"{verdict(errors == 0 and ledger_ok)}")
    return 0 if all(c[2] == "OK" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
