"""Serve the studio on one machine: its web processes (web/server.py: uvicorn, HTTP + WebSockets, all
on the one port), the virtual dealer, a Celery worker and Celery beat, each a child process of this
launcher; and, where DATABASE_URL or REDIS_URL is not set, the studio's own PostgreSQL and Valkey
(embedded/), with their data in `.studio/`. `make run` is this launcher with `--prepare`.

    python scripts/serve.py [--host 127.0.0.1] [--port 8000] [--workers N] [--prepare]

First the servers (when they are the studio's own: started if not running, found if they are), then,
with --prepare, `manage.py migrate` and `manage.py demo_setup` (the demo's users and tables where
demo data is on), beside `manage.py collectstatic` (the files WhiteNoise serves under /static/), then
the children. --no-collectstatic when they are collected already, and for every launcher but one
that share a STATIC_ROOT: a collectstatic rewrites files that a starting server is reading. One
launcher runs on the studio's own servers at a time (a second is refused: its port is the first's).

A child that exits is started again, after 0.5 s, then twice as long after each quick exit (at most
10 s; back to 0.5 s once it has run 30 s). A child that exits more than --restart-limit times within
--restart-window seconds cannot stay up: the launcher stops the studio and exits 1. The studio's own
PostgreSQL and Valkey are watched the same way: their keeper exits when either dies, and they are
started again. SIGTERM or SIGINT (Ctrl-C) stops every child (SIGTERM to its process group, SIGKILL
after 10 s), then Valkey, then PostgreSQL (a clean shutdown) unless another process (a `manage.py
shell`) still uses them, and exits 0. Each child gets SIGTERM from the kernel when the launcher dies,
even by SIGKILL (Linux's parent-death signal), so no child outlives it; the servers' keeper stops
them a few seconds after their last user is gone. Production runs each process on its own (Procfile,
deploy/systemd/) instead.

Process runners were weighed: honcho stops everything when one process exits and has no respawn;
supervisord and circus restart, but neither exits non-zero when a program cannot stay up, nor takes
its programs down when it is SIGKILLed; circus also needs ZeroMQ endpoints of its own. So the launcher
is this file; the production units leave all of it to systemd.

Children get PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode) set to a fresh empty
directory when the caller did not set it.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

from prometheus_client import multiprocess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # embedded, when run as `python scripts/serve.py`
import embedded  # noqa: E402

FIRST_DELAY, MAX_DELAY, STABLE_AFTER = 0.5, 10.0, 30.0  # seconds
STOP_GRACE = 10.0  # seconds between SIGTERM and SIGKILL when stopping
PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def say(text: str) -> None:
    print(f"serve: {text}", flush=True)


def _die_with(parent: int):
    """For Popen's preexec_fn: the child gets SIGTERM when its parent (this launcher) dies."""
    def preexec():
        if _libc is not None:
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the launcher died before the line above took effect
            os._exit(1)
    return preexec


class Child:
    def __init__(self, name: str, argv: list[str], env: dict[str, str]):
        self.name, self.argv, self.env = name, argv, env
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.delay = 0.0
        self.restart_at = 0.0
        self.exits: deque[float] = deque()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, start_new_session=True, preexec_fn=_die_with(os.getpid()))
        self.started = time.monotonic()
        say(f"{self.name} started (pid {self.proc.pid})")

    def signal_group(self, sig: int) -> None:
        """Signal the child's process group: its own children (Celery's pool) too."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def exited(self, now: float, limit: int, window: float) -> bool:
        """Note an exit and plan the restart; False when the child exited too often to go on."""
        code = self.proc.returncode
        self.signal_group(signal.SIGKILL)  # whatever it left behind
        self.proc = None
        self.exits.append(now)
        while self.exits and self.exits[0] < now - window:
            self.exits.popleft()
        if len(self.exits) > limit:
            say(f"{self.name} exited (code {code}) {len(self.exits)} times in {window:g} s: it cannot stay up; stopping the studio")
            return False
        ran = now - self.started
        self.delay = FIRST_DELAY if ran >= STABLE_AFTER or not self.delay else min(self.delay * 2, MAX_DELAY)
        self.restart_at = now + self.delay
        say(f"{self.name} exited (code {code}) after {ran:.1f} s; restarting in {self.delay:g} s")
        return True


def forget_dead_processes(folder: str) -> None:
    """Drop the live gauges (open stream connections) of processes that died with their child: a
    killed web worker's connections are gone, and prometheus-client sums every file it finds."""
    for path in Path(folder).glob("gauge_live*_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, folder)
        except PermissionError:
            pass


def commands(args, env: dict[str, str], runtime: Path) -> list[Child]:
    py = sys.executable
    # --workers web processes, each on its own SO_REUSEPORT socket of the one port (web/server.py):
    # the kernel spreads the connections evenly, where uvicorn's --workers piles them on one process.
    web = [py, "-m", "web.server", "--host", args.host, "--port", str(args.port)]
    children = [Child("web" if args.workers == 1 else f"web-{n}", web, env) for n in range(1, args.workers + 1)]
    if not args.no_virtual_dealer:
        children.append(Child("virtual-dealer", [py, "manage.py", "virtual_dealer"], env))
    if not args.no_celery:
        children.append(Child("worker", [py, "-m", "celery", "-A", "studio", "worker", "--concurrency", str(args.concurrency),
                                         "-n", f"studio-{os.getpid()}@%h"], env))
        children.append(Child("beat", [py, "-m", "celery", "-A", "studio", "beat", "-s", str(runtime / "celerybeat-schedule")], env))
    return children


class Servers:
    """The studio's own PostgreSQL and Valkey, where the environment names no server of that kind:
    started (or found running) and watched; a keeper that exits is started again, within the same
    limit as a child."""

    def __init__(self, services: embedded.Services):
        self.services = services
        self.exits: deque[float] = deque()

    def start(self) -> None:
        embedded.ensure(self.services)
        kinds = " and ".join(k for k, on in (("PostgreSQL", self.services.postgres), ("Valkey", self.services.valkey)) if on)
        say(f"{kinds}: the studio's own, in {self.services.folder} (log: {self.services.log})")

    def check(self, now: float, limit: int, window: float) -> bool:
        """Start them again if their keeper has exited; False when that happened too often to go on."""
        if self.services.keeper_pid() is not None:
            return True
        self.exits.append(now)
        while self.exits and self.exits[0] < now - window:
            self.exits.popleft()
        if len(self.exits) > limit:
            say(f"the studio's servers stopped {len(self.exits)} times in {window:g} s; stopping the studio")
            return False
        say(f"the studio's servers stopped (log: {self.services.log}); starting them again")
        try:
            self.start()
        except embedded.ServicesError as exc:
            say(str(exc))
            return False
        return True

    def release(self) -> None:
        if embedded.release(self.services):
            say("Valkey and PostgreSQL stopped")


def one_launcher(services: embedded.Services) -> int | None:
    """The lock that makes this the one launcher on the studio's own servers, or None if another holds it."""
    services.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return embedded.lock_now(services.folder / "launcher.lock")


def prepare(args, env: dict[str, str]) -> bool:
    """migrate, then demo_setup (--prepare), beside collectstatic (unless --no-collectstatic)."""
    manage = [sys.executable, "manage.py"]
    collect = None if args.no_collectstatic else subprocess.Popen([*manage, "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env)
    ok = True
    if args.prepare:
        for step in (["migrate", "--noinput", "-v", "0"], ["demo_setup", "--url", f"http://{args.host}:{args.port}"]):
            if subprocess.run([*manage, *step], cwd=ROOT, env=env).returncode != 0:
                say(f"manage.py {step[0]} failed")
                ok = False
                break
    if collect is not None and collect.wait() != 0:
        say("collectstatic failed: the static files cannot be served")
        ok = False
    return ok


def stop(children: list[Child]) -> None:
    for child in children:
        if child.proc is not None and child.proc.poll() is None:
            child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for child in children:
        if child.proc is None:
            continue
        try:
            child.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"{child.name} did not stop in {STOP_GRACE:g} s: killed")
        child.signal_group(signal.SIGKILL)
        child.proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", default="8000")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "1")))
    parser.add_argument("--concurrency", type=int, default=int(os.environ.get("CELERY_CONCURRENCY", "2")),
                        help="Processes of the Celery worker's pool.")
    parser.add_argument("--prepare", action="store_true", help="Migrate the database and create the demo data first.")
    parser.add_argument("--no-celery", action="store_true", help="Do not start the Celery worker and beat.")
    parser.add_argument("--no-virtual-dealer", action="store_true", help="Do not run the virtual dealer loop.")
    parser.add_argument("--no-collectstatic", action="store_true", help="Do not collect the static files first.")
    parser.add_argument("--restart-limit", type=int, default=5, help="Exits of one child tolerated within the window.")
    parser.add_argument("--restart-window", type=float, default=60.0, help="Seconds over which exits are counted.")
    args = parser.parse_args()

    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    signal.signal(signal.SIGINT, lambda signum, frame: stopping.append(signum))
    env = dict(os.environ)
    own = embedded.studio_services()
    servers = Servers(own) if own is not None else None
    if own is not None and one_launcher(own) is None:
        say(f"the studio already runs on its own servers in {own.folder} (another `make run`): stop it first")
        return 1
    runtime = Path(tempfile.mkdtemp(prefix="studio-serve-"))
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):
        (runtime / "metrics").mkdir()
        env["PROMETHEUS_MULTIPROC_DIR"] = str(runtime / "metrics")
    children: list[Child] = []
    failed = False
    try:
        if servers is not None:
            servers.start()
        if not prepare(args, env):
            return 1
        children = commands(args, env, runtime)
        say(f"serving on http://{args.host}:{args.port}/; Ctrl-C stops everything")
        for child in children:
            child.start()
        while not stopping and not failed:
            now = time.monotonic()
            if servers is not None and not servers.check(now, args.restart_limit, args.restart_window):
                failed = True
                break
            for child in children:
                if child.proc is not None and child.proc.poll() is not None:
                    if not child.exited(now, args.restart_limit, args.restart_window):
                        failed = True
                        break
                if child.proc is None and now >= child.restart_at:
                    forget_dead_processes(env["PROMETHEUS_MULTIPROC_DIR"])  # what died with it is gone by now
                    child.start()
            time.sleep(0.1)
    except embedded.ServicesError as exc:
        say(str(exc))
        failed = True
    finally:
        stop(children)
        if servers is not None:
            servers.release()
        shutil.rmtree(runtime, ignore_errors=True)
    say("stopped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
