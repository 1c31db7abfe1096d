"""The access log of a real server: one line per HTTP request and per WebSocket connect and close, with
the user id, and never a query string or a token (a WebSocket URL carries ?token=)."""
import asyncio
import json
import logging
import time

import pytest
from accounts.tokens import token_issue
from websockets.asyncio.client import connect

from studio.access import DropQueryStrings
from tests import localhttp
from tests.servers import studio_server


def wait_for(path, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while True:
        log = path.read_text()
        if text in log or time.monotonic() > deadline:
            return log
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_requests_and_streams_are_logged_without_tokens(alice, table, tmp_path):
    key = token_issue(user=alice).key
    with studio_server(log_dir=tmp_path, name="access") as url:
        me = localhttp.get(url + "/api/me/", params={"token": "query-" + key}, headers={"Authorization": f"Token {key}"}, timeout=20)
        assert me.status_code == 200
        assert localhttp.get(url + "/api/tables/", params={"q": "x"}, timeout=20).status_code == 200  # anonymous
        too_big = localhttp.post(url + "/api/auth/token/", params={"token": key}, content=b"x" * (10 * 1024 * 1024 + 1), timeout=60)
        assert too_big.status_code == 413  # answered before Django: logged all the same

        async def watch():
            ws_url = url.replace("http", "ws") + f"/ws/tables/{table.pk}/?token={key}"
            async with connect(ws_url, origin=url, compression=None, open_timeout=20) as ws:
                snapshot = json.loads(await asyncio.wait_for(ws.recv(), 20))
                assert snapshot["type"] == "snapshot"

        asyncio.run(watch())
        log = wait_for(tmp_path / "server.log", f"WS close /ws/tables/{table.pk}/")
    assert any("GET /api/me/ 200 " in line and line.endswith(f"user={alice.pk}") for line in log.splitlines()), log
    assert any("GET /api/tables/ 200 " in line and line.endswith("user=-") for line in log.splitlines()), log
    assert "POST /api/auth/token/ 413 " in log
    lines = [line for line in log.splitlines() if "studio.access" in line]
    assert any(f"WS connect /ws/tables/{table.pk}/ user={alice.pk}" in line for line in lines), log
    assert any(f"WS close /ws/tables/{table.pk}/ 1000 " in line and f"user={alice.pk}" in line for line in lines), log
    assert key not in log and "token=" not in log and "q=x" not in log


def test_the_filter_cuts_query_strings_from_any_record():
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
                               ("127.0.0.1:5000", "/ws/tables/1/?token=abc123"), None)
    assert DropQueryStrings().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "WebSocket /ws/tables/1/" [accepted]'


def test_a_line_is_one_record_of_the_access_logger_with_its_fields(caplog):
    from django.test import RequestFactory

    from studio.access import AccessLogMiddleware

    caplog.set_level(logging.INFO, logger="studio.access")
    request = RequestFactory().get("/api/x%0Ay/", {"token": "secret"})
    AccessLogMiddleware(lambda r: type("R", (), {"status_code": 204})())(request)
    [record] = [r for r in caplog.records if r.name == "studio.access"]
    assert record.levelname == "INFO" and record.args is None
    method, path, status, took, user = record.getMessage().split(" ")
    assert (method, path, status, user) == ("GET", "/api/x\\ny/", "204", "user=-") and took.endswith("ms")
    assert "secret" not in record.getMessage()
