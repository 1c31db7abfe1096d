"""A lean HTTP/1.1 load generator for the benchmarks: N keep-alive clients on one asyncio loop.

The load runs on the same 2 cores as the server it measures, so its own cost matters: httpx spent
1-2 ms of CPU per request, as much as a whole request of the server's. Here each request is a
prebuilt byte string written to the client's own connection, and the answer is read by its
Content-Length (or chunked encoding): about a tenth of that.

Two ways to drive:
- closed loop (`rate=None`): each client sends its next request as soon as the last one is
  answered. This measures capacity (requests/s); latency then only reflects the queue of
  `clients` requests in flight (Little's law: latency = clients / throughput).
- paced (`rate` requests/s in all): client c sends its k-th request at start + (k + c/clients) /
  (rate/clients), whether or not earlier answers came in late, and a request's latency is counted
  from the moment it was due, not from when it went out (no "coordinated omission": a stalled
  server is charged for the requests it made wait). This is latency at a given load.
"""
from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass, field

try:
    import uvloop
except ImportError:  # pragma: no cover - uvicorn[standard] brings it
    uvloop = None


def request_bytes(method: str, path: str, host: str, headers: dict[str, str] | None = None, body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin1") + body


class Connection:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        """One request on the keep-alive connection; returns (status, body)."""
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        lower = head.lower()
        at = lower.find(b"\r\ncontent-length:")
        if at >= 0:
            end = lower.index(b"\r\n", at + 2)
            body = await self.reader.readexactly(int(lower[at + 17:end]))
        elif b"transfer-encoding: chunked" in lower:
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
        else:
            body = b""
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)  # seconds, in completion order
    errors: dict[str, int] = field(default_factory=dict)  # status (or exception name) -> count
    wall: float = 0.0
    sent: int = 0

    @property
    def ok(self) -> int:
        return len(self.latencies) - sum(self.errors.values())


async def _drive(host: str, port: int, clients: int, make_request, first: int, count: int, rate: float | None,
                 max_seconds: float, check=None) -> Result:
    conns = [Connection(host, port) for _ in range(clients)]
    await asyncio.gather(*(c.open() for c in conns))
    result = Result()
    start = time.perf_counter()
    deadline = start + max_seconds
    interval = clients / rate if rate else 0.0

    async def one_client(c: int):
        for n, k in enumerate(range(c, count, clients)):
            due = start + (n + c / clients) * interval if rate else time.perf_counter()
            now = time.perf_counter()
            if due > deadline or now > deadline:
                return
            if due > now:
                await asyncio.sleep(due - now)
            result.sent += 1
            try:
                status, body = await conns[c].send(make_request(c, first + k // clients))
                code = str(status) if not 200 <= status < 300 or (check and not check(body)) else None
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                code = type(exc).__name__
                conns[c] = Connection(host, port)
                await conns[c].open()
            result.latencies.append(time.perf_counter() - due)
            if code is not None:
                result.errors[code] = result.errors.get(code, 0) + 1

    try:
        await asyncio.gather(*(one_client(c) for c in range(clients)))
        result.wall = time.perf_counter() - start
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return result


def drive(url: str, clients: int, make_request, *, first: int = 0, count: int, rate: float | None = None,
          max_seconds: float = 30.0, check=None) -> Result:
    """Send `count` requests from `clients` connections; client c's k-th request is make_request(c, first + k)."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    coro = _drive(host, int(port.rstrip("/")), clients, make_request, first, count, rate, max_seconds, check)
    # No garbage collection while the load runs: a full collection of this process (the benchmarks
    # load Django in it) paused the client for up to 82 ms, which the paced phase counts as latency.
    gc.collect()
    gc.disable()
    try:
        if uvloop is not None:
            return uvloop.run(coro)
        return asyncio.run(coro)
    finally:
        gc.enable()
