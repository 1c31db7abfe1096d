"""A slow operator holds only its share of the studio (studio/bulkhead.py). The reference wallet
answers every call in 3 s and 30 of its players bet at once, on one web process (the embedded
studio's) and on two sharing a port (a deployment's): reads of another table and an internal
player's bet are answered while the operator's calls still wait, before the first of its bets is
answered; the bets beyond the share are refused at once with 503 `operator_busy`, and none is
left pending or half-applied."""
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from decimal import Decimal

import pytest
from django.db.models import Sum

from accounts.tokens import token_issue
from bets.models import Bet, LedgerEntry, WalletTransaction
from tables.services import round_open
from tests import localhttp
from tests.bets.seamless_world import launched_players, pending, seamless_operator
from tests.conftest import make_user
from tests.servers import studio_processes, studio_server

pytestmark = pytest.mark.django_db(transaction=True)
LATENCY_MS = 3000
PLAYERS = 30
PORTS = range(18520, 18540)


def post(url: str, token: str, path: str, body: dict) -> tuple[int, str, float]:
    response = localhttp.post(url + path, json=body, headers={"Authorization": f"Token {token}"}, timeout=60)
    code = response.json().get("code", "") if response.status_code >= 400 else ""
    return response.status_code, code, time.monotonic()


@pytest.fixture
def scene(wallet, make_table):
    wallet.faults(latency_ms=LATENCY_MS)
    operator = seamless_operator(wallet)
    slow, other = make_table(currency="INR", min_bet=10, max_bet=5000), make_table()
    dealer = make_user("dealer", "dealer")
    make_user("dealer2", "dealer")
    rounds = round_open(table_id=slow.pk, joker="KS", dealer=dealer), round_open(table_id=other.pk, joker="7H",
                                                                                   dealer=make_user("dealer3", "dealer"))
    players = launched_players(slow, wallet, [f"p{n}" for n in range(PLAYERS)])
    tokens = [token_issue(user=user).key for _, user, _ in players.values()]
    alice = token_issue(user=make_user("alice", "player", chips=1000)).key
    yield operator, other, rounds, players, tokens, alice
    wallet.faults()


@pytest.mark.parametrize("web_processes", [1, 2])
def test_a_slow_operator_holds_only_its_share(scene, wallet, tmp_path, web_processes):
    _, other, (slow_round, other_round), players, tokens, alice = scene
    env = {"SEAMLESS_TIMEOUT": "10", "HTTP_THREADS": "8"}  # a share of 4 threads a process for one operator
    server = (studio_server(log_dir=tmp_path, name="bulkhead", **env) if web_processes == 1 else
              studio_processes(log_dir=tmp_path, name="bulkhead", workers=2, ports=PORTS, **env))
    with server as url, ThreadPoolExecutor(PLAYERS) as pool:
        bets = [pool.submit(post, url, token, f"/api/rounds/{slow_round.pk}/bets/", {"spot": "andar", "amount": "100"})
                for token in tokens]
        busy = None
        while busy is None:  # the share is full once one of them is refused
            done, _ = wait(bets, timeout=60, return_when=FIRST_COMPLETED)
            assert done, "no seamless bet was answered within a minute"
            busy = next((f for f in done if f.result()[:2] == (503, "operator_busy")), None)
            assert busy is not None or all(f.result()[0] != 201 for f in done), "a slow bet was answered before any was refused"
        reads = [localhttp.get(f"{url}/api/tables/{other.pk}/", timeout=60) for _ in range(5)]
        internal = post(url, alice, f"/api/rounds/{other_round.pk}/bets/", {"spot": "bahar", "amount": "50"})
        others_done = time.monotonic()
        answers = [f.result() for f in bets]
    assert all(read.status_code == 200 for read in reads) and internal[0] == 201
    placed = [at for status, _, at in answers if status == 201]
    assert placed and others_done < min(placed), "a read or an internal bet waited behind the slow operator's calls"
    assert {(status, code) for status, code, _ in answers} <= {(201, ""), (503, "operator_busy")}
    refused = sum(status == 503 for status, _, _ in answers)
    assert refused >= PLAYERS - 8  # at most 4 places a process (HTTP_THREADS // 2) waited on the operator at once
    # A refused bet asked nothing of the operator and left nothing behind; an accepted one is a bet and a debit.
    assert pending() == 0
    for (status, _, _), (_, user, pid) in zip(answers, players.values()):
        assert wallet.balance(pid) == (Decimal("900") if status == 201 else Decimal("1000")), pid
        assert Bet.objects.filter(player=user).count() == WalletTransaction.objects.filter(player=user).count() == (status == 201)
    assert (LedgerEntry.objects.aggregate(total=Sum("amount"))["total"] or 0) == 0
