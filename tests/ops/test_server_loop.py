"""studio.serverloop: a request thread of the web process runs a coroutine on the server's own event
loop (the one studio.http.WsgiHttp runs on) and waits for its result, a bounded time; a thread of
no server, and the loop's own thread, may not."""
import asyncio
import threading

from studio import http, serverloop

SCOPE = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": [], "http_version": "1.1"}


async def _where():
    return asyncio.get_running_loop(), threading.get_ident()


async def _never():
    await asyncio.Event().wait()


async def _request(app):
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        pass

    await asyncio.wait_for(http.WsgiHttp(app, threads=1)(SCOPE, receive, send), 10)


async def test_a_request_thread_runs_a_coroutine_on_the_servers_loop_and_gets_its_result():
    seen = []

    def app(environ, start_response):
        seen.append((serverloop.usable(), serverloop.run(_where, timeout=5), threading.get_ident()))
        start_response("200 OK", [])
        return [b""]

    await _request(app)
    (usable, (loop, thread), request_thread), = seen
    assert usable and loop is asyncio.get_running_loop() and thread == threading.get_ident() != request_thread
    assert not serverloop.usable()  # on the loop's own thread: never


async def test_the_wait_is_bounded():
    raised = []

    def app(environ, start_response):
        try:
            serverloop.run(_never, timeout=0.2)
        except TimeoutError as exc:
            raised.append(exc)
        start_response("200 OK", [])
        return [b""]

    await _request(app)
    assert len(raised) == 1


def test_a_thread_of_no_running_server_may_not():
    def app(environ, start_response):
        start_response("200 OK", [])
        return [b""]

    async def served():
        await _request(app)

    asyncio.run(served())  # its loop is closed now
    assert not serverloop.usable()
