"""One held lock never freezes the studio: a real server (uvicorn, tests.servers) on the test
PostgreSQL database while another connection holds a round row locked (SELECT ... FOR UPDATE).
Bets on that round get a JSON 503 `busy` with Retry-After once DB_LOCK_TIMEOUT_MS has passed,
and nothing of them is applied; /healthz and another table answer before the lock is released.
With the connection pool exhausted, every kind of view (DRF's, the bet view, a plain Django
view) answers the same 503 after DB_POOL_TIMEOUT, never an HTML 500."""
import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import httpx
import psycopg
import pytest
from django.db import connection
from accounts.tokens import token_issue

from bets.models import Account, Bet
from tables.models import Round
from tables.services import round_open
from tests import localhttp
from tests.servers import db_url_of_tests, studio_server

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER_WITHIN = 30  # seconds: far above the bounds below, far below "until the lock is released"


@contextlib.contextmanager
def round_row_locked(round_id: int):
    """Another connection holds the round's row lock until the block ends."""
    with psycopg.connect(db_url_of_tests()) as holder:
        holder.execute(f"SELECT id FROM {Round._meta.db_table} WHERE id = %s FOR UPDATE", [round_id])
        try:
            yield
        finally:
            holder.rollback()


def wait_for_lock_waiters(n: int = 1, timeout: float = 20) -> None:
    """Poll until at least n backends of the test database wait for a lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            if cur.fetchone()[0] >= n:
                return
        time.sleep(0.02)
    pytest.fail(f"no request came to wait for the lock within {timeout} s")


def assert_busy(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text[:300]
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["code"] == "busy"
    assert int(response.headers["Retry-After"]) >= 1


@pytest.fixture
def scene(alice, dealer, make_table):
    locked_table, other_table = make_table(betting_seconds=600), make_table(betting_seconds=600)
    locked = round_open(table_id=locked_table.pk, joker="KS", dealer=dealer)
    other = round_open(table_id=other_table.pk, joker="7H", dealer=dealer)
    token = token_issue(user=alice).key
    return locked, other, other_table, {"Authorization": f"Token {token}"}


def test_a_held_round_lock_holds_up_only_the_bets_on_that_round(scene, alice, tmp_path):
    locked, other, other_table, auth = scene
    with studio_server(log_dir=tmp_path, name="lock", HTTP_THREADS="2", DB_LOCK_TIMEOUT_MS="500") as url, \
            localhttp.Client(base_url=url, timeout=ANSWER_WITHIN) as http, round_row_locked(locked.pk), ThreadPoolExecutor(6) as pool:
        # More bets on the locked round than the server has request threads.
        bets = [pool.submit(http.post, f"/api/rounds/{locked.pk}/bets/", json={"spot": "andar", "amount": "10"},
                            headers={**auth, "Idempotency-Key": f"locked-{i}"}) for i in range(6)]
        wait_for_lock_waiters()
        assert http.get("/healthz").status_code == 200
        assert http.get(f"/api/tables/{other_table.pk}/").status_code == 200
        assert http.get(f"/api/tables/{other_table.pk}/current-round/").status_code == 200
        placed = http.post(f"/api/rounds/{other.pk}/bets/", json={"spot": "bahar", "amount": "20"}, headers=auth)
        assert placed.status_code == 201, placed.text
        for bet in bets:
            assert_busy(bet.result())
    assert not Bet.objects.filter(round_id=locked.pk).exists()  # nothing half-applied
    assert Account.objects.get(user=alice, kind="player").balance == Decimal("980")


def test_an_exhausted_connection_pool_answers_503_busy_on_every_kind_of_view(scene, tmp_path):
    locked, other, other_table, auth = scene
    with studio_server(log_dir=tmp_path, name="pool", HTTP_THREADS="4", DB_POOL_SIZE="1", DB_POOL_TIMEOUT="0.5",
                       DB_LOCK_TIMEOUT_MS="60000") as url, \
            localhttp.Client(base_url=url, timeout=ANSWER_WITHIN) as http, ThreadPoolExecutor(1) as pool:
        with round_row_locked(locked.pk):
            # This bet takes the pool's one connection and waits for the lock with it.
            held = pool.submit(http.post, f"/api/rounds/{locked.pk}/bets/", json={"spot": "andar", "amount": "10"}, headers=auth)
            wait_for_lock_waiters()
            assert_busy(http.get(f"/api/tables/{other_table.pk}/"))  # DRF
            assert_busy(http.post(f"/api/rounds/{other.pk}/bets/", json={"spot": "bahar", "amount": "20"}, headers=auth))  # the bet view
            assert_busy(http.get(f"/play/tables/{other_table.pk}/"))  # a page
            assert_busy(http.get("/healthz"))
        assert held.result().status_code == 201  # the lock released, the waiting bet goes through
        assert http.get(f"/api/tables/{other_table.pk}/").status_code == 200
    assert not Bet.objects.filter(round_id=other.pk).exists()
