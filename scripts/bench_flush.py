"""Benchmark: emptying the studio's database, as the test suite does after each transactional test:
the test suite's backend (DELETE, tests/postgresql/base.py) against Django's PostgreSQL backend
(TRUNCATE), alternated in one run.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python scripts/bench_flush.py [--runs 10]

Before each flush it writes what a test typically leaves: a dealer, a table and a round dealt to
its match through the services (its cards, audit records and chain head). It times the flush's SQL
(in its one transaction), then the whole of a transactional test's teardown: that SQL and the
post_migrate signal that puts the content types and permissions back (the same for both ways).
`manage.py flush` itself also resets the sequences, which only TRUNCATE does: it keeps TRUNCATE.
Target: the DELETE flush faster than TRUNCATE (it is the test suite's, for that reason).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

from bench_common import (  # noqa: E402
    LATENCY_HEADERS, add_common_arguments, create_database, django_setup, drop_database, latency_row, machine,
    percentile, pg_version, print_table, purge_celery_messages, require_postgres_url, require_redis_url,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="flushes each way")
    add_common_arguments(parser, "flush")
    args = parser.parse_args()
    url, redis_url = require_postgres_url(), require_redis_url()
    db_url = create_database(url, "bench_flush")
    django_setup(db_url, redis_url)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.management.color import no_style
    from django.core.management.sql import emit_post_migrate_signal
    from django.db import connection
    from django.db.backends.postgresql.operations import DatabaseOperations as DjangoOperations

    from tests.postgresql.base import DatabaseOperations as TestOperations

    from engine import FULL_PACK
    from tables.models import Table
    from tables.services import card_deal, round_close_betting, round_open

    rng = random.Random(args.seed)

    def leave_some_rows() -> None:
        """A dealer, a table and a round dealt to its match, as a test would leave them."""
        call_command("studio_user", "bench_flush_dealer", "--role", "dealer", "--password", "bench-flush-pw",
                     stdout=open(os.devnull, "w"))
        dealer = get_user_model().objects.get(username="bench_flush_dealer")
        table = Table.objects.create(name="Bench flush", betting_seconds=600)
        pack = [str(card) for card in FULL_PACK]
        rng.shuffle(pack)
        rnd = round_open(table_id=table.pk, joker=pack[0], dealer=dealer)
        round_close_betting(round_id=rnd.pk, actor=dealer)
        for card in pack[1:]:
            if card_deal(round_id=rnd.pk, card=card, actor=dealer)[1]:
                break

    print(f"Machine: {machine()}, {pg_version()}; load average {os.getloadavg()[0]:.2f}; database bench_flush; "
          f"{args.runs} flushes each way", flush=True)
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    ways = {"DELETE (the test suite's backend)": TestOperations(connection),
            "TRUNCATE (Django's PostgreSQL backend)": DjangoOperations(connection)}
    sql_times: dict[str, list[float]] = {name: [] for name in ways}
    teardown_times: dict[str, list[float]] = {name: [] for name in ways}
    try:
        for _ in range(args.runs):
            for name, ops in ways.items():
                leave_some_rows()
                sql = ops.sql_flush(no_style(), tables)
                started = time.perf_counter()
                connection.ops.execute_sql_flush(sql)
                sql_times[name].append(time.perf_counter() - started)
                started = time.perf_counter()
                emit_post_migrate_signal(0, False, connection.alias)  # the content types and permissions back
                teardown_times[name].append(time.perf_counter() - started + sql_times[name][-1])
    finally:
        connection.close()
        purge_celery_messages(redis_url, {os.getpid()})  # the rounds' settlement tasks, which nobody runs
        if not args.keep:
            drop_database(url, "bench_flush")
    rows = [latency_row(f"flush SQL: {name}", sql_times[name]) for name in ways]
    rows += [latency_row(f"a test's teardown: {name}", teardown_times[name]) for name in ways]
    print_table(LATENCY_HEADERS, rows, title=f"Emptying {len(tables)} tables")
    (delete, truncate), (delete_all, truncate_all) = ([percentile(sorted(t[name]), 50) for name in ways]
                                                      for t in (sql_times, teardown_times))
    print(f"Median flush SQL: DELETE {delete * 1000:.1f} ms, TRUNCATE {truncate * 1000:.1f} ms ({truncate / delete:.0f}x); "
          f"a transactional test's teardown {delete_all * 1000:.0f} ms against {truncate_all * 1000:.0f} ms.")
    print(f"Target: the tests' DELETE flush faster than TRUNCATE -> {delete * 1000:.1f} against {truncate * 1000:.1f} ms: "
          f"{'MET' if delete < truncate else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
