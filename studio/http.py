"""HTTP for the ASGI server: Django's WSGI handler on a fixed pool of threads, one hop per request.

All of the studio's HTTP views are synchronous. Django's ASGI handler would run each middleware's
request and response halves and the view through `sync_to_async`, about 30 thread hops per request,
each in a new thread with a new database connection. Here the whole request runs in one thread of a
fixed pool (`HTTP_THREADS` per process), start to finish, as under a WSGI server: the thread keeps
its database connection between requests and a request costs a fraction of the CPU. WebSockets stay
on Channels (web/asgi.py). The body is read on the event loop before the thread is taken, so a
slow client never holds a thread; a response goes back in one message, or chunk by chunk when it
streams (the CSV export). A streamed chunk the client does not take within `HTTP_SEND_TIMEOUT`
seconds (a client that stopped reading, its buffers full) ends the response and frees the thread.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import io
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from studio import access

MAX_BODY = 10 * 1024 * 1024  # Django refuses bigger forms anyway (DATA_UPLOAD_MAX_MEMORY_SIZE)


def _environ(scope: dict, body: bytes) -> dict:
    path = scope["path"]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root):]
    server = scope.get("server") or ("localhost", 80)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root.encode("utf8").decode("latin1"),
        "PATH_INFO": path.encode("utf8").decode("latin1"),
        "QUERY_STRING": scope["query_string"].decode("latin1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1] or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "REMOTE_ADDR": (scope.get("client") or ("", 0))[0],
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin1")
        if name == "content-length":
            key = "CONTENT_LENGTH"
        elif name == "content-type":
            key = "CONTENT_TYPE"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
        value = raw_value.decode("latin1")
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


_request = threading.local()


def on_loop_after(callback, *args) -> bool:
    """In one of the server's request threads: have callback(*args) run on the server's event loop
    when this request's response is handed back to it (no extra wake-up of the loop, no waiting),
    and return True. Anywhere else: return False and do nothing."""
    pending = getattr(_request, "pending", None)
    if pending is None:
        return False
    pending.append((callback, args))
    return True


class ClientTooSlow(Exception):
    """A streamed response's client stopped reading: the response ends, the server closes the connection."""


class WsgiHttp:
    """An ASGI application for `http` scopes that runs a WSGI application on a fixed thread pool."""

    def __init__(self, wsgi_application, threads: int | None = None):
        self.app = wsgi_application
        self.threads = threads or int(os.environ.get("HTTP_THREADS", "8"))
        self.executor = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="http")
        self.send_timeout = float(os.environ.get("HTTP_SEND_TIMEOUT", "30"))

    async def __call__(self, scope, receive, send):
        assert scope["type"] == "http", scope["type"]
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"Request body too large"})
                access.refused_before_django(scope, 413)
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        loop = asyncio.get_running_loop()
        start, body, streamed, pending = await loop.run_in_executor(self.executor, self._run, scope, b"".join(chunks), send, loop)
        for callback, args in pending:
            callback(*args)
        if not streamed:
            await send(start)
            await send({"type": "http.response.body", "body": body})

    def _run(self, scope, body: bytes, send, loop):
        """In a pool thread: the whole WSGI request. A plain response is returned whole (one send on
        the loop); a streaming one is sent chunk by chunk from here as it is produced."""
        state = {}
        _request.pending = pending = []

        def start_response(status, headers, exc_info=None):
            state["start"] = {"type": "http.response.start", "status": int(status.split(" ", 1)[0]),
                              "headers": [(k.lower().encode("latin1"), v.encode("latin1")) for k, v in headers]}

        result = self.app(_environ(scope, body), start_response)
        try:
            if not getattr(result, "streaming", False):  # an HttpResponse: its content, whole
                return state["start"], b"".join(result), False, pending

            def send_now(message):
                sent = asyncio.run_coroutine_threadsafe(send(message), loop)
                try:
                    sent.result(self.send_timeout)
                except concurrent.futures.TimeoutError:
                    sent.cancel()
                    raise ClientTooSlow(f"the client took no data for {self.send_timeout} s") from None

            send_now(state["start"])
            for chunk in result:
                if chunk:
                    send_now({"type": "http.response.body", "body": chunk, "more_body": True})
            send_now({"type": "http.response.body"})
            return state["start"], b"", True, pending
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # Django's request_finished: the database connection goes back
            _request.pending = None
