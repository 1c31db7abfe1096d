"""Benchmark: the time from a card POST to its response, on PostgreSQL.

A dealer opens a round, closes betting and posts the cards of a freshly shuffled pack until the
match, round after round, until --cards cards were dealt. Measured twice:
  * over HTTP against the production server setup (scripts/serve.py --no-celery: its web
    process, web/server.py, DEBUG=0, a SECRET_KEY, PostgreSQL, REDIS_URL so broadcasts go to Redis);
  * in-process through tables.services.card_deal: the floor, no HTTP.
Only the card POSTs (card_deal calls) are timed; one warm-up round of each is not counted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_cards.py [--cards 1000] [--workers 1] [--keep]

Target: p99 under 20 ms over HTTP.
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
    LATENCY_HEADERS, Server, add_common_arguments, add_server_arguments, parse_server_env, create_database, django_setup, drop_database, latency_row, machine,
    like_the_server, percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, server_env,
)

TARGET_P99_MS = 20.0


def shuffled_rounds(rng: random.Random):
    """Endless (joker, cards) pairs: a fresh 52-card pack per round, its first card the joker."""
    from engine import FULL_PACK

    while True:
        pack = [str(c) for c in FULL_PACK]
        rng.shuffle(pack)
        yield pack[0], pack[1:]


def deal_http(client, table_id: int, rounds, cards: int, timings: dict[str, list[float]]) -> int:
    """Deal rounds through the API until `cards` card POSTs were timed. Returns the rounds played."""
    played = 0
    while len(timings["card"]) < cards:
        joker, pack = next(rounds)
        t = time.perf_counter()
        r = client.post(f"/api/tables/{table_id}/rounds/", json={"joker": joker})
        timings["open"].append(time.perf_counter() - t)
        assert r.status_code == 201, (r.status_code, r.text)
        round_id = r.json()["id"]
        t = time.perf_counter()
        r = client.post(f"/api/rounds/{round_id}/close-betting/")
        timings["close"].append(time.perf_counter() - t)
        assert r.status_code == 200, (r.status_code, r.text)
        for card in pack:
            t = time.perf_counter()
            r = client.post(f"/api/rounds/{round_id}/cards/", json={"card": card})
            elapsed = time.perf_counter() - t
            assert r.status_code == 201, (r.status_code, r.text)
            if len(timings["card"]) < cards:  # the last round is finished but not timed past the count
                timings["card"].append(elapsed)
            if r.json()["match"]:
                break
        played += 1
    return played


def deal_inprocess(dealer, table_id: int, rounds, cards: int, timings: list[float]) -> int:
    from tables.services import card_deal, round_close_betting, round_open

    played = 0
    while len(timings) < cards:
        joker, pack = next(rounds)
        rnd = round_open(table_id=table_id, joker=joker, dealer=dealer)
        round_close_betting(round_id=rnd.pk, actor=dealer)
        for card in pack:
            t = time.perf_counter()
            _, match = card_deal(round_id=rnd.pk, card=card, actor=dealer)
            elapsed = time.perf_counter() - t
            if len(timings) < cards:
                timings.append(elapsed)
            if match:
                break
        played += 1
    return played


def count_queries(dealer, table_id: int, rounds) -> dict[str, list[str]]:
    """One more round, untimed, recording the SQL of a plain card and of the match."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tables.services import card_deal, round_close_betting, round_open

    joker, pack = next(rounds)
    rnd = round_open(table_id=table_id, joker=joker, dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    seen: dict[str, list[str]] = {}
    for card in pack:
        with CaptureQueriesContext(connection) as captured:
            _, match = card_deal(round_id=rnd.pk, card=card, actor=dealer)
        seen["match" if match else "card"] = [q["sql"] for q in captured.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]
        if match:
            return seen
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=1000, help="card POSTs to time (each way)")
    parser.add_argument("--workers", type=int, default=1, help="web processes (one dealer posts one card at a time)")
    parser.add_argument("--verbose", action="store_true", help="print the SQL of one card_deal")
    add_server_arguments(parser)
    add_common_arguments(parser, "cards")
    args = parser.parse_args()
    if not 1 <= args.cards <= 20000:
        parser.error("--cards must be between 1 and 20000")
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_cards")
    django_setup(db_url, redis_url)
    import httpx
    from django.db import connection
    from accounts.tokens import token_issue

    from tables.models import Table

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database bench_cards; "
          f"{args.cards} cards each way", flush=True)
    dealer = make_dealer()
    token = token_issue(user=dealer).key
    http_table = Table.objects.create(name="Bench cards HTTP", betting_seconds=600)
    local_table = Table.objects.create(name="Bench cards in-process", betting_seconds=600)
    rng = random.Random(args.seed)
    rounds = shuffled_rounds(rng)
    http = {"open": [], "close": [], "card": []}
    pids = {os.getpid()}
    try:
        extra = parse_server_env(args.server_env)
        with Server(server_env(db_url, redis_url, **extra), workers=args.workers) as server:
            print(f"Server: {' '.join(server.command()[1:])} (DEBUG=0, REDIS_URL set"
                  f"{''.join(f', {k}={v}' for k, v in extra.items())})", flush=True)
            with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {token}"}, timeout=10) as client:
                deal_http(client, http_table.pk, rounds, 1, {"open": [], "close": [], "card": []})  # warm-up round
                started = time.perf_counter()
                http_rounds = deal_http(client, http_table.pk, rounds, args.cards, http)
                http_wall = time.perf_counter() - started
            server.stop()
            pids |= server.pids
        local: list[float] = []
        like_the_server(deal_inprocess, dealer, local_table.pk, rounds, 1, [])  # warm-up round
        started = time.perf_counter()
        local_rounds = like_the_server(deal_inprocess, dealer, local_table.pk, rounds, args.cards, local)
        local_wall = time.perf_counter() - started
        plain: list[float] = []  # context: the same service from a plain thread, a fifth as many cards
        deal_inprocess(dealer, local_table.pk, rounds, max(1, args.cards // 5), plain)
        queries = count_queries(dealer, local_table.pk, rounds)
    finally:
        removed = purge_celery_messages(redis_url, pids)
        connection.close()
        if not args.keep:
            drop_database(url, "bench_cards")

    rows = [
        latency_row("card POST over HTTP", http["card"]),
        latency_row("card_deal in-process (no HTTP)", local),
        latency_row("(context) card_deal from a plain thread", plain),
        latency_row("(context) round open POST", http["open"]),
        latency_row("(context) close-betting POST", http["close"]),
    ]
    print_table(LATENCY_HEADERS, rows, title="Card POST -> response (PostgreSQL, Redis broadcasts)")
    print("In-process runs the service in a worker thread under an event loop, its broadcast sent on that loop before it returns;\n"
          "over HTTP each transaction's broadcast goes out on the web server's own loop (studio.serverloop), and from a plain\n"
          "thread (a Celery task, the virtual dealer, manage.py) through async_to_sync(group_send) (tables.stream.publish).")
    print(f"HTTP: {len(http['card'])} cards in {http_rounds} rounds, {http_wall:.1f} s wall (incl. opens/closes). "
          f"In-process: {len(local)} cards in {local_rounds} rounds, {local_wall:.1f} s wall.")
    print(f"SQL statements per card_deal (plus BEGIN and COMMIT): {len(queries.get('card', []))} for a card, "
          f"{len(queries.get('match', []))} for the match. Removed {removed} queued Celery messages (no worker ran).")
    if args.verbose:
        for kind, sqls in queries.items():
            print(f"  {kind}:", *(f"    {q[:160]}" for q in sqls), sep="\n")
    p99 = percentile(sorted(x * 1000 for x in http["card"]), 99)
    verdict = "MET" if p99 < TARGET_P99_MS else "MISSED"
    print(f"Load average at the end: {os.getloadavg()[0]:.2f} (the figures are only as quiet as the machine).")
    print(f"Target: p99 under {TARGET_P99_MS:.0f} ms over HTTP -> {p99:.2f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
