"""HTTP for the ASGI server: Django's WSGI handler under a2wsgi's `WSGIMiddleware`, and the three
things the studio adds around it. The bend of a2wsgi lives here and nowhere else (tests/ops/test_http_bridge.py
tests it directly; pyproject.toml pins a2wsgi below its next minor version for it).

Why WSGI at all: every HTTP view of the studio is synchronous. Django's ASGI handler runs each
middleware half and the view through `sync_to_async`, some thirty thread hops a request, each in a
thread that opens its own database connection. a2wsgi runs the whole request (middleware and view)
in one thread of a fixed pool (`HTTP_THREADS` per process), as a WSGI server would: the thread keeps
its database connection between requests (CONN_MAX_AGE). WebSockets stay on Channels (web/asgi.py).
a2wsgi's request thread waits for the event loop at each message it hands over (start, body, end):
three cross-thread round trips a request, which under load doubled the server CPU of a health check
(docs/PERFORMANCE.md). `_Responder` keeps a plain (not streamed) response's messages until its last
and hands them over at once, as two (the start, and the whole body): one wake-up of the loop a
response, which matters most when requests come one at a time. A streamed response's chunks go as
they are made, without waiting while the messages handed over so far cannot fill a2wsgi's send
queue; past that (a long stream) it waits as a2wsgi does, so the queue's bound stays the
back-pressure on a slow client.

What this module adds:

- **The body is read on the event loop** before a thread is taken (a slow uploader never holds
  one). The WSGI application reads it from memory (`wsgi.input` is a `BytesIO` of it): a2wsgi's
  own input would fetch it from the loop, a cross-thread round trip for every POST.
- **Bodies are bounded**, each and all together, and refused without reaching Django, in the API's
  error shape, the connection closed after the answer: a body over `MAX_BODY` (studio.limits) is a
  413, by its Content-Length before any of it is read, or while it is read when it comes without
  one. The bodies one process holds at once (read, or announced and being read) stay within
  `HTTP_BODY_BUDGET` bytes (`BodyBudget`); a request whose body would pass it is a 503 `busy` with
  Retry-After, before more is read. Many slow uploads therefore cost a process at most the budget.
- **A streamed response's client that stops reading** (the CSV export) is given `HTTP_SEND_TIMEOUT`
  seconds per chunk; then the response ends, the thread stops producing chunks and is free again.
  a2wsgi's own sender would wait for such a client for ever, and its thread with it.
- **A request's broadcasts leave as soon as its transaction commits**, from the event loop:
  `on_loop(callback, *args)` called in the request's thread hands the call to the loop
  (`call_soon_threadsafe`) and the thread goes on at once, never waiting for the loop; what the
  request does after its commit (a task sent to the broker, the response rendered) is not in the
  watchers' way (see tables/stream.py). This relies on a2wsgi running the WSGI application in a
  copy of the request task's context (`contextvars.copy_context()`).
"""
from __future__ import annotations

import asyncio
import contextvars
import io
import json
import os

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import WSGIResponder
from django.conf import settings

from studio import access
from studio.errors import BUSY_BODY, BUSY_RETRY_AFTER
from studio.limits import MAX_BODY, TOO_LARGE

BODY_BUDGET = 8 * 1024 * 1024  # HTTP_BODY_BUDGET's default: 128 bodies at MAX_BODY, thousands of bets


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


class ClientTooSlow(Exception):
    """A streamed response's client took no data for HTTP_SEND_TIMEOUT seconds: the response ends."""


class _Exchange:
    """One request's state, shared by the loop's side and the request thread (through a contextvar)."""

    __slots__ = ("body", "gone", "loop", "streaming")

    def __init__(self, body: bytes, loop: asyncio.AbstractEventLoop):
        self.body, self.loop = body, loop
        self.gone = False
        self.streaming = False  # known once the application has returned its response


_exchange: contextvars.ContextVar[_Exchange | None] = contextvars.ContextVar("studio.http.exchange", default=None)


def on_loop(callback, *args) -> bool:
    """In a request thread of the server: hand callback(*args) to the server's event loop, to run
    there soon (calls handed over run in order), and return True. Anywhere else: return False and
    do nothing."""
    exchange = _exchange.get()
    if exchange is None:
        return False
    exchange.loop.call_soon_threadsafe(callback, *args)
    return True


class _StopWhenGone:
    """A streamed response's chunks, ended as soon as the client is known to be gone."""

    def __init__(self, response, exchange: _Exchange):
        self.response, self.exchange = response, exchange

    def __iter__(self):
        for chunk in self.response:
            if self.exchange.gone:
                raise ClientTooSlow("the client stopped reading")
            yield chunk

    def close(self):
        self.response.close()  # Django's request_finished: the database connection goes back


def _wsgi(application):
    def app(environ, start_response):
        exchange = _exchange.get()
        if exchange is not None:
            environ["wsgi.input"] = io.BytesIO(exchange.body)
        response = application(environ, start_response)
        if exchange is None or not getattr(response, "streaming", False):
            return response
        exchange.streaming = True
        return _StopWhenGone(response, exchange)
    return app


class _Responder(WSGIResponder):
    """a2wsgi's responder, except that a plain response goes to the loop whole, in one hand-over, and
    a streamed one's thread does not wait for the loop to take a message while fewer than the send
    queue's size have been handed over (see the module's docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.handed_over = 0
        self.held: list | None = []  # the response's messages so far, until it is known to stream or it ends

    def send(self, message) -> None:
        exchange = _exchange.get()
        if self.held is not None and not (exchange is not None and exchange.streaming):
            if message["type"] == "http.response.start" or message.get("more_body"):
                self.held.append(message)
                return
            start, *chunks = self.held  # its last message: the response, whole
            body = b"".join([*(chunk.get("body", b"") for chunk in chunks), message.get("body", b"")])
            self.held = None
            self.loop.call_soon_threadsafe(self._put_all, [start, {"type": "http.response.body", "body": body}])
            return
        held, self.held = self.held or [], None  # a streamed response: what was held goes first
        for each in (*held, message):
            self._hand_over(each)

    def _put_all(self, messages: list) -> None:
        for message in messages:
            self.send_queue.put_nowait(message)

    def _hand_over(self, message) -> None:
        self.handed_over += 1
        if self.handed_over < self.send_queue.maxsize:
            self.loop.call_soon_threadsafe(self.send_queue.put_nowait, message)  # in order: the loop runs callbacks FIFO
        else:
            super().send(message)


class WsgiHttp:
    """An ASGI application for `http` scopes: a WSGI application through a2wsgi, with the additions above."""

    def __init__(self, wsgi_application, threads: int | None = None, send_timeout: float | None = None,
                 body_budget: int | None = None):
        self.threads = threads or settings.HTTP_THREADS
        self.send_timeout = send_timeout or float(os.environ.get("HTTP_SEND_TIMEOUT", "30"))
        self.budget = BodyBudget(body_budget or int(os.environ.get("HTTP_BODY_BUDGET", str(BODY_BUDGET))))
        self.bridge = WSGIMiddleware(_wsgi(wsgi_application), workers=self.threads)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"the HTTP bridge serves HTTP, not {scope['type']!r}")
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
        exchange = _Exchange(body, asyncio.get_running_loop())

        async def replay():
            return {"type": "http.request", "body": exchange.body, "more_body": False}

        timeout = self.send_timeout

        async def send_or_drop(message):
            if exchange.gone:
                return  # keep a2wsgi's queue moving: its thread must never wait for a dead client
            try:
                async with asyncio.timeout(timeout):
                    await send(message)
            except TimeoutError:
                exchange.gone = True

        token = _exchange.set(exchange)
        try:
            await _Responder(self.bridge.app, self.bridge.executor, self.bridge.send_queue_size)(scope, replay, send_or_drop)
        except ClientTooSlow:
            pass  # the response is incomplete: the server closes the connection
        finally:
            _exchange.reset(token)
