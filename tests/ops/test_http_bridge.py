"""studio.http, the HTTP bridge (a2wsgi's WSGIMiddleware as it is, and what the studio adds around it), driven
directly as an ASGI application: one thread per request from a fixed pool, the body read before
the thread is taken, 413 past the limit (before reading a body announced longer), 503 past the
process's budget of bodies, a streamed response chunk by chunk, a client that stops reading."""
import asyncio
import json
import logging
import threading

from studio import http
from studio.limits import MAX_BODY

SCOPE = {"type": "http", "method": "POST", "path": "/x", "query_string": b"", "http_version": "1.1",
         "headers": [(b"content-type", b"text/plain")], "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000)}
TIMEOUT = 10


def _receiver(chunks: list[bytes]):
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive():
        return messages.pop(0) if messages else await asyncio.Event().wait()
    return receive


class Recorder:
    def __init__(self):
        self.messages = []

    async def __call__(self, message):
        self.messages.append(message)

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.messages if m["type"] == "http.response.body")

    @property
    def status(self) -> int:
        return self.messages[0]["status"]


async def test_requests_run_whole_in_the_pools_threads_with_the_body_read_first():
    seen = []

    def app(environ, start_response):
        seen.append((threading.get_ident(), environ["wsgi.input"].read()))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"done"]

    bridge = http.WsgiHttp(app, threads=1)
    for _ in range(2):
        send = Recorder()
        await asyncio.wait_for(bridge(SCOPE, _receiver([b"ab", b"cd", b"ef"]), send), TIMEOUT)
        assert send.status == 200 and send.body == b"done"
    assert [body for _, body in seen] == [b"abcdef", b"abcdef"]
    assert seen[0][0] == seen[1][0] != threading.get_ident()  # one thread of the pool, not the loop's


def _never_called(environ, start_response):
    raise AssertionError("the application was called")


def _announcing(length: int) -> dict:
    return dict(SCOPE, headers=[*SCOPE["headers"], (b"content-length", str(length).encode())])


def _counting(receive, reads: list):
    async def counted():
        reads.append(1)
        return await receive()
    return counted


def _json(send: Recorder) -> dict:
    headers = dict(send.messages[0]["headers"])
    assert headers[b"content-type"] == b"application/json" and headers[b"connection"] == b"close", headers
    assert int(headers[b"content-length"]) == len(send.body)
    return json.loads(send.body)


async def test_a_body_announced_over_the_limit_is_refused_before_any_of_it_is_read(caplog):
    send, reads = Recorder(), []
    with caplog.at_level(logging.INFO, logger="studio.access"):
        await asyncio.wait_for(http.WsgiHttp(_never_called, threads=1)(
            _announcing(MAX_BODY + 1), _counting(_receiver([b"x" * 1024] * 100), reads), send), TIMEOUT)
    assert send.status == 413 and reads == []
    body = _json(send)
    assert body["code"] == "too_large" and body["fields"] == {} and str(MAX_BODY) in body["message"]
    assert "POST /x 413 - user=-" in caplog.text


async def test_a_body_without_a_length_is_refused_as_soon_as_it_passes_the_limit():
    send, reads = Recorder(), []
    chunk = b"x" * 16384
    await asyncio.wait_for(http.WsgiHttp(_never_called, threads=1)(SCOPE, _counting(_receiver([chunk] * 100), reads), send), TIMEOUT)
    assert send.status == 413 and _json(send)["code"] == "too_large"
    assert len(reads) == MAX_BODY // len(chunk) + 1  # the chunk that passed it was the last one read


async def test_the_bodies_a_process_holds_stay_within_its_budget():
    """A body is counted from its announced length before it is read (one without a length, as it
    comes); past the budget a request is a 503 `busy` with Retry-After, before its body is read; the
    budget is given back when the request is over."""
    seen = []

    def app(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    bridge = http.WsgiHttp(app, threads=1, body_budget=100)
    more, slow = asyncio.Event(), Recorder()

    async def slow_receive():  # 30 bytes of 60, then the rest once `more` is set
        if not more.is_set():
            await more.wait()
            return {"type": "http.request", "body": b"y" * 30, "more_body": False}
        raise AssertionError("read twice")

    first = [{"type": "http.request", "body": b"x" * 30, "more_body": True}]

    async def receive():
        return first.pop(0) if first else await slow_receive()

    holder = asyncio.create_task(bridge(_announcing(60), receive, slow))

    async def holding():
        while bridge.budget.held != 60:
            await asyncio.sleep(0)
    await asyncio.wait_for(holding(), TIMEOUT)
    busy, reads = Recorder(), []
    await asyncio.wait_for(bridge(_announcing(60), _counting(_receiver([b"z" * 60]), reads), busy), TIMEOUT)
    assert busy.status == 503 and reads == [] and _json(busy)["code"] == "busy"
    assert dict(busy.messages[0]["headers"])[b"retry-after"] == b"1"
    unannounced = Recorder()  # no length: counted as it comes, refused at the chunk that passes the budget
    await asyncio.wait_for(bridge(SCOPE, _receiver([b"a" * 30, b"b" * 30]), unannounced), TIMEOUT)
    assert unannounced.status == 503 and bridge.budget.held == 60

    more.set()
    await asyncio.wait_for(holder, TIMEOUT)
    assert slow.status == 200 and seen == [b"x" * 30 + b"y" * 30] and bridge.budget.held == 0
    done = Recorder()  # the budget is whole again
    await asyncio.wait_for(bridge(_announcing(100), _receiver([b"w" * 100]), done), TIMEOUT)
    assert done.status == 200 and seen[-1] == b"w" * 100 and bridge.budget.held == 0


class Streamed:
    """What Django's StreamingHttpResponse looks like to a WSGI server."""
    streaming = True

    def __init__(self, n: int, produced: list):
        self.n, self.produced, self.closed = n, produced, False

    def __iter__(self):
        for i in range(self.n):
            self.produced.append(i)
            yield b"%d," % i

    def close(self):
        self.closed = True


async def test_a_streamed_response_goes_out_chunk_by_chunk():
    produced = []
    response = Streamed(5, produced)

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/csv")])
        return response

    send = Recorder()
    await asyncio.wait_for(http.WsgiHttp(app, threads=1)(SCOPE, _receiver([b""]), send), TIMEOUT)
    bodies = [m["body"] for m in send.messages if m["type"] == "http.response.body" and m["body"]]
    assert bodies == [b"0,", b"1,", b"2,", b"3,", b"4,"] and response.closed
    assert send.messages[-1] == {"type": "http.response.body", "body": b""}


def csv_export(response):
    """A WSGI application streaming `response` as a CSV export, and answering /healthz with `ok`."""
    def app(environ, start_response):
        if environ["PATH_INFO"] == "/healthz":
            start_response("200 OK", [])
            return [b"ok"]
        start_response("200 OK", [("Content-Type", "text/csv")])
        return response
    return app


async def test_a_client_that_stops_reading_ends_the_response_and_frees_the_thread():
    produced = []
    response = Streamed(10_000, produced)

    app = csv_export(response)

    stalled = asyncio.Event()

    async def send(message):
        if message["type"] == "http.response.body":
            await stalled.wait()  # the client takes no data, ever

    bridge = http.WsgiHttp(app, threads=1, send_timeout=0.2)
    await asyncio.wait_for(bridge(SCOPE, _receiver([b""]), send), TIMEOUT)
    assert response.closed and len(produced) < 10_000  # it stopped producing

    ok = Recorder()  # the pool's one thread is free again
    await asyncio.wait_for(bridge(dict(SCOPE, path="/healthz"), _receiver([b""]), ok), TIMEOUT)
    assert ok.body == b"ok"


async def test_a_plain_response_reaches_the_server_with_its_status_headers_and_body():
    def app(environ, start_response):
        start_response("201 Created", [("Content-Type", "application/json")])
        return [b'{"id":', b"1}"]

    send = Recorder()
    await asyncio.wait_for(http.WsgiHttp(app, threads=1)(SCOPE, _receiver([b""]), send), TIMEOUT)
    assert send.messages[0] == {"type": "http.response.start", "status": 201, "headers": [(b"content-type", b"application/json")]}
    assert send.body == b'{"id":1}' and not send.messages[-1].get("more_body")


async def test_a_connection_that_fails_while_a_response_goes_out_frees_the_thread():
    """The server's send raising (the client went away) ends what is sent, never the request thread:
    the response is produced to its end and closed, and the pool's one thread answers the next request."""
    produced = []
    response = Streamed(100, produced)

    app = csv_export(response)

    async def send(message):
        raise OSError("the connection is gone")

    bridge = http.WsgiHttp(app, threads=1)
    await asyncio.wait_for(bridge(SCOPE, _receiver([b""]), send), TIMEOUT)
    assert response.closed and len(produced) < 100
    ok = Recorder()
    await asyncio.wait_for(bridge(dict(SCOPE, path="/healthz"), _receiver([b""]), ok), TIMEOUT)
    assert ok.body == b"ok"


async def test_the_request_thread_reads_the_body_read_on_the_loop_whatever_its_chunks():
    def app(environ, start_response):
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or -1))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [body]

    send = Recorder()
    await asyncio.wait_for(http.WsgiHttp(app, threads=1)(_announcing(4), _receiver([b"ab", b"", b"cd"]), send), TIMEOUT)
    assert send.status == 200 and send.body == b"abcd"
