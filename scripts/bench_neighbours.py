"""The neighbours of a slow or locked round, for the bulkhead benchmarks (scripts/bench_bulkhead.py,
scripts/bench_locks.py): clients that keep bets on that round in flight, and the other requests,
paced, whose latency the bulkhead must keep."""
from __future__ import annotations

import threading

import httpx

import http_load
from bench_common import percentile


def betting_clients(url: str, tokens: list[str], round_id: int, stop: threading.Event, counts: dict) -> list[threading.Thread]:
    """One thread per token, each sending its bets on the round one after the other until `stop`, as a
    client would (waiting the Retry-After of a refusal); `counts` gathers the answers by kind."""
    body = {"spot": "andar", "amount": "10"}
    lock = threading.Lock()

    def count(key: str) -> None:
        with lock:
            counts[key] = counts.get(key, 0) + 1

    def client(token: str) -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Token {token}"}, timeout=30, trust_env=False) as http:
            while not stop.is_set():
                try:
                    answer = http.post(f"/api/rounds/{round_id}/bets/", json=body)
                except httpx.HTTPError:
                    count("failed")
                    continue
                count("placed" if answer.status_code == 201 else ("busy" if answer.status_code == 503 else f"{answer.status_code}"))
                if answer.status_code == 503:
                    stop.wait(float(answer.headers.get("Retry-After", "1")))

    threads = [threading.Thread(target=client, args=(token,), daemon=True) for token in tokens]
    for thread in threads:
        thread.start()
    return threads


def measure_others(url: str, rate: float, seconds: float, read: bytes, bets: list[bytes]) -> dict:
    """The other requests (a read, and bets at another table), paced together (half each), latency from
    when each was due
    (those still unanswered when the load gives up, after four times the phase and 30 s, are not in it)."""
    clients = 4
    mine = len(bets) // clients  # each client bets with players of its own: no two bets of one wallet at once

    def make(c, k):
        return read if k % 2 == 0 else bets[c * mine + (k // 2) % mine]

    result = http_load.drive(url, clients, make, count=int(rate * seconds), rate=rate, max_seconds=seconds * 4 + 30)
    ms = sorted(x * 1000 for x in result.latencies)
    return {"n": len(ms), "sent": int(rate * seconds), "p50": percentile(ms, 50), "p99": percentile(ms, 99), "max": ms[-1] if ms else 0.0, "errors": dict(result.errors)}
