"""HTTP for the ASGI server: Django's WSGI handler under a2wsgi's `WSGIMiddleware`, used as it is,
inside a plain ASGI application (`WsgiHttp`) that adds what the studio needs around it.

Why WSGI at all: every HTTP view of the studio is synchronous. Django's ASGI handler runs each
middleware half and the view through `sync_to_async`, some thirty thread hops a request, each in a
thread that opens its own database connection. a2wsgi runs the whole request (middleware and view)
in one thread of a fixed pool (`HTTP_THREADS` per process), as a WSGI server would: the thread keeps
its database connection between requests (CONN_MAX_AGE). WebSockets stay on Channels (web/asgi.py).

What `WsgiHttp` adds, on the ASGI protocol alone (what it receives and sends):

- **The body is read on the event loop** before a thread is taken (a slow uploader never holds
  one), then handed to a2wsgi by a `receive` that replays it whole.
- **Bodies are bounded**, each and all together, and refused without reaching Django, in the API's
  error shape, the connection closed after the answer: a body over `MAX_BODY` (studio.limits) is a
  413, by its Content-Length before any of it is read, or while it is read when it comes without
  one. The bodies one process holds at once (read, or announced and being read) stay within
  `HTTP_BODY_BUDGET` bytes (`BodyBudget`); a request whose body would pass it is a 503 `busy` with
  Retry-After, before more is read. Many slow uploads therefore cost a process at most the budget.
- **A client that stops reading** (the CSV export's) is given `HTTP_SEND_TIMEOUT` seconds for each
  message of the response. Past that, or once sending fails, the messages still coming from the
  request thread are dropped: a2wsgi's thread waits for its send queue to have room, and a queue
  nobody empties would hold it for ever. A streamed response also stops producing chunks then
  (`_ends_with_its_client`, through `environ["asgi.scope"]`, which a2wsgi documents), so the thread
  is free again at once.
- **The server's loop** is taken for studio.serverloop, on which the request threads' broadcasts
  go out (tables/stream.py).
"""
from __future__ import annotations

import asyncio
import json
import os

from a2wsgi import WSGIMiddleware
from django.conf import settings

from studio import access, serverloop
from studio.errors import BUSY_BODY, BUSY_RETRY_AFTER
from studio.limits import MAX_BODY, TOO_LARGE

BODY_BUDGET = 8 * 1024 * 1024  # HTTP_BODY_BUDGET's default: 128 bodies at MAX_BODY, thousands of bets
CLIENT = "studio.client"  # the scope's key for the request's `Client`, read by the WSGI side


class BodyBudget:
    """The bytes of request bodies a process holds at once, across its connections: taken before a
    body (or its next chunk) is read, given back when its request is over. Only the event loop's
    thread takes and gives, so no lock."""

    def __init__(self, limit: int):
        self.limit, self.held = limit, 0

    def take(self, n: int) -> bool:
        if self.held + n > self.limit:
            return False
        self.held += n
        return True

    def give(self, n: int) -> None:
        self.held -= n


class Client:
    """What the request thread may know of its client: `gone` once it stopped reading."""

    __slots__ = ("gone",)

    def __init__(self):
        self.gone = False


def _content_length(scope) -> int | None:
    """The body's announced length; None without one (a chunked body) or with one the server let
    through unreadable (the body is then counted as it comes)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def _refuse(scope, send, status: int, body: dict, headers: tuple = ()) -> None:
    """An answer before the body is read (or read whole), in the API's error shape; the server closes
    the connection after it, so what is left of the body is never read."""
    content = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": content})
    access.refused_before_django(scope, status)


_RETRY_AFTER = ((b"retry-after", str(BUSY_RETRY_AFTER).encode()),)


class _UntilGone:
    """A streamed response's chunks, ended as soon as its client is gone."""

    def __init__(self, response, client: Client):
        self.response, self.client = response, client

    def __iter__(self):
        for chunk in self.response:
            if self.client.gone:
                return
            yield chunk

    def close(self):
        self.response.close()  # Django's request_finished: the database connection goes back


def _ends_with_its_client(application):
    """The WSGI application, its streamed responses ending once their client is gone."""
    def app(environ, start_response):
        response = application(environ, start_response)
        client = environ.get("asgi.scope", {}).get(CLIENT)
        if client is None or not getattr(response, "streaming", False):
            return response
        return _UntilGone(response, client)
    return app


class WsgiHttp:
    """An ASGI application for `http` scopes: a WSGI application through a2wsgi, with the additions above."""

    def __init__(self, wsgi_application, threads: int | None = None, send_timeout: float | None = None,
                 body_budget: int | None = None):
        self.threads = threads or settings.HTTP_THREADS
        self.send_timeout = send_timeout or float(os.environ.get("HTTP_SEND_TIMEOUT", "30"))
        self.budget = BodyBudget(body_budget or int(os.environ.get("HTTP_BODY_BUDGET", str(BODY_BUDGET))))
        self.wsgi = WSGIMiddleware(_ends_with_its_client(wsgi_application), workers=self.threads)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"the HTTP bridge serves HTTP, not {scope['type']!r}")
        serverloop.capture()  # the loop the request threads' broadcasts go out on
        announced = _content_length(scope)
        if announced is not None and announced > MAX_BODY:
            return await _refuse(scope, send, 413, TOO_LARGE)
        taken = announced or 0  # of the budget: the announced body before it is read, given back at the end
        if not self.budget.take(taken):
            return await _refuse(scope, send, 503, BUSY_BODY, _RETRY_AFTER)
        try:
            chunks, size = [], 0
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > MAX_BODY:  # a body without a Content-Length, counted as it comes
                    return await _refuse(scope, send, 413, TOO_LARGE)
                if size > taken:
                    if not self.budget.take(size - taken):
                        return await _refuse(scope, send, 503, BUSY_BODY, _RETRY_AFTER)
                    taken = size
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
            await self._answer(scope, b"".join(chunks), send)
        finally:
            self.budget.give(taken)

    async def _answer(self, scope, body: bytes, send) -> None:
        client, replayed = Client(), False

        async def replay():
            nonlocal replayed
            if replayed:  # a2wsgi reads no further than a message without more_body
                return {"type": "http.disconnect"}
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send_or_drop(message):
            if client.gone:
                return  # keep a2wsgi's send queue moving: its thread must never wait for a dead client
            try:
                async with asyncio.timeout(self.send_timeout):
                    await send(message)
            except Exception:  # too slow (TimeoutError), or the connection is gone
                client.gone = True

        await self.wsgi({**scope, CLIENT: client}, replay, send_or_drop)
