"""One web server process: uvicorn serving web.asgi:application on its own listening socket.

    python -m web.server --host 127.0.0.1 --port 8000
    python -m web.server --fd N      (a listening socket made by the caller, inherited: the tests)

Several of these serve one port together: each binds its own socket with SO_REUSEPORT, and the
kernel hands each new connection to one of them by a hash of its addresses, so connections spread
evenly. uvicorn's own `--workers` shares one socket among its processes instead, and the kernel
wakes the last one to have waited first: under load most keep-alive connections land on one process
(45 of 50 in the bets benchmark), whose CPU then caps the studio while the other idles. Both ways
use uvicorn's public API; this one passes the socket to `Server.run`. A port held by a socket
without SO_REUSEPORT (another program) still refuses the bind, and the process exits at once.
"""
from __future__ import annotations

import argparse
import logging
import socket
import sys

import uvicorn

from studio.limits import MAX_BODY

APP = "web.asgi:application"
BACKLOG = 2048  # uvicorn's default

# The flags every web process runs with (the access log is studio.access's, without query strings).
# A WebSocket message is bounded as a request body is (studio.limits): a watcher only sends pings of
# some twenty bytes, and uvicorn's default would buffer 16 MiB of each connection's message.
OPTIONS = dict(ws="websockets-sansio", ws_per_message_deflate=False, ws_max_size=MAX_BODY, access_log=False, lifespan="off",
               log_level="warning")


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    return sock


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--fd", type=int, help="serve on this inherited listening socket instead")
    args = parser.parse_args(argv)
    try:
        sock = socket.socket(fileno=args.fd) if args.fd is not None else listening_socket(args.host, args.port)
    except OSError as exc:
        where = f"fd {args.fd}" if args.fd is not None else f"{args.host}:{args.port}"
        logging.getLogger("web.server").error("cannot listen on %s: %s", where, exc)
        return 3  # uvicorn's own exit code for a server that cannot start
    uvicorn.Server(uvicorn.Config(APP, host=args.host, port=args.port, **OPTIONS)).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    logging.basicConfig(format="%(levelname)s: %(message)s")
    sys.exit(main())
