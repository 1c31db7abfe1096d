"""Benchmark: the public round log's append and proofs, on a small log and on one of 10 million leaves.

The big log's subtrees are generated set-based in PostgreSQL (the leaves are synthetic outcomes:
SHA-256(0x00 || '{"round":i}'), every perfect subtree above them by INSERT ... SELECT, a level at a
time), then a checkpoint of it is signed, so that proofs are served as the studio serves them
(integrity.publiclog). Its leaf rows are not generated: proofs and appends read only the subtrees.

- Append: a real round settled through the services puts its outcome in the log's outbox; each
  timed append takes one waiting leaf in (integrity.publiclog.log_append: its own transaction,
  statements counted), on the small log first and then on the big one.
- Proofs: inclusion proofs of random leaves and consistency proofs between random sizes of the
  big log (integrity.publiclog.inclusion_proof / consistency_proof), against the bare floor: one
  subtree read by its primary key.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python scripts/bench_log.py [--leaves 10000000] [--small 1000] [--samples 300] [--keep]

Targets: an append costs the same statements on the big log as on the small one, its median
within 2x of the small log's; a proof reads at most 2 log2(n) subtrees, in one query, p99 < 20 ms.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

from bench_common import (  # noqa: E402
    LATENCY_HEADERS, add_common_arguments, create_database, django_setup, drop_database, latency_row, machine, make_dealer,
    percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url, timed,
)

TARGET_RATIO, TARGET_P99_MS = 2.0, 20.0


def generate(n: int) -> None:
    """A log of n synthetic leaves: every perfect subtree, level by level, set-based; the head."""
    from django.db import connection

    from audit import merkle
    from integrity import publiclog

    node = publiclog.NODE
    with connection.cursor() as cur:
        cur.execute(f"INSERT INTO {node} (level, index, hash) SELECT 0, i, sha256('\\x00'::bytea || convert_to('{{\"round\":' || i || '}}', 'UTF8')) "
                    f"FROM generate_series(0, %s - 1) AS i", [n])
        level, width = 0, n
        while width > 1:
            cur.execute(f"INSERT INTO {node} (level, index, hash) SELECT %s + 1, a.index / 2, sha256('\\x01'::bytea || a.hash || b.hash) "
                        f"FROM {node} a JOIN {node} b ON b.level = a.level AND b.index = a.index + 1 "
                        f"WHERE a.level = %s AND a.index %% 2 = 0", [level, level])
            level, width = level + 1, width // 2
        cur.execute(f"ANALYZE {node}")
        known = publiclog.subtrees(merkle.frontier(n))
        cur.execute(f"UPDATE {publiclog.HEAD} SET size = %s, root = %s WHERE id = 1",
                    [n, merkle.root(n, lambda lv, ix: known[(lv, ix)])])


def settled_round(dealer, table) -> int:
    from tables.services import card_deal, round_close_betting, round_open

    from bets.settlement import round_settle

    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    card_deal(round_id=rnd.pk, card="2C", actor=dealer)
    card_deal(round_id=rnd.pk, card="KD", actor=dealer)
    round_settle(round_id=rnd.pk)
    return rnd.pk


def appends(round_id: int, leaf: bytes, count: int) -> tuple[list[float], int]:
    """`count` appends of one waiting leaf each: their seconds, and the statements of the last."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from integrity import publiclog
    from integrity.models import LogPending

    seconds, statements = [], 0
    for _ in range(count):
        LogPending.objects.create(round_id=round_id, leaf=leaf)
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            assert publiclog.log_append() == 1
            seconds.append(time.perf_counter() - started)
        statements = len(queries)
    return seconds, statements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=10_000_000, help="the big log's leaves")
    parser.add_argument("--small", type=int, default=1000, help="the small log's leaves (appended through the studio's code)")
    parser.add_argument("--samples", type=int, default=300, help="appends and proofs timed each way")
    add_common_arguments(parser, "log")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_log")
    django_setup(db_url, redis_url, LOG_LEVEL="ERROR", DB_STATEMENT_TIMEOUT_MS="0")
    from django.db import connection

    from audit import merkle
    from integrity import publiclog
    from integrity.models import LogPending
    from tables.models import Table

    rng = random.Random(args.seed)
    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database bench_log", flush=True)
    try:
        dealer, table = make_dealer(), Table.objects.create(name="Bench log", betting_seconds=600)
        round_id = settled_round(dealer, table)
        leaf = bytes(LogPending.objects.get(round_id=round_id).leaf)
        with timed(f"the small log: {args.small} leaves appended through the studio's code"):
            LogPending.objects.bulk_create([LogPending(round_id=round_id, leaf=leaf) for _ in range(args.small - 1)])
            while publiclog.log_append():
                pass
        small, small_statements = appends(round_id, leaf, args.samples)
        with connection.cursor() as cur:  # the big log in its place
            cur.execute(f"TRUNCATE {publiclog.NODE}, {publiclog.ENTRY}, {publiclog.PENDING}")
        with timed(f"the big log: {args.leaves:,} leaves' subtrees generated set-based"):
            generate(args.leaves)
        publiclog.log_publish()  # its checkpoint: proofs are served within the latest one
        big, big_statements = appends(round_id, leaf, args.samples)
        publiclog.log_publish()
        size = publiclog.log_size()
        inclusion, consistency, floor, most_read = [], [], [], 0
        for _ in range(args.samples):
            index = rng.randrange(size)
            started = time.perf_counter()
            proof = publiclog.inclusion_proof(index=index, size=size)
            inclusion.append(time.perf_counter() - started)
            old = rng.randrange(1, size)
            started = time.perf_counter()
            proof2 = publiclog.consistency_proof(old=old, new=size)
            consistency.append(time.perf_counter() - started)
            read = max(len(merkle.wanted(lambda p, i=index: merkle.inclusion_path(i, size, p))),
                       len(merkle.wanted(lambda p, o=old: merkle.consistency_path(o, size, p))))
            most_read = max(most_read, read, len(proof), len(proof2))
            started = time.perf_counter()
            with connection.cursor() as cur:
                cur.execute(f"SELECT hash FROM {publiclog.NODE} WHERE level = 0 AND index = %s", [index])
                cur.fetchone()
            floor.append(time.perf_counter() - started)
    finally:
        connection.close()
        purge_celery_messages(redis_url, {os.getpid()})
        if not args.keep:
            drop_database(url, "bench_log")

    print_table(LATENCY_HEADERS, [
        latency_row(f"append one leaf, log of {args.small:,} ({small_statements} statements)", small),
        latency_row(f"append one leaf, log of {args.leaves:,} ({big_statements} statements)", big),
        latency_row(f"inclusion proof, log of {size:,}", inclusion),
        latency_row(f"consistency proof, log of {size:,}", consistency),
        latency_row("floor: one subtree by its key", floor),
    ], title="The public log")
    bound = 2 * math.ceil(math.log2(size))
    ratio = percentile(sorted(big), 50) / percentile(sorted(small), 50)
    worst = max(percentile(sorted(inclusion), 99), percentile(sorted(consistency), 99)) * 1000
    ok_append = big_statements == small_statements and ratio <= TARGET_RATIO
    ok_proof = most_read <= bound and worst < TARGET_P99_MS
    print(f"Target: an append costs the same on {args.leaves:,} leaves as on {args.small:,} -> {big_statements} and {small_statements} "
          f"statements, median {ratio:.2f}x: {'MET' if ok_append else 'MISSED'}")
    print(f"Target: a proof reads at most 2 log2(n) = {bound} subtrees in one query, p99 < {TARGET_P99_MS:.0f} ms -> "
          f"at most {most_read} read, p99 {worst:.2f} ms: {'MET' if ok_proof else 'MISSED'}")
    return 0 if ok_append and ok_proof else 1


if __name__ == "__main__":
    sys.exit(main())
