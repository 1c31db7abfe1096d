"""The studio's own PostgreSQL and Valkey (embedded/), each test in a folder of its own: started by
their first user, shared by the next, stopped (PostgreSQL cleanly) once the last one is gone, their
data kept across a restart; a server that dies takes its keeper down for a supervisor to start them
again; the folder is wiped only while nobody uses it."""
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest
import redis

import embedded
from tests.servers import wait_until

ROOT = Path(embedded.ROOT)


@pytest.fixture
def services(tmp_path_factory):
    """A folder of the test's own (a short path: Unix socket names are short)."""
    folder = tmp_path_factory.mktemp("own")
    made = embedded.Services(folder)
    yield made
    if made.keeper_pid() is not None:
        embedded.stop(made)


def processes_of(services) -> list[int]:
    """Live processes whose command line names the folder: the keeper, PostgreSQL's, Valkey."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if str(services.folder) in command and state not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def postgres_pid(services) -> int:
    return int((services.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])


def user_process(services) -> subprocess.Popen:
    """Another process using the servers until its stdin closes (as a `manage.py shell` would)."""
    code = textwrap.dedent(f"""
        import sys, embedded
        embedded.ensure(embedded.Services({str(services.folder)!r}))
        print("using", flush=True)
        sys.stdin.read()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "using"
    return proc


def test_the_first_user_starts_them_and_the_last_one_stops_them(services):
    embedded.ensure(services)
    assert services.up() and processes_of(services)
    with psycopg.connect(services.database_url()) as conn:
        assert conn.execute("SELECT current_database(), current_setting('server_version_num')::int").fetchone()[1] >= 180000
    assert redis.Redis.from_url(services.redis_url(3)).ping()
    assert not (services.folder / "postgres" / ".s.PGSQL.5432").is_file()  # a socket, not a TCP port: nothing listens on 5432
    other = user_process(services)
    assert embedded.release(services) is False  # another user: they stay up
    assert services.up()
    other.stdin.close()
    assert other.wait(30) == 0
    wait_until(lambda: services.keeper_pid() is None, "the keeper to stop after its last user", timeout=60, logs=[services.log])
    wait_until(lambda: not processes_of(services), "PostgreSQL and Valkey to stop", timeout=30, logs=[services.log])
    log = services.log.read_text()
    assert "no user for" in log and "Valkey stopped" in log and log.index("Valkey stopped") < log.index("PostgreSQL stopped")
    assert "database system is shut down" in (services.pgdata / "log").read_text()  # a clean shutdown, not a crash


def test_the_data_survives_a_restart_and_the_last_user_stops_them_at_once(services):
    embedded.ensure(services)
    with psycopg.connect(services.database_url(), autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (value text)")
        conn.execute("INSERT INTO kept VALUES ('a round')")
    redis.Redis.from_url(services.redis_url()).set("kept", "a queued task")
    assert embedded.release(services) is True  # the last user: stopped before this returns
    assert services.keeper_pid() is None and not processes_of(services)

    embedded.ensure(services)
    with psycopg.connect(services.database_url()) as conn:
        assert conn.execute("SELECT value FROM kept").fetchall() == [("a round",)]
    assert redis.Redis.from_url(services.redis_url()).get("kept") == b"a queued task"  # Valkey's append-only file
    embedded.release(services)


def test_a_killed_postgres_takes_the_keeper_down_and_a_new_start_recovers(services):
    embedded.ensure(services)
    with psycopg.connect(services.database_url(), autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (value text)")
        conn.execute("INSERT INTO kept VALUES ('committed')")
    os.kill(postgres_pid(services), signal.SIGKILL)
    wait_until(lambda: services.keeper_pid() is None, "the keeper to notice", timeout=30, logs=[services.log])
    assert "PostgreSQL exited" in services.log.read_text()
    wait_until(lambda: not processes_of(services), "Valkey to be stopped with it", timeout=30, logs=[services.log])
    embedded.ensure(services)  # what a launcher does (scripts/serve.py)
    with psycopg.connect(services.database_url()) as conn:
        assert conn.execute("SELECT value FROM kept").fetchall() == [("committed",)]
    embedded.release(services)


def test_wipe_is_refused_while_in_use_and_deletes_everything_after(services):
    embedded.ensure(services)
    other = user_process(services)
    embedded.release(services)
    with pytest.raises(embedded.ServicesError, match="in use"):
        embedded.wipe(services)
    assert services.up()
    other.stdin.close()
    other.wait(30)
    embedded.wipe(services)  # waits for nobody: stops them itself
    assert not services.folder.exists() and not processes_of(services)


def test_a_throwaway_pair_deletes_its_folder(tmp_path_factory):
    services = embedded.Services(tmp_path_factory.mktemp("throwaway"))
    embedded.ensure(services, throwaway=True)
    with psycopg.connect(services.database_url()) as conn:
        assert conn.execute("SHOW fsync").fetchone() == ("off",)  # the test suite's: nothing to keep
    embedded.release(services)
    wait_until(lambda: not services.folder.exists(), "the folder to go", timeout=30)
    assert not processes_of(services)


def test_a_server_whose_url_is_set_is_not_started(tmp_path_factory):
    services = embedded.Services(tmp_path_factory.mktemp("valkey-only"), postgres=False)
    embedded.ensure(services)
    assert services.valkey_up() and not services.pgdata.exists()
    embedded.release(services)
    assert not processes_of(services)
