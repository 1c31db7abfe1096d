"""A broadcast from outside the web server's loop: the studio's channel layer against redis-py's defaults.

A Celery task, the virtual dealer and manage.py broadcast through async_to_sync (tables.stream),
which runs each send on a new event loop, so each one opens a Redis connection of its own. The
studio's layer gives redis-py its version (settings.REDIS_DRIVER); with redis-py's defaults it reads
its package metadata for every new connection. This script times `group_send` through
async_to_sync from this (plain) thread on both layers, in alternating rounds so that the machine's
drift hits both, and prints the medians' ratio.

    python scripts/bench_publish.py             # ~30 s: --publishes 300 --rounds 4

Needs REDIS_URL (the messages go to a group nobody listens to) and DATABASE_URL (for the settings
only: no database is created).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import (  # noqa: E402
    LATENCY_HEADERS, django_setup, latency_row, machine, percentile, print_table, require_postgres_url,
    require_redis_url,
)

TARGET_RATIO = 0.9  # the studio's median at most this times the defaults' (a tenth off, beyond the noise)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--publishes", type=int, default=300, help="sends per layer per round")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (the order reversed every other one)")
    args = parser.parse_args()
    if args.publishes < 10 or args.rounds < 1:
        parser.error("--publishes must be at least 10 and --rounds at least 1")
    django_setup(require_postgres_url(), require_redis_url(), migrate=False)
    from asgiref.sync import async_to_sync
    from channels_redis.pubsub import RedisPubSubChannelLayer
    from django.conf import settings

    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    defaults = {key: value for key, value in config["hosts"][0].items() if key != "driver_info"}
    layers = {
        "the studio's layer (settings.CHANNEL_LAYERS)": RedisPubSubChannelLayer(**config),
        "the same, redis-py's defaults": RedisPubSubChannelLayer(hosts=[defaults], prefix=config["prefix"]),
    }
    message = {"type": "stream.event", "group": "bench.publish", "seq": 1, "text": '{"type":"card.dealt"}'}
    print(f"Machine: {machine()}; {args.rounds} rounds of {args.publishes} sends per layer", flush=True)
    times: dict[str, list[float]] = {name: [] for name in layers}
    for name, layer in layers.items():  # warm-up: imports, the first connection
        for _ in range(10):
            async_to_sync(layer.group_send)("bench.publish", message)
    medians: dict[str, list[float]] = {name: [] for name in layers}
    for r in range(args.rounds):
        order = list(layers.items()) if r % 2 == 0 else list(reversed(layers.items()))
        for name, layer in order:
            run = []
            for _ in range(args.publishes):
                started = time.perf_counter()
                async_to_sync(layer.group_send)("bench.publish", message)
                run.append(time.perf_counter() - started)
            times[name].extend(run)
            medians[name].append(percentile(sorted(run), 50))
    async def kept(layer, n: int, out: list[float]) -> None:  # the floor: one loop, its connection kept
        for _ in range(n):
            started = time.perf_counter()
            await layer.group_send("bench.publish", message)
            out.append(time.perf_counter() - started)

    floor: list[float] = []
    async_to_sync(kept)(next(iter(layers.values())), args.publishes * args.rounds, floor)
    rows = [latency_row(name, seconds) for name, seconds in times.items()]
    rows.append(latency_row("(context) the studio's layer on one loop, connection kept", floor))
    print_table(LATENCY_HEADERS, rows, title="group_send through async_to_sync from a plain thread (a new connection each)")
    studio, naive = (times[name] for name in layers)
    ratios = [s / n for s, n in zip(*medians.values())]
    print("Each round's ratio of medians (studio / defaults): " + ", ".join(f"{x:.2f}x" for x in ratios))
    ratio = percentile(sorted(studio), 50) / percentile(sorted(naive), 50)
    verdict = "MET" if ratio <= TARGET_RATIO else "MISSED"
    print(f"Target: the studio's median at most {TARGET_RATIO}x redis-py's defaults' -> {ratio:.2f}x: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
