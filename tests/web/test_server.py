"""web/server.py: web processes that share one port through SO_REUSEPORT get the connections spread
among them (uvicorn's --workers piles them on one), and a port another program holds is refused."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests import localhttp
from tests.servers import server_env, stop, wait_until

CONNECTIONS = 40


def _socket_inodes(port: int, state: str) -> set[str]:
    """The inodes of 127.0.0.1 TCP sockets on local `port` in `state` (0A listening, 01 established)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == state:
            inodes.add(fields[9])
    return inodes


def _owned(pid: int, inodes: set[str]) -> int:
    """How many of the sockets `inodes` process `pid` holds."""
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            held += 1
    return held


def _web_server(port: int, log: Path) -> subprocess.Popen:
    env = server_env()
    env.pop("REDIS_URL", None)
    with log.open("wb") as out:  # the process keeps its own copy
        return subprocess.Popen([sys.executable, "-m", "web.server", "--host", "127.0.0.1", "--port", str(port)],
                                cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.mark.django_db(transaction=True)
def test_two_web_processes_on_one_port_share_its_connections(tmp_path):
    # The port stays reserved for SO_REUSEPORT sockets by one that is bound but never listens
    # (it takes no connection), so no other program can take it between the choice and the servers.
    with socket.socket() as reserved:
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        reserved.bind(("127.0.0.1", 0))
        port = reserved.getsockname()[1]
        procs = [_web_server(port, tmp_path / f"web-{n}.log") for n in (1, 2)]
        try:
            wait_until(lambda: all(_owned(p.pid, _socket_inodes(port, "0A")) == 1 for p in procs), "both processes listening",
                       procs=procs)
            clients = [localhttp.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) for _ in range(CONNECTIONS)]
            try:
                for client in clients:  # one keep-alive connection each, all left open
                    assert client.get("/api/no-such-thing/").status_code == 404
                established = _socket_inodes(port, "01")
                held = [_owned(p.pid, established) for p in procs]
                assert sum(held) == CONNECTIONS
                # The kernel picks by a hash of the client's port: both get a share (fewer than 5 of
                # the 40 on either side has a chance of about one in five million).
                assert min(held) >= 5, held
            finally:
                for client in clients:
                    client.close()
        finally:
            for proc in procs:
                stop(proc)


def test_a_port_another_program_holds_is_refused_at_once(tmp_path):
    with socket.socket() as taken:  # no SO_REUSEPORT: the port is not shareable
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _web_server(port, tmp_path / "web.log")
        try:
            assert proc.wait(60) == 3
        finally:
            stop(proc)
    assert "cannot listen on 127.0.0.1" in (tmp_path / "web.log").read_text()
