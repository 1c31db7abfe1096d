"""Benchmark: `make run` as a newcomer meets it. A fresh clone of this repository's HEAD in a
temporary folder, no DATABASE_URL or REDIS_URL: the time from `make run` to the first page served
(installs included: the venv made and the lock installed), to /readyz answering ready (the worker
and beat seen), the memory of the whole studio at idle (every process: make, the launcher, web, the
virtual dealer, the worker and its pool, beat, the servers' keeper, Valkey, PostgreSQL and its
backends), then Ctrl-C (SIGINT to make's process group) and the time until every process is gone,
then a second `make run` in the same clone (the venv and the data kept) and its time to the first page.

    python3 scripts/bench_make_run.py [--runs 3] [--cold-cache] [--idle 30] [--rev HEAD]

--cold-cache: uv and pip start with empty caches (every package downloaded, as on a new machine);
otherwise they use this machine's caches. --rev: another commit of the repository, to compare. Memory is each process's RSS and its PSS (shared pages
divided among the processes that share them: a forked pool's pages counted once), summed. Targets:
first page under 90 s from a fresh clone, under 10 s on a second start, under 600 MB at idle.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"first": 90.0, "second": 10.0, "memory_mb": 600.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def ready(url: str) -> bool:
    return answers(url + "/readyz") == 200


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            if stat[0] not in ("Z", "X"):
                out[int(entry.name)] = (int(stat[1]), command)
    return out


def studio_processes(root_pid: int, clone: Path) -> dict[int, str]:
    """make's descendants, and every process whose command line names the clone (PostgreSQL, which
    pg_ctl starts apart) with its own children."""
    table = processes()
    found = {pid for pid, (_, command) in table.items() if str(clone) in command} | {root_pid}
    grown = True
    while grown:
        more = {pid for pid, (ppid, _) in table.items() if ppid in found and pid not in found}
        found |= more
        grown = bool(more)
    return {pid: table[pid][1] for pid in found if pid in table}


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in kB."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def short(command: str) -> str:
    for marker, name in (("web.server", "web"), ("virtual_dealer", "virtual dealer"), ("celery -A studio worker", "worker"),
                         ("celery -A studio beat", "beat"), ("embedded.keeper", "keeper"), ("valkey-server", "valkey"),
                         ("scripts/serve.py", "launcher"), ("postgres", "postgres"), ("make", "make")):
        if marker in command:
            return name
    return command[:40]


def start(clone: Path, port: int, env: dict[str, str], log) -> subprocess.Popen:
    return subprocess.Popen(["make", "run", f"PORT={port}"], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait(predicate, timeout: float, proc: subprocess.Popen, what: str, log_path: Path) -> float:
    started = time.monotonic()
    while not predicate():
        if proc.poll() is not None or time.monotonic() - started > timeout:
            sys.exit(f"{what}: not so after {time.monotonic() - started:.0f} s\n{log_path.read_text()[-3000:]}")
        time.sleep(0.05)
    return time.monotonic() - started


def stop(proc: subprocess.Popen, clone: Path) -> float:
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends to the terminal's foreground group
    proc.wait(120)
    while [pid for pid in studio_processes(proc.pid, clone) if pid != proc.pid]:
        if time.monotonic() - started > 120:
            sys.exit("processes left behind: " + ", ".join(map(str, studio_processes(proc.pid, clone))))
        time.sleep(0.05)
    return time.monotonic() - started


def one_run(args, work: Path) -> dict:
    clone = work / "studio"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", args.rev], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    if args.cold_cache:
        env.update(UV_CACHE_DIR=str(work / "uv-cache"), PIP_NO_CACHE_DIR="1")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = work / "make-run.log"
    with open(log_path, "ab") as log:
        t0 = time.monotonic()
        proc = start(clone, port, env, log)
        first = wait(lambda: answers(url + "/") in (200, 302), 600, proc, "the first page", log_path)
        readiness = wait(lambda: ready(url), 120, proc, "/readyz", log_path) + first
        time.sleep(args.idle)
        rows = []
        for pid, command in sorted(studio_processes(proc.pid, clone).items()):
            rss, pss = memory_kb(pid)
            rows.append((short(command), pid, rss, pss))
        stopped = stop(proc, clone)
        t1 = time.monotonic()
        proc = start(clone, port, env, log)
        second = wait(lambda: answers(url + "/") in (200, 302), 120, proc, "the first page of the second start", log_path)
        second_ready = wait(lambda: ready(url), 120, proc, "/readyz (second start)", log_path) + second
        stopped_again = stop(proc, clone)
    del t0, t1
    return {"first": first, "ready": readiness, "second": second, "second_ready": second_ready, "stop": stopped,
            "stop_again": stopped_again, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-cache", action="store_true", help="empty uv and pip caches: every package downloaded")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle before the memory is read")
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default: this checkout's HEAD)")
    args = parser.parse_args()
    print(f"{args.rev}; load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; caches {'cold' if args.cold_cache else 'warm'}",
          flush=True)
    results = []
    for n in range(args.runs):
        work = Path(tempfile.mkdtemp(prefix="bench-make-run-"))
        try:
            result = one_run(args, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        results.append(result)
        rss = sum(r[2] for r in result["rows"]) / 1024
        pss = sum(r[3] for r in result["rows"]) / 1024
        print(f"run {n + 1}: first page {result['first']:.1f} s (ready {result['ready']:.1f} s); stopped in {result['stop']:.1f} s; "
              f"second start {result['second']:.1f} s (ready {result['second_ready']:.1f} s), stopped in {result['stop_again']:.1f} s; "
              f"idle memory PSS {pss:.0f} MB (RSS {rss:.0f} MB) in {len(result['rows'])} processes", flush=True)
    last = results[-1]["rows"]
    by_kind: dict[str, list[int]] = {}
    for name, _, rss, pss in last:
        by_kind.setdefault(name, [0, 0, 0])
        by_kind[name][0] += 1
        by_kind[name][1] += rss
        by_kind[name][2] += pss
    print("\nidle memory of the last run, by process kind:")
    print(f"{'process':<16}{'count':>6}{'RSS MB':>9}{'PSS MB':>9}")
    for name, (count, rss, pss) in sorted(by_kind.items(), key=lambda kv: -kv[1][2]):
        print(f"{name:<16}{count:>6}{rss / 1024:>9.0f}{pss / 1024:>9.0f}")
    firsts = [r["first"] for r in results]
    seconds = [r["second"] for r in results]
    pss_mb = [sum(r[3] for r in result["rows"]) / 1024 for result in results]
    for label, values, target, unit in (("first page from a fresh clone", firsts, TARGETS["first"], "s"),
                                        ("second start", seconds, TARGETS["second"], "s"),
                                        ("idle memory (PSS)", pss_mb, TARGETS["memory_mb"], "MB")):
        median = statistics.median(values)
        print(f"Target: {label} < {target:g} {unit} -> median {median:.1f} {unit}: {'MET' if median < target else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
