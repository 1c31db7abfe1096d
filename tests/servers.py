"""Real processes for the tests that need them: the studio under uvicorn (WebSockets need the ASGI
server; pytest-django's live_server is WSGI) on the test database."""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from django.conf import settings

from tests import localhttp
from tests.workers import PORT_BLOCK, worker_index

TEST_SETTINGS = "tests.settings"  # what the test process runs on (pyproject.toml), and its servers and workers


def free_ports(ports: range, n: int = 1) -> list[int]:
    """The first n ports of `ports` nobody listens on, shifted into this pytest-xdist worker's block
    (tests.workers), for a process that takes a port number (scripts/serve.py)."""
    shift = worker_index() * PORT_BLOCK
    free = []
    for port in range(ports.start + shift, ports.stop + shift):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        free.append(port)
        if len(free) == n:
            return free
    pytest.fail(f"no {n} free ports in {ports.start + shift}-{ports.stop + shift - 1} for the test servers")


def free_port(ports: range) -> int:
    return free_ports(ports)[0]


def db_url_of_tests() -> str:
    """A DATABASE_URL for the database the tests run on (pytest-django's test_<name>), over TCP or
    the server's Unix socket (a host that is a folder)."""
    db = settings.DATABASES["default"]
    auth = quote(db.get("USER") or "postgres") + (":" + quote(db["PASSWORD"]) if db.get("PASSWORD") else "")
    host = db.get("HOST") or "127.0.0.1"
    where = quote(host, safe="") if host.startswith("/") else f"{host}:{db.get('PORT') or 5432}"
    return f"postgres://{auth}@{where}/{db['NAME']}"


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_until(predicate, what: str, *, timeout: float = 60, procs=(), logs=()):
    """Poll `predicate` until it is true and return its value. Fail naming `what`, with the tails of
    `logs`, after `timeout` seconds, or at once when one of `procs` has exited."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        exited = [p.args for p in procs if p.poll() is not None]
        if exited or time.monotonic() > deadline:
            why = f"exited: {exited}" if exited else f"not so after {timeout} s"
            pytest.fail(f"waiting for {what}: {why}" + "".join(f"\n{Path(log).read_text()[-3000:]}" for log in logs))
        time.sleep(0.05)


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a process the tests start: the tests' settings (tests/settings.py) on the
    test database and the run's Redis, the tests' SECRET_KEY, tasks eager (TEST_TASKS=broker: sent to
    the broker, for a Celery worker to run)."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": TEST_SETTINGS, "DATABASE_URL": db_url_of_tests(),
            "REDIS_URL": settings.REDIS_URL, "SECRET_KEY": settings.SECRET_KEY, **extra}


@contextlib.contextmanager
def studio_server(*, log_dir: Path, name: str, channels_prefix: str | None = None, **env_extra: str):
    """uvicorn serving the studio on the test database, tasks eager; yields its base URL (see studio_process)."""
    with studio_process(log_dir=log_dir, name=name, channels_prefix=channels_prefix, **env_extra) as (url, _proc):
        yield url


@contextlib.contextmanager
def studio_process(*, log_dir: Path, name: str, channels_prefix: str | None = None, **env_extra: str):
    """uvicorn serving the studio on the test database, tasks eager; yields its base URL and its
    process (one web process: what it holds is what /proc/<pid> says). It signs
    with the tests' SECRET_KEY, so a session made in the test process is valid there.
    The listening socket is made here, on a port the system picks, and handed to the web process
    (web/server.py, `--fd`): it listens before the server starts, so no other process (another
    test, another pytest worker) can take the port between a check and the server's bind, and the
    health check below can only reach this server. The server gets a channel prefix of its own, so
    no other server is heard (`channels_prefix` shares one with a process of the test's: a virtual
    dealer)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    env = server_env(**env_extra)
    env["CHANNELS_PREFIX"] = channels_prefix or f"{os.environ.get('CHANNELS_PREFIX', 'studio')}-{name}-{port}"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "server.log"
    with open(log_path, "wb") as log:
        with listener:  # the server's own copy of the socket stays open; this one is closed
            proc = subprocess.Popen(
                [sys.executable, "-m", "web.server", "--fd", str(listener.fileno())], pass_fds=[listener.fileno()],
                cwd=Path(settings.BASE_DIR), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:  # the socket listens already: one request waits for the server (a client that
                    # gave up after a second would leave its request queued, answered later unasked)
                    if localhttp.get(url + "/healthz", timeout=max(deadline - time.monotonic(), 0.1)).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the test server did not start:\n" + log_path.read_text()[-3000:])
                time.sleep(0.1)
            yield url, proc
        finally:
            stop(proc)


@contextlib.contextmanager
def celery_process(args: list[str], log_path: Path, ready_text: str, **env_extra: str):
    """`python -m celery -A studio ARGS` on the test database, tasks through the broker; yields the
    process once its log says `ready_text`, and stops it on the way out."""
    env = server_env(TEST_TASKS="broker", **env_extra)
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "studio", *args], cwd=settings.BASE_DIR, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while ready_text not in log_path.read_text():
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"celery {args[0]} did not start:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.05)
            yield proc
        finally:
            stop(proc)


@contextlib.contextmanager
def virtual_dealer_process(log_path: Path, channels_prefix: str, **env_extra: str):
    """`manage.py virtual_dealer` on the test database, broadcasting under `channels_prefix` (the
    server's, for its watchers to hear); stopped on the way out."""
    env = server_env(CHANNELS_PREFIX=channels_prefix, PYTHONUNBUFFERED="1", **env_extra)
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "manage.py", "virtual_dealer"], cwd=settings.BASE_DIR, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until(lambda: "virtual dealer running" in log_path.read_text(), "the virtual dealer to start", timeout=30,
                       procs=[proc], logs=[log_path])
            yield proc
        finally:
            stop(proc)


@contextlib.contextmanager
def studio_with_virtual_dealer(log_dir: Path, name: str, **env_extra: str):
    """studio_server and a virtual dealer on one channel prefix (the dealer's broadcasts reach the
    server's watchers through Redis); yields the server's base URL."""
    prefix = f"{os.environ.get('CHANNELS_PREFIX', 'studio')}-{name}-{os.getpid()}"
    with studio_server(log_dir=log_dir, name=name, channels_prefix=prefix, **env_extra) as url:
        with virtual_dealer_process(log_dir / "virtual-dealer.log", prefix, **env_extra):
            yield url


@contextlib.contextmanager
def studio_processes(*, log_dir: Path, name: str, workers: int, ports: range, **env_extra: str):
    """scripts/serve.py with `workers` web processes on one port (each its own SO_REUSEPORT socket),
    no Celery, virtual dealer or collectstatic, on the test database, tasks eager; yields the base URL."""
    port = free_port(ports)
    env = server_env(CHANNELS_PREFIX=f"{os.environ.get('CHANNELS_PREFIX', 'studio')}-{name}-{port}", **env_extra)
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "scripts/serve.py", "--port", str(port), "--workers", str(workers), "--no-celery",
                                 "--no-virtual-dealer", "--no-collectstatic"], cwd=Path(settings.BASE_DIR), env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: log_path.read_text().count(" started (pid ") >= workers and _answers(url), "the web processes to start",
                   procs=[proc], logs=[log_path])
        yield url
    finally:
        stop(proc)


def _answers(url: str) -> bool:
    try:
        return localhttp.get(url + "/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False
