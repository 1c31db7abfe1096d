"""A round's row held for long holds up only the requests that need it (studio.bulkhead.round_share).

A session of the test's own holds one round's row (SELECT ... FOR UPDATE, as a psql session would)
while 60 players bet on that round at once, on one web process and on two sharing a port. Reads of
another table and a bet at another table are answered while the bets still wait, before the first
waiting bet reaches the lock's timeout; the bets beyond the round's share are refused at once with
503 `busy` and Retry-After, the ones within it when the lock's timeout passes, never a 500; no bet
is half-applied; the refusals are counted in /metrics."""
import re
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from decimal import Decimal

import psycopg
import pytest
from django.db.models import Sum

from accounts.tokens import token_issue
from bets.ledger import wallet_get
from bets.models import Bet, LedgerEntry
from tables.models import Round
from tables.services import round_open
from tests import localhttp
from tests.conftest import make_user
from tests.servers import db_url_of_tests, studio_processes, studio_server

pytestmark = pytest.mark.django_db(transaction=True)
PLAYERS = 60
LOCK_TIMEOUT_MS = 6000
PORTS = range(9340, 9360)
METRICS_TOKEN = "held-lock-metrics"


def post(url: str, token: str, path: str, body: dict) -> tuple[int, str, str | None, float]:
    response = localhttp.post(url + path, json=body, headers={"Authorization": f"Token {token}"}, timeout=60)
    code = response.json().get("code", "") if response.status_code >= 400 else ""
    return response.status_code, code, response.headers.get("Retry-After"), time.monotonic()


@pytest.fixture
def scene(make_table):
    held, other = make_table(betting_seconds=3600), make_table(betting_seconds=3600)
    rounds = (round_open(table_id=held.pk, joker="KS", dealer=make_user("dealer", "dealer")),
              round_open(table_id=other.pk, joker="7H", dealer=make_user("dealer2", "dealer")))
    players = [make_user(f"p{n}", "player", chips=1000) for n in range(PLAYERS)]
    tokens = [token_issue(user=user).key for user in players]
    alice = token_issue(user=make_user("alice", "player", chips=1000)).key
    return other, rounds, players, tokens, alice


@pytest.mark.parametrize("web_processes", [1, 2])
def test_a_held_round_holds_only_its_share_of_the_threads(scene, tmp_path, web_processes):
    other, (held_round, other_round), players, tokens, alice = scene
    env = {"HTTP_THREADS": "8", "DB_LOCK_TIMEOUT_MS": str(LOCK_TIMEOUT_MS), "METRICS_TOKEN": METRICS_TOKEN}  # a share of 4 a process
    server = (studio_server(log_dir=tmp_path, name="heldlock", **env) if web_processes == 1 else
              studio_processes(log_dir=tmp_path, name="heldlock", workers=2, ports=PORTS, **env))
    with server as url, psycopg.connect(db_url_of_tests()) as holder, ThreadPoolExecutor(PLAYERS) as pool:
        holder.execute(f"SELECT id FROM {Round._meta.db_table} WHERE id = %s FOR UPDATE", [held_round.pk])
        bets = [pool.submit(post, url, token, f"/api/rounds/{held_round.pk}/bets/", {"spot": "andar", "amount": "100"})
                for token in tokens]
        busy = None
        while busy is None:  # the round's share is full once a bet beyond it is refused
            done, _ = wait(bets, timeout=60, return_when=FIRST_COMPLETED)
            assert done, "no bet on the held round was answered within a minute"
            busy = next((f for f in done if f.result()[:2] == (503, "busy")), None)
            assert busy is not None or all(f.result()[0] != 201 for f in done), "a bet passed the held lock"
        reads = [localhttp.get(f"{url}/api/tables/{other.pk}/", timeout=60) for _ in range(5)]
        internal = post(url, alice, f"/api/rounds/{other_round.pk}/bets/", {"spot": "bahar", "amount": "50"})
        others_done = time.monotonic()
        answers = [f.result() for f in bets]
        holder.rollback()
        metrics = localhttp.get(f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30).text
    assert all(read.status_code == 200 for read in reads) and internal[0] == 201
    assert {(status, code, retry) for status, code, retry, _ in answers} == {(503, "busy", "1")}  # never a 500, never a pass
    # Each bet beyond a share was refused at once and counted; the rest (a share of 4 a process) waited
    # for the lock's timeout, and they were still waiting when the reads and the other bet were answered.
    refused_at_once = sum(float(n) for n in re.findall(r'^studio_round_busy_total\{kind="round"\} (\S+)$', metrics, re.M))
    waited = PLAYERS - int(refused_at_once)
    assert 1 <= waited <= 4 * web_processes, refused_at_once
    last = sorted(at for *_, at in answers)[-waited:]
    assert others_done < min(last), "a read or a bet at another table waited behind the held round's bets"
    # Nothing of a refused bet is left: no bet, no entry, every wallet as it was.
    assert not Bet.objects.filter(round=held_round).exists()
    assert all(wallet_get(user=user).balance == Decimal(1000) for user in players)
    assert (LedgerEntry.objects.aggregate(total=Sum("amount"))["total"] or 0) == 0
