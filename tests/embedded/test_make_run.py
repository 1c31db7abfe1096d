"""`make run`'s studio (scripts/serve.py --prepare) with no URL set, as a newcomer starts it: the
studio's own PostgreSQL and Valkey, migrated, the demo's data, web, the virtual dealer, a Celery
worker and beat. The demo works end to end through them (betting closed by the worker or beat's
sweep, the round settled by the worker), /readyz shows all four parts, a killed PostgreSQL is
started again, SIGTERM stops every process, the database cleanly and last, and a second start finds
the data where it was left."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import httpx
import psycopg
import pytest

import embedded
from tests import localhttp
from tests.servers import free_port, wait_until

from .test_servers import postgres_pid, processes_of

ROOT = Path(embedded.ROOT)
PORTS = range(18470, 18490)
# The test run's own services and settings stay out of it: the studio is the newcomer's.
NOT_INHERITED = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE", "CHANNELS_PREFIX",
                 "PROMETHEUS_MULTIPROC_DIR", "DEMO_DATA"}

pytestmark = pytest.mark.long


class Studio:
    def __init__(self, folder: Path, log: Path):
        self.folder, self.log = folder, log
        self.port = free_port(PORTS)
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
        env.update(STUDIO_DATA_DIR=str(folder), HEARTBEAT_SECONDS="1", TMPDIR=str(log.parent))
        # The run's static files are collected already (tests/conftest.py): no second collector into them.
        self.proc = subprocess.Popen([sys.executable, "scripts/serve.py", "--prepare", "--no-collectstatic", "--port", str(self.port)],
                                     cwd=ROOT, env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT, start_new_session=True)

    def get(self, path: str, token: str | None = None):
        return localhttp.get(self.url + path, headers={"Authorization": f"Token {token}"} if token else {}, timeout=30)

    def post(self, path: str, body: dict, token: str | None = None, method: str = "POST"):
        return httpx.request(method, self.url + path, json=body, timeout=30, trust_env=False,
                             headers={"Authorization": f"Token {token}"} if token else {})

    def ready(self) -> bool:
        try:
            return self.get("/readyz").json()["ok"]
        except (httpx.HTTPError, ValueError):
            return False

    def token(self, username: str) -> str:
        response = self.post("/api/auth/token/", {"username": username, "password": "demo-pass"})
        assert response.status_code == 200, response.text[:300]
        return response.json()["token"]

    def children(self) -> list[int]:
        return [int(line.split("(pid ")[1].rstrip(")")) for line in self.log.read_text().splitlines() if " started (pid " in line]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(90) == 0, self.log.read_text()[-3000:]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) not in ("Z", "X")
    except OSError:
        return False


@pytest.fixture
def folder():
    """The studio's data folder (a short path: the servers' sockets are in it)."""
    path = Path(tempfile.mkdtemp(prefix="studio-run-"))
    yield path
    services = embedded.Services(path)
    if services.keeper_pid() is not None:
        embedded.stop(services)
    shutil.rmtree(path, ignore_errors=True)


def test_make_runs_the_demo_on_the_studios_own_servers(folder, tmp_path):
    log = tmp_path / "serve.log"
    studio = Studio(folder, log)
    try:
        wait_until(studio.ready, "the studio to be ready", timeout=240, procs=[studio.proc], logs=[log])
        parts = studio.get("/readyz").json()["parts"]
        assert set(parts) == {"database", "redis", "worker", "beat"} and all(part["ok"] for part in parts.values())
        services = embedded.Services(folder)
        assert services.up() and set(studio.children()) and "the studio's own" in log.read_text()

        # The demo, end to end through the worker and beat.
        supervisor, dealer, alice = (studio.token(name) for name in ("supervisor", "dealer", "alice"))
        tables = studio.get("/api/tables/", supervisor).json()
        table = next(t for t in (tables["results"] if isinstance(tables, dict) else tables) if t["name"] == "Studio table")
        assert studio.post(f"/api/tables/{table['id']}/", {"betting_seconds": 2}, supervisor, method="PATCH").status_code == 200
        opened = studio.post(f"/api/tables/{table['id']}/rounds/", {"joker": "KS"}, dealer)
        assert opened.status_code == 201, opened.text[:300]
        round_id = opened.json()["id"]
        assert studio.post(f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "100"}, alice).status_code == 201
        status = lambda: studio.get(f"/api/rounds/{round_id}/", dealer).json()["status"]  # noqa: E731
        wait_until(lambda: status() == "dealing", "betting to close at its deadline", timeout=60, logs=[log])
        with psycopg.connect(services.database_url()) as conn:
            reason = conn.execute("SELECT data->>'reason' FROM tables_roundevent WHERE round_id = %s AND action = 'betting_closed'",
                                  [round_id]).fetchone()[0]
        assert reason in ("timer", "sweep")  # the worker at the deadline, or beat's sweep: nobody else closed it
        dealt = studio.post(f"/api/rounds/{round_id}/cards/", {"card": "KD"}, dealer).json()
        assert (dealt["side"], dealt["match"]) == ("andar", True)
        wait_until(lambda: status() == "settled", "the worker to settle the round", timeout=60, logs=[log])
        assert Decimal(studio.get("/api/me/", alice).json()["balance"]) == Decimal("1090")  # 0.9:1 on the first card's side

        # A PostgreSQL that dies is started again, and nothing committed is lost.
        os.kill(postgres_pid(services), signal.SIGKILL)
        wait_until(lambda: "starting them again" in log.read_text() and studio.ready(), "the servers to come back", timeout=120,
                   procs=[studio.proc], logs=[log])
        assert Decimal(studio.get("/api/me/", alice).json()["balance"]) == Decimal("1090")

        children = studio.children()
        studio.stop()
        assert not [pid for pid in children if alive(pid)] and not processes_of(services)
        text = log.read_text()
        assert text.index("worker: Warm shutdown") < text.index("Valkey and PostgreSQL stopped")
        assert "database system is shut down" in (services.pgdata / "log").read_text().rsplit("database system is ready", 1)[1]

        # A second start finds the studio as it was left.
        studio = Studio(folder, log)
        wait_until(studio.ready, "the second start", timeout=120, procs=[studio.proc], logs=[log])
        assert Decimal(studio.get("/api/me/", studio.token("alice")).json()["balance"]) == Decimal("1090")
        assert log.read_text().count("Demo logins") == 2  # said again, made once (alice kept her winnings)
        studio.stop()
        assert not processes_of(services)
    finally:
        studio.kill()
