"""Serve the studio: the ASGI server (uvicorn: HTTP + WebSockets), and with REDIS_URL also a Celery
worker and Celery beat. One Ctrl-C stops everything.

    python scripts/serve.py [--host 127.0.0.1] [--port 8000] [--workers N]

Without REDIS_URL the studio is one process (in-memory channel layer, in-process timer), so
--workers is forced to 1."""
import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", default="8000")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_WORKERS", "1")))
    parser.add_argument("--no-celery", action="store_true", help="Do not start the Celery worker and beat.")
    parser.add_argument("--no-virtual-dealer", action="store_true", help="Do not run the virtual dealer loop.")
    args = parser.parse_args()
    redis = bool(os.environ.get("REDIS_URL"))
    workers = args.workers if redis else 1
    py = sys.executable
    commands = [[py, "-m", "uvicorn", "studio.asgi:application", "--host", args.host, "--port", str(args.port),
                 "--workers", str(workers), "--ws-per-message-deflate", "false", "--no-access-log", "--lifespan", "off",
                 "--log-level", "warning"]]  # uvicorn logs WebSocket URLs (with ?token=) at INFO
    env = dict(os.environ)
    if not args.no_virtual_dealer and not redis:
        env["VIRTUAL_DEALER_THREAD"] = "1"  # embedded: the loop runs inside the one server process
    if redis and not args.no_virtual_dealer:
        commands.append([py, "manage.py", "virtual_dealer"])
    if redis and not args.no_celery:
        commands.append([py, "-m", "celery", "-A", "studio", "worker", "-l", "warning", "--concurrency", "2", "-n", f"studio-{os.getpid()}@%h"])
        commands.append([py, "-m", "celery", "-A", "studio", "beat", "-l", "warning", "-s", str(ROOT / ".venv" / "celerybeat-schedule")])
    print(f"Serving on http://{args.host}:{args.port}/ ({'Redis + Celery' if redis else 'embedded mode'}); Ctrl-C stops everything.", flush=True)
    procs = [subprocess.Popen(cmd, cwd=ROOT, start_new_session=True, env=env if i == 0 else os.environ) for i, cmd in enumerate(commands)]

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.time() + 10
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        sys.exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while all(p.poll() is None for p in procs):
        time.sleep(0.5)
    stop()
    return 1


if __name__ == "__main__":
    sys.exit(main())
