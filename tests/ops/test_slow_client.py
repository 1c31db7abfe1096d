"""A client that stops reading a streamed response (the CSV export) holds its request thread only
for HTTP_SEND_TIMEOUT: the server, with one request thread, answers /healthz after that."""
import socket
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from accounts.tokens import token_issue

from tables.models import Round
from tests import localhttp
from tests.servers import studio_server

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 60_000  # about 8 MB of CSV: more than the kernel buffers of both ends on loopback


def test_a_client_that_stops_reading_an_export_frees_its_thread(supervisor, make_table, tmp_path):
    table = make_table()
    now = timezone.now()
    first = Round.objects.create(table=table, settings=table.snapshot(), joker="KS", first_side="andar", status="settled",
                                 opened_at=now, closes_at=now + timedelta(seconds=15), finished_at=now, settled_at=now,
                                 winner="andar", cards_dealt=1)
    columns = ", ".join(f.column for f in Round._meta.concrete_fields if not f.primary_key)
    with connection.cursor() as cur:  # the same round many times over, in one statement
        cur.execute(f"INSERT INTO {Round._meta.db_table} ({columns}) SELECT {columns} FROM {Round._meta.db_table}, "
                    f"generate_series(2, %s) WHERE id = %s", [ROUNDS, first.pk])
    token = token_issue(user=supervisor).key
    with studio_server(log_dir=tmp_path, name="slow", HTTP_THREADS="1", HTTP_SEND_TIMEOUT="2") as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.socket() as stalled:
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window, and then no reading at all
            stalled.connect(("127.0.0.1", port))
            stalled.sendall(f"GET /api/rounds/export.csv HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n\r\n".encode())
            stalled.recv(1024)  # the export has started
            assert localhttp.get(url + "/healthz", timeout=30).status_code == 200
    with connection.cursor() as cur:  # the flush after the test deletes row by row: 60,000 rounds took it 5 s
        cur.execute(f"TRUNCATE {Round._meta.db_table} CASCADE")
