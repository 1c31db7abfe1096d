"""Benchmark: POST /api/rounds/{id}/bets/ under 50 concurrent clients over HTTP.

The production server setup (scripts/serve.py --no-celery --workers 2: two web processes on one port, web/server.py,
DEBUG=0, a SECRET_KEY, PostgreSQL, REDIS_URL so the bet.placed messages go to Redis; no Celery worker
is needed) serves one round with a long betting window and a big max_bet. 5,000 players with plenty
of chips (so that each places a few bets in the round, as at a real table, not dozens) are shared
out among the clients (each client cycles its own players, so no two requests in flight wait for
the same wallet lock). The load comes from scripts/http_load.py: 50 keep-alive
connections on one asyncio loop, sending prebuilt requests (it shares the 2 cores with the server).

The same load is sent, closed-loop (each client sends its next request when the last is answered:
capacity, requests/s), to GET /healthz (one SELECT 1: the HTTP stack alone), to GET /api/me/ (token
auth + a wallet read) and as bets, so the reader sees what the bet itself costs. The three are timed
in --rounds rounds, their order reversed every other round (healthz, me, bets, then bets, me,
healthz, ...), so a VM whose speed drifts during the run drifts under all three alike; each round's
ratios are printed too. Then the bets paced at --rate bets/s in all (latency at that load, counted
from when each request was due, so a stall is charged for every request it held up).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_bets_http.py [--requests 5000] [--rounds 4] [--clients 50] [--workers 2] [--rate 500] [--keep]

(BENCH_PORTS and BENCH_SUFFIX keep runs apart on a shared machine: scripts/bench_common.py.)

Targets, as ratios measured in the same run on the same stack: `GET /api/me/` (the generic
token-authenticated API request) at least 0.5x the `/healthz` floor's requests per second; bets at
least 0.4x `GET /api/me/`'s, closed loop (a bet, with its wallet's kind, its locks, its context, its
write through the ledger and its message to the player, costs the machine at most 2.5 authenticated
reads); p99 under 100 ms when offered half the bets' capacity (the paced phase's default rate); no
non-2xx answer and every ledger check passing. The bets' ratio to the floor is printed beside them,
not judged, with the most a bet could reach on that run's figures (`bound_line`): a bet is at least
an authenticated request plus its own PostgreSQL work, and on two cores shared by the client, the
server and PostgreSQL that alone costs more than twice the floor (docs/PERFORMANCE.md, "The bets'
target"). With 50 clients in a closed loop, latency is clients / throughput by Little's law, so the
closed loop measures the rate and the paced phase the latency.
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

ME_TO_FLOOR, BETS_TO_ME = 0.5, 0.4  # GET /api/me/ against the floor, bets against GET /api/me/ (requests/s)
TARGET_P99_MS = 100.0  # at half the bets' capacity
CHIPS = 1_000_000
WARMUP = 200  # requests per phase before timing (connections opened, code paths warm)


def postgres_backends(monitor, db_name: str) -> set[int]:
    """The server's PostgreSQL sessions (their pids), through the monitoring connection `monitor`."""
    rows = monitor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [db_name])
    return {row[0] for row in rows.fetchall()}


def measure(url: str, clients: int, make_request, requests: int, first: int, server_pids: set[int], monitor, db_name: str,
            max_seconds: float, rate: float | None = None, check=None) -> dict:
    """Time `requests` requests, closed-loop or paced at `rate`, with the CPU seconds used meanwhile by
    the client, the server's processes and their PostgreSQL sessions."""
    pg = postgres_backends(monitor, db_name)
    before = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(pg))
    timed = http_load.drive(url, clients, make_request, first=first, count=requests, rate=rate, max_seconds=max_seconds, check=check)
    pg |= postgres_backends(monitor, db_name)
    after = (cpu_seconds({os.getpid()}), cpu_seconds(server_pids), cpu_seconds(pg))
    return {"latencies": timed.latencies, "errors": timed.errors, "wall": timed.wall, "ok": timed.ok, "sent": requests,
            "cpu_s": [x - y for x, y in zip(after, before)]}


def warm_up(make_request, requests: int, *, url: str, clients: int, max_seconds: float, **_) -> int:
    """WARMUP requests (at most `requests`), not timed: connections opened, code paths warm. How many succeeded."""
    return http_load.drive(url, clients, make_request, count=min(WARMUP, requests), max_seconds=max_seconds).ok


def combined(name: str, parts: list[dict], warmup_ok: int, rate: float | None = None) -> dict:
    """One phase's figures from its parts (its rounds): requests, errors, time and CPU added up."""
    done = sum(len(p["latencies"]) for p in parts)
    errors: dict[str, int] = {}
    for part in parts:
        for code, n in part["errors"].items():
            errors[code] = errors.get(code, 0) + n
    cpu = [sum(p["cpu_s"][i] for p in parts) for i in range(3)]
    result = {"name": name, "rate": rate, "latencies": [x for p in parts for x in p["latencies"]], "errors": errors,
              "wall": sum(p["wall"] for p in parts), "ok": sum(p["ok"] for p in parts), "warmup_ok": warmup_ok,
              "cpu_ms": [x * 1000 / max(done, 1) for x in cpu], "rates": [len(p["latencies"]) / p["wall"] for p in parts]}
    sent = sum(p["sent"] for p in parts)
    cut = f" (stopped at --max-seconds: {sent - done} not sent)" if done < sent else ""
    print(f"  {name}: {done} requests in {result['wall']:.2f} s{cut}", flush=True)
    return result


def closed_loops(phases: list[tuple], requests: int, rounds: int, common: dict) -> list[dict]:
    """The closed-loop phases (name, make_request, check), each warmed up (WARMUP requests, not timed),
    then timed in `rounds` rounds of requests / rounds each, the phases' order reversed every other
    round (A B C, C B A, ...): the machine's speed drifts over a run (a shared VM), and alternating
    puts every phase in the same stretches of it, so their ratios are the design's, not the drift's."""
    warm = {name: warm_up(make, requests, **common) for name, make, _ in phases}
    per_round = {**common, "max_seconds": common["max_seconds"] / rounds}
    chunk = max(1, requests // rounds)
    parts: dict[str, list[dict]] = {name: [] for name, _, _ in phases}
    for r in range(rounds):
        for name, make, check in (phases if r % 2 == 0 else phases[::-1]):
            first = WARMUP // common["clients"] + 1 + r * (chunk // common["clients"] + 1)  # each round its own players' turn
            parts[name].append(measure(make_request=make, requests=chunk, first=first, check=check, **per_round))
    return [combined(name, parts[name], warm[name]) for name, _, _ in phases]


def bound_line(floor_ms: list[float], me_ms: list[float], bet_pg_ms: float, bets_to_floor: float) -> str:
    """Not judged: the bets' ratio to the floor, and the most it could be on this run's figures. The closed loop keeps both
    cores busy, so rates stand in the inverse ratio of the CPU a request costs the machine (client,
    server, PostgreSQL). A bet is at least a token-authenticated request, `GET /api/me/`'s client and
    server CPU, plus its own PostgreSQL work: even with its parsing, checks, write and publish free
    it would cost that much."""
    floor_total = sum(max(x, 0.0) for x in floor_ms)
    least_bet = max(me_ms[0], 0.0) + max(me_ms[1], 0.0) + bet_pg_ms
    ceiling = floor_total / least_bet if least_bet > 0 else float("nan")
    return (f"Not judged: bets / the floor {bets_to_floor:.2f}x. A bet costs at least what GET /api/me/ costs the client and "
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
    parser.add_argument("--max-seconds", type=float, default=30, help="stop starting requests of a phase after this long (shared among its rounds)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the closed-loop phases are timed in, alternating their order")
    parser.add_argument("--rate", type=float, default=None, help="bets/s offered in the paced phase (default: half the closed loop's)")
    parser.add_argument("--paced-seconds", type=float, default=10, help="length of the paced phase")
    add_server_arguments(parser)
    add_common_arguments(parser, "bets_http")
    args = parser.parse_args()
    if not (1 <= args.rounds <= 20 and 1 <= args.requests <= 50000 and 1 <= args.clients <= 200 and args.clients <= args.players <= 20000):
        parser.error("need 1 <= rounds <= 20, 1 <= requests <= 50000, 1 <= clients <= 200, clients <= players <= 20000")
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
            results = closed_loops([("GET /healthz (floor: HTTP + SELECT 1)", healthz, None),
                                    ("GET /api/me/ (token auth + wallet read)", me, None),
                                    ("POST bets, closed loop (capacity)", place, is_bet)], args.requests, args.rounds, common)
            capacity = len(results[2]["latencies"]) / results[2]["wall"]
            rate = args.rate or max(1.0, capacity / 2)
            warm = warm_up(place, args.requests, **common)
            paced = measure(make_request=place, requests=int(rate * args.paced_seconds), first=WARMUP // args.clients + 1,
                            rate=rate, check=is_bet, **common)
            results.append(combined(f"POST bets, paced at {rate:.0f}/s (latency)", [paced], warm, rate=rate))
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
    per_round = {label: [a / b for a, b in zip(results[i]["rates"], results[j]["rates"])]
                 for label, i, j in (("bets / GET /api/me/", 2, 1), ("GET /api/me/ / the floor", 1, 0))}
    print(f"Each of the {args.rounds} rounds (the phases' order alternating): "
          + "; ".join(f"{label} {', '.join(f'{x:.2f}' for x in xs)}" for label, xs in per_round.items()))
    print(bound_line(results[0]["cpu_ms"], results[1]["cpu_ms"], pg_ms, bet_rate / floor_rate))
    ms = sorted(x * 1000 for x in paced["latencies"])
    offered = paced["rate"]
    achieved = len(ms) / paced["wall"]
    p50, p99 = percentile(ms, 50), percentile(ms, 99)
    errors = sum(sum(r["errors"].values()) for r in results)
    ledger_ok = all(c[2] == "OK" for c in checks)

    def verdict(ok: bool) -> str:
        return "MET" if ok else "MISSED"

    print(f"Target: bets >= {BETS_TO_ME}x GET /api/me/ -> {bet_rate:,.0f} against {me_rate:,.0f} req/s, "
          f"{bet_rate / me_rate:.2f}x: {verdict(bet_rate >= BETS_TO_ME * me_rate)}")
    print(f"Target: GET /api/me/ >= {ME_TO_FLOOR}x the floor -> {me_rate:,.0f} against {floor_rate:,.0f} req/s, "
          f"{me_rate / floor_rate:.2f}x: {verdict(me_rate >= ME_TO_FLOOR * floor_rate)}")
    print(f"Target: p99 < {TARGET_P99_MS:.0f} ms offered half the bets' capacity -> {offered:,.0f} bets/s offered "
          f"({achieved:,.0f}/s answered): p50 {p50:.1f} ms, p99 {p99:.1f} ms: {verdict(p99 < TARGET_P99_MS)}")
    print(f"Target: no errors, every ledger check passing -> {errors} errors, ledger {'OK' if ledger_ok else 'FAILED'}: "
          f"{verdict(errors == 0 and ledger_ok)}")
    return 0 if all(c[2] == "OK" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
