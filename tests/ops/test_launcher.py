"""The launcher of `make run` (scripts/serve.py) as real processes: a child that dies comes back while
the others stay up, no child outlives the launcher (SIGTERM or SIGKILL), and a child that cannot stay
up makes the launcher exit non-zero."""
import os
import re
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from django.conf import settings as dj_settings

from tests import localhttp
from tests.servers import db_url_of_tests, free_port, wait_until

ROOT = Path(dj_settings.BASE_DIR)
PORTS = range(18440, 18460)
STARTED = re.compile(r"^serve: (\S+) started \(pid (\d+)\)$", re.M)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live processes in the process group: a child and whatever it started (workers, Celery's pool)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def children_started(log: Path) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for name, pid in STARTED.findall(log.read_text()):
        found.setdefault(name, []).append(int(pid))
    return found


class Launcher:
    def __init__(self, tmp_path: Path, *args: str, port: int | None = None, collect: bool = False, **env_extra: str):
        """`collect`: let the launcher run collectstatic (else the session's collected STATIC_ROOT serves)."""
        self.port = port or free_port(PORTS)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp_path / "serve.log"
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        env.update(DATABASE_URL=db_url_of_tests(), TASK_RUNNER="celery",
                   CHANNELS_PREFIX=f"launcher-{uuid.uuid4().hex[:8]}", SECRET_KEY=dj_settings.SECRET_KEY)
        env.update(TMPDIR=str(tmp_path), **env_extra)  # the launcher's own files, gone with the test's
        args = args if collect else ("--no-collectstatic", *args)
        self.proc = subprocess.Popen([sys.executable, "scripts/serve.py", "--port", str(self.port), *args], cwd=ROOT, env=env,
                                     stdout=open(self.log, "w"), stderr=subprocess.STDOUT, start_new_session=True)

    def serving(self) -> bool:
        try:
            return localhttp.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def started(self) -> dict[str, list[int]]:
        return children_started(self.log)

    def all_pids(self) -> list[int]:
        return [pid for pids in self.started().values() for pid in pids]

    def cleanup(self):
        for pid in [self.proc.pid, *self.all_pids()]:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.proc.wait(10)


@pytest.fixture
def launcher(tmp_path):
    made = []

    def start(*args, **kwargs):
        made.append(Launcher(tmp_path, *args, **kwargs))
        return made[-1]

    yield start
    for one in made:
        one.cleanup()


def start_studio(launcher) -> "Launcher":
    studio = launcher()
    wait_until(lambda: studio.serving() and {"web", "virtual-dealer", "worker", "beat"} <= set(studio.started()),
               "the studio to start", logs=[studio.log])
    return studio


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_killed_worker_comes_back_and_the_web_server_stays_up(launcher):
    studio = start_studio(launcher)
    web = studio.started()["web"]
    worker = studio.started()["worker"][0]
    os.kill(worker, signal.SIGKILL)

    def restarted():
        assert studio.serving(), "the web server went down with the worker"
        workers = studio.started()["worker"]
        return len(workers) == 2 and alive(workers[1])

    wait_until(restarted, "the worker to come back", logs=[studio.log])
    wait_until(lambda: not group_members(worker), "the killed worker's pool processes to go", logs=[studio.log])
    assert studio.started()["web"] == web and alive(web[0]) and studio.serving()
    assert studio.proc.poll() is None
    assert "worker exited (code -9)" in studio.log.read_text()


def children_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_sigterm_to_the_launcher_leaves_no_child(launcher):
    studio = start_studio(launcher)
    pids = studio.all_pids()
    metrics = Path(children_environ(studio.started()["web"][0])["PROMETHEUS_MULTIPROC_DIR"])
    assert metrics.is_dir()
    studio.proc.send_signal(signal.SIGTERM)
    assert studio.proc.wait(30) == 0
    assert not [pid for pid in pids if group_members(pid)]  # every child, and every child's own children
    assert not metrics.exists()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_sigkill_to_the_launcher_takes_its_children_down(launcher):
    studio = start_studio(launcher)
    pids = studio.all_pids()
    studio.proc.send_signal(signal.SIGKILL)
    studio.proc.wait(10)
    wait_until(lambda: not [pid for pid in pids if group_members(pid)], "the children to stop after the launcher died", logs=[studio.log])


def test_a_child_that_cannot_start_makes_the_launcher_exit_non_zero(launcher):
    with socket.socket() as taken:  # the web server's port, held by someone else: uvicorn exits at once
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one = launcher("--no-celery", "--no-virtual-dealer", "--restart-limit", "2", port=port)
        wait_until(lambda: one.proc.poll() is not None, "the launcher to give up", timeout=120, logs=[one.log])
    assert one.proc.returncode == 1, one.log.read_text()
    assert len(one.started()["web"]) == 3
    assert "cannot stay up" in one.log.read_text()
    assert not [pid for pid in one.all_pids() if alive(pid)]


def test_the_launcher_collects_the_static_files_and_the_server_serves_them_cached(launcher, tmp_path):
    """Into an empty STATIC_ROOT: the admin's stylesheet is served under its hashed name, cached for a
    year (immutable) and gzip-compressed. In production (DEBUG off) the admin's pages name that file;
    the plain one is served too."""
    static_root = tmp_path / "static"
    studio = launcher("--no-celery", "--no-virtual-dealer", collect=True, STATIC_ROOT=str(static_root))
    wait_until(studio.serving, "the studio to start", logs=[studio.log])
    assert (static_root / "staticfiles.json").is_file()
    page = localhttp.get(studio.url + "/admin/login/", timeout=10)
    assert page.status_code == 200
    href = re.search(r'href="(/static/admin/css/base[^"]*\.css)"', page.text)[1]
    assert re.fullmatch(r"/static/admin/css/base\.[0-9a-f]{12}\.css", href)
    css = localhttp.get(studio.url + href, headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert css.status_code == 200 and css.headers["Content-Type"].startswith("text/css")
    assert "immutable" in css.headers["Cache-Control"]
    assert int(re.search(r"max-age=(\d+)", css.headers["Cache-Control"])[1]) >= 365 * 24 * 3600
    assert css.headers["Content-Encoding"] == "gzip" and "body" in css.text
    plain = localhttp.get(studio.url + "/static/admin/css/base.css", timeout=10)
    assert plain.status_code == 200 and "body" in plain.text
