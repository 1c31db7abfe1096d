"""Shared helpers of the benchmark scripts (scripts/bench_*.py): a fresh PostgreSQL database per
script, Django set up against it, the production server started as a subprocess, timing statistics
and a plain-text results table.

The scripts are not tests: they print figures. Each one needs DATABASE_URL=postgres://... (it only
uses the server and credentials of that URL: it creates and migrates its own database there, named
bench_<script>, and drops it at the end unless --keep is given) and REDIS_URL (a Redis database of
its own: the stream's messages and the Celery tasks nobody runs during a benchmark go there). Several runs on one machine at once
keep apart with BENCH_SUFFIX=x (databases bench_<script>_x) and BENCH_PORTS=FIRST-LAST (the ports
their servers may listen on, 8131-8139 by default).
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio.signednote import SigningKey  # noqa: E402


def _ports() -> range:
    first, _, last = os.environ.get("BENCH_PORTS", "8131-8139").partition("-")
    return range(int(first), int(last or first) + 1)


PORTS = _ports()  # the ports the benchmarks may listen on (all on 127.0.0.1)
SUFFIX = os.environ.get("BENCH_SUFFIX", "")


def refuse(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def require_postgres_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        refuse("set DATABASE_URL=postgres://USER@HOST:PORT/DB (the benchmarks measure PostgreSQL; "
               "they create, migrate and drop their own database bench_<name> on that server)")
    return url


def require_redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        refuse("set REDIS_URL=redis://HOST:PORT/DB (the studio broadcasts through Redis and sends its tasks there; "
               "use a Redis database of your own: the Celery tasks nobody runs are removed at the end)")
    return url


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))


def _admin_connection(url: str):
    import psycopg

    return psycopg.connect(with_database(url, "postgres").replace("postgresql://", "postgres://", 1), autocommit=True)


def _named(name: str) -> str:
    assert name.startswith("bench_") and (SUFFIX == "" or SUFFIX.isidentifier()), (name, SUFFIX)
    return f"{name}_{SUFFIX}" if SUFFIX else name


def create_database(url: str, name: str) -> str:
    """Drop (if present) and create the database `name` (with BENCH_SUFFIX) on the server of `url`; return its URL."""
    name = _named(name)
    with _admin_connection(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(url, name)


def drop_database(url: str, name: str) -> None:
    name = _named(name)
    with _admin_connection(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


BENCH_LOG_KEY = SigningKey.generate("bench.andar-bahar.studio/log").text()  # the public log's key, this run's


def server_env(db_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of the production setup: DEBUG off, a real SECRET_KEY, PostgreSQL, Redis."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(DATABASE_URL=db_url, REDIS_URL=redis_url, DEBUG="0", SECRET_KEY=secrets.token_urlsafe(48), LOG_LEVEL="WARNING",
               LOG_SIGNING_KEY=os.environ.get("LOG_SIGNING_KEY") or BENCH_LOG_KEY,
               CHANNELS_PREFIX=os.environ.get("CHANNELS_PREFIX", "bench"), PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def django_setup(db_url: str, redis_url: str, *, migrate: bool = True, **extra: str) -> None:
    """Set up Django in this process with the same environment as the server, and migrate."""
    os.environ.update(server_env(db_url, redis_url, **extra))
    os.environ["DJANGO_SETTINGS_MODULE"] = "studio.settings"
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    refuse(f"no free port in {PORTS.start}-{PORTS.stop - 1} on 127.0.0.1")


def _children(pid: int) -> set[int]:
    """The pids of a process tree (from /proc), to recognise the Celery messages it sent."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, todo = {pid}, [pid]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in tree:
                tree.add(child)
                todo.append(child)
    return tree


class Server:
    """`scripts/serve.py --no-celery` (its web processes: web/server.py) on a free port of 127.0.0.1."""

    def __init__(self, env: dict[str, str], workers: int = 1):
        self.env, self.workers = env, workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.pids: set[int] = set()
        self.log = tempfile.NamedTemporaryFile(prefix="bench-server-", suffix=".log", delete=False)
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        return [sys.executable, "scripts/serve.py", "--no-celery", "--host", "127.0.0.1", "--port", str(self.port),
                "--workers", str(self.workers)]

    def __enter__(self) -> "Server":
        import httpx

        self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    time.sleep(0.5 if self.workers > 1 else 0)  # let every worker finish booting
                    self.pids = _children(self.proc.pid)
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        refuse(f"the server did not start; its log:\n{Path(self.log.name).read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.pids |= _children(self.proc.pid)
        self.proc.send_signal(signal.SIGTERM)  # serve.py stops its web processes itself
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def __exit__(self, *exc) -> None:
        self.stop()
        os.unlink(self.log.name)

    def errors_logged(self, limit: int = 8) -> list[str]:
        """The distinct error lines of the server's log (exception messages), most frequent first."""
        counts: dict[str, int] = {}
        for line in Path(self.log.name).read_text(errors="replace").splitlines():
            if ("Error" in line or "Exception" in line) and not line.startswith((" ", "Traceback")):
                counts[line.strip()[:200]] = counts.get(line.strip()[:200], 0) + 1
        return [f"{n} x {line}" for line, n in sorted(counts.items(), key=lambda kv: -kv[1])[:limit]]


def purge_celery_messages(redis_url: str, pids: set[int], queue: str = "celery") -> int:
    """No Celery worker runs during a benchmark, so the tasks its processes sent (close betting,
    settle a round of the benchmark's database) would wait in the queue for a worker that may serve
    another database: remove exactly those (Celery stamps each message with its sender's pid)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    removed = 0
    for raw in client.lrange(queue, 0, -1):
        try:
            origin = json.loads(raw)["headers"].get("origin", "")
            pid = int(origin.split("@", 1)[0].removeprefix("gen"))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if pid in pids:
            removed += client.lrem(queue, 1, raw)
    return removed


def cpu_seconds(pids) -> float:
    """User + system CPU time of these local processes (from /proc): who burns the cores."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / tick


class CpuClock:
    """CPU seconds of this process and of its PostgreSQL session (when the server is on this
    machine), next to the wall clock: on a shared machine the wall clock measures the neighbours
    too, the CPU time much less so."""

    def __init__(self):
        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            self.backend = cur.fetchone()[0]
        self.local = Path(f"/proc/{self.backend}/stat").exists()

    def read(self) -> tuple[float, float, float]:
        return time.perf_counter(), time.process_time(), cpu_seconds([self.backend]) if self.local else float("nan")


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), int(-(-p * len(sorted_values) // 100))))
    return sorted_values[rank - 1]


def latency_row(name: str, seconds: list[float]) -> list[str]:
    ms = sorted(s * 1000 for s in seconds)
    return [name, str(len(ms)), f"{percentile(ms, 50):.2f}", f"{percentile(ms, 99):.2f}", f"{ms[-1] if ms else 0:.2f}"]


LATENCY_HEADERS = ["measured", "count", "median ms", "p99 ms", "max ms"]


def print_table(headers: list[str], rows: list[list[str]], title: str | None = None) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = "+".join("-" * (w + 2) for w in widths)
    if title:
        print(f"\n{title}")
    print(line)
    print(" | ".join(str(h).ljust(w) for h, w in zip(headers, widths)))
    print(line)
    for row in rows:
        print(" | ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    print(line)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import timeit

    loop_ms = min(timeit.repeat("sum(range(10**6))", number=1, repeat=5)) * 1000
    return f"{os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}, sum(range(10**6)) in {loop_ms:.0f} ms"


def pg_version() -> str:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SHOW server_version")
        return "PostgreSQL " + cur.fetchone()[0]


@contextmanager
def timed(label: str, quiet: bool = False):
    start = time.perf_counter()
    yield
    if not quiet:
        print(f"  {label}: {time.perf_counter() - start:.2f} s", flush=True)


def add_server_arguments(parser) -> None:
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment of the server, e.g. DB_CONN_MAX_AGE=0 (repeatable), to try a setting")


def parse_server_env(items: list[str]) -> dict[str, str]:
    pairs = [item.split("=", 1) for item in items]
    if any(len(p) != 2 or not p[0] for p in pairs):
        refuse("--server-env takes KEY=VALUE")
    return dict(pairs)


def add_common_arguments(parser, name: str) -> None:
    parser.add_argument("--keep", action="store_true", help=f"keep the database bench_{name} at the end (to inspect it)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the shuffles and bet choices")


def copy_rows(table: str, columns: list[str], rows) -> None:
    """COPY rows (tuples) into a table: the fastest way to create many rows in PostgreSQL."""
    from django.db import connection

    with connection.cursor() as cur, cur.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def make_dealer():
    """The benchmarks' dealer (`bench_dealer`), made through the studio_user command as an operator
    would: the user."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("studio_user", "bench_dealer", "--role", "dealer", "--password", "bench-dealer-pw", stdout=open(os.devnull, "w"))
    return get_user_model().objects.get(username="bench_dealer")


def make_players(n: int, chips: int, *, tokens: bool = False) -> list[tuple[int, int, str]]:
    """n players (bench_p00000...) in the player group, each with a wallet of `chips` play chips
    issued by the mint through the ledger (an ISSUE pair per wallet, as `studio_user --chips` does),
    and, with `tokens`, an API token. Set-based. Returns [(user_id, wallet_id, token or "")]."""
    import secrets as _secrets

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection, transaction
    from django.utils import timezone
    from accounts.models import Token
    from accounts.tokens import ttl
    from bets.ledger import mint_account
    from bets.models import Account, LedgerEntry

    User = get_user_model()
    now = timezone.now()
    A, L = Account._meta.db_table, LedgerEntry._meta.db_table
    with transaction.atomic():
        group = Group.objects.get_or_create(name="player")[0]
        copy_rows(User._meta.db_table, ["username", "password", "first_name", "last_name", "email", "is_superuser",
                                        "is_staff", "is_active", "date_joined"],
                  ((f"bench_p{i:05d}", "!", "", "", "", False, False, True, now) for i in range(n)))
        users = list(User.objects.filter(username__startswith="bench_p").order_by("username").values_list("id", flat=True))
        copy_rows(User.groups.through._meta.db_table, ["user_id", "group_id"], ((u, group.pk) for u in users))
        copy_rows(A, ["kind", "user_id", "currency", "balance"], (("player", u, "CHIPS", chips * 100) for u in users))
        keys = {u: _secrets.token_hex(20) if tokens else "" for u in users}
        if tokens:
            copy_rows(Token._meta.db_table, ["key", "user_id", "kind", "created", "expires_at"],
                      ((keys[u], u, Token.Kind.API.value, now, now + ttl()) for u in users))
        mint = mint_account("CHIPS")
        with connection.cursor() as cur:  # the ISSUE pair of every new wallet (amounts in hundredths)
            mine = f"kind = 'player' AND user_id IN (SELECT id FROM {User._meta.db_table} WHERE username LIKE 'bench\\_p%%')"
            cur.execute(f"INSERT INTO {L} (account_id, amount, kind, version, memo, created_at) "
                        f"SELECT id, balance, 'issue', 0, 'bench chips', %s FROM {A} WHERE {mine} "
                        f"UNION ALL SELECT %s, -SUM(balance), 'issue', 0, 'bench chips', %s FROM {A} WHERE {mine}",
                        [now, mint.pk, now])
        wallets = dict(Account.objects.filter(kind="player", user_id__in=users).values_list("user_id", "id"))
    return [(u, wallets[u], keys[u]) for u in users]


def ledger_checks() -> list[list[str]]:
    """The ledger invariant: all entries sum to 0; every wallet's balance is the sum of its entries."""
    from django.db import connection

    from bets.models import Account, LedgerEntry
    from studio.money import from_minor

    A, L = Account._meta.db_table, LedgerEntry._meta.db_table
    with connection.cursor() as cur:
        cur.execute(f"SELECT COALESCE(SUM(amount), 0), COUNT(*) FROM {L}")
        total, entries = cur.fetchone()
        cur.execute(f"SELECT COUNT(*) FROM {A} a LEFT JOIN (SELECT account_id, SUM(amount) AS s FROM {L} GROUP BY account_id) e "
                    f"ON e.account_id = a.id WHERE a.kind = 'player' AND a.balance <> COALESCE(e.s, 0)")
        wrong = cur.fetchone()[0]
        cur.execute(f"SELECT COUNT(*) FROM {A} WHERE kind = 'player'")
        wallets = cur.fetchone()[0]
    return [["the sum of all ledger entries is 0", f"{from_minor(total)} over {entries} entries", "OK" if total == 0 else "FAILED"],
            ["every wallet balance = the sum of its entries", f"{wallets - wrong}/{wallets} wallets", "OK" if wrong == 0 else "FAILED"]]


def like_the_server(fn, *args, **kwargs):
    """Call fn in a worker thread under a running event loop, as uvicorn + Django's ASGI handler
    run a sync view: its broadcasts (async_to_sync in tables.stream.publish) run on that loop."""
    import asyncio

    from asgiref.sync import sync_to_async
    from django.db import connection

    def run():
        try:
            return fn(*args, **kwargs)
        finally:
            connection.close()

    return asyncio.run(sync_to_async(run, thread_sensitive=True)())
