"""Real parallel requests against the live server: one player's simultaneous bets
never overdraw, a bet racing the close of betting is accepted before it or refused, and two
settlements at once pay once.

The live server runs in this process: its threads take their connections from the pool the test
shares (tests.parallel), so a race sends at once no more requests than the pool lends connections
(the server could run no more of them at once anyway: the others would wait for a connection)."""
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection, connections, transaction
from django.db.models import Sum
from accounts.tokens import token_issue

from bets.ledger import chips_set, wallet_get
from bets.models import Account, Bet, LedgerEntry
from bets.services import bet_place
from bets.settlement import round_settle
from bets.tasks import settle_round
from tables.models import Round
from tables.services import round_open
from tests import localhttp
from tests.bets.flow import D, EXAMPLE_2_CARDS, balance, entries_sum, finish_without_settling, quick_player
from tests.parallel import at_once, make_room, pool_room

pytestmark = pytest.mark.django_db(transaction=True)

SPOTS = ["andar", "bahar", "count_1_5", "count_6_10", "count_11_15"]
ANDAR_50 = {"spot": "andar", "amount": "50"}
MOST_RACERS = 50


def racers(most: int = MOST_RACERS) -> int:
    """How many requests a race sends at once: `most`, or fewer if the pool lends fewer connections."""
    room = pool_room()
    return most if room is None else min(most, room)


def token_of(user) -> str:
    return "Token " + token_issue(user=user).key


class Caller:
    """One HTTP client per racer, its keep-alive connection opened before the race: the test server
    queues only 10 connections waiting to be accepted, so 50 connects at once would be a test of
    the listen backlog instead of the bets."""

    def __init__(self, base_url, token):
        # keepalive_expiry: httpx drops a connection idle for 5 s, and warming 50 up can take longer.
        self.client = localhttp.Client(base_url=base_url, headers={"Authorization": token}, timeout=60,
                                   limits=httpx.Limits(keepalive_expiry=600))
        assert self.client.get("/api/me/").status_code == 200

    def post(self, path, body=None):
        started = time.monotonic()
        response = self.client.post(path, json=body)
        return started, time.monotonic(), response


@pytest.fixture
def http(live_server, settings):
    """http(user) -> a connected Caller, http(u1, u2, ...) -> a list of them (connected 8 at a time,
    within the server's backlog, and within what the pool lends the server's threads). All are
    closed at the end, so the server threads end (and close their database connections) before the
    test database is flushed. The races here are more requests at one round than a round's share of
    a process's threads (studio.bulkhead: those beyond it wait for a lock only a moment, then 503
    `busy`, tests/tables/test_held_lock.py): here every one of them may wait, so that they meet at
    the round's and the wallet's locks, which is what these tests are about."""
    settings.ROUND_SHARE = settings.ROUND_SHARE_ALL = 16
    made = []

    def connect(*users):
        tokens = {u.pk: token_of(u) for u in users}
        workers = racers(min(8, len(users)))
        make_room(workers)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            callers = list(pool.map(lambda u: Caller(live_server.url, tokens[u.pk]), users))
        made.extend(callers)
        return callers[0] if len(users) == 1 else callers

    yield connect
    for caller in made:
        caller.client.close()


def assert_wallets_match_their_entries():
    for account in Account.objects.filter(kind="player"):
        assert entries_sum(account) == account.balance, account
    assert LedgerEntry.objects.aggregate(s=Sum("amount"))["s"] == 0


def test_simultaneous_bets_from_a_player_who_can_afford_a_fifth_of_them(http, make_table, dealer, alice):
    """As many bets at once as the pool lends connections (MOST_RACERS at most), each of 100 chips,
    from a player whose chips cover a fifth of them: that fifth is accepted, the others refused."""
    n = racers()
    affordable = n // 5
    assert affordable >= 1, f"a pool of {n} connections is too small for this race"
    chips_set(user=alice, balance=D(100 * affordable))
    table = make_table(min_bet=D("10"), max_bet=D("100000"), allow_both_sides=True, betting_seconds=300)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    callers = http(*[alice] * n)
    path = f"/api/rounds/{rnd.pk}/bets/"

    results = at_once(*[lambda i=i: callers[i].post(path, {"spot": SPOTS[i % 5], "amount": "100"}) for i in range(n)])

    assert not [r for r in results if isinstance(r, BaseException)], results
    responses = [r[2] for r in results]
    assert Counter(r.status_code for r in responses) == {201: affordable, 400: n - affordable}, \
        [r.text for r in responses if r.status_code >= 500]
    assert {r.json()["code"] for r in responses if r.status_code == 400} == {"insufficient_funds"}
    assert balance(alice) == D("0")
    accepted = {r.json()["id"] for r in responses if r.status_code == 201}
    assert set(Bet.objects.filter(round=rnd).values_list("id", flat=True)) == accepted
    assert LedgerEntry.objects.filter(account__user=alice, kind="bet").count() == affordable
    assert_wallets_match_their_entries()


def test_a_bet_racing_the_close_is_accepted_before_it_or_refused(http, make_table, dealer):
    table = make_table(max_bet=D("100000"), allow_both_sides=True, betting_seconds=300)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    players = [quick_player(f"racer{i}", 100000) for i in range(racers(9) - 1)]  # and the dealer's close
    bettors = http(*players)
    closer = http(dealer)

    accepted_so_far = Counter()
    betting_is_busy = threading.Event()

    def keep_betting(caller):
        sent = []
        for n in range(500):  # until refused
            sent.append(caller.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": SPOTS[n % 5], "amount": "10"}))
            if sent[-1][2].status_code != 201:
                break
            accepted_so_far[caller] += 1
            if sum(accepted_so_far.values()) >= 2 * len(players):
                betting_is_busy.set()
        return sent

    def close_when_busy():  # close in the middle of the stream of bets
        betting_is_busy.wait(timeout=60)
        return closer.post(f"/api/rounds/{rnd.pk}/close-betting/")

    *bettors, closing = at_once(*[lambda c=c: keep_betting(c) for c in bettors] + [close_when_busy])
    assert not [r for r in bettors + [closing] if isinstance(r, BaseException)], bettors + [closing]
    _, close_returned, close_response = closing
    assert close_response.status_code == 200, close_response.text
    attempts = [a for sent in bettors for a in sent]
    accepted = [a for a in attempts if a[2].status_code == 201]
    refusals = [a[2] for a in attempts if a[2].status_code != 201]
    assert len(accepted) >= 2 * len(players) and len(refusals) == len(players)  # every bettor was refused in the end
    assert {(r.status_code, r.json()["code"]) for r in refusals} == {(409, "betting_closed")}
    assert not [a for a in accepted if a[0] > close_returned], "a bet sent after the close returned was accepted"
    accepted_ids = {a[2].json()["id"] for a in accepted}
    assert set(Bet.objects.filter(round=rnd).values_list("id", flat=True)) == accepted_ids
    assert set(LedgerEntry.objects.filter(kind="bet", account__kind="player").values_list("bet_id", flat=True)) == accepted_ids
    assert Round.objects.get(pk=rnd.pk).status == "dealing"
    assert_wallets_match_their_entries()


def _waiting_on_locks() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        return cur.fetchone()[0]


def _until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the lock waits this test sets up did not happen"
        time.sleep(0.02)


def test_closed_at_comes_after_a_bet_that_was_in_flight_when_the_close_began(http, make_table, dealer, alice):
    """A bet holds the round (FOR SHARE) while it waits for Alice's wallet, held by another of her
    transactions; the close arrives meanwhile and must wait for that bet, so closed_at is after it."""
    table = make_table(max_bet=D("100000"), betting_seconds=300)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    wallet_locked, release = threading.Event(), threading.Event()
    base = f"/api/rounds/{rnd.pk}"
    alice_http, dealer_http = http(alice), http(dealer)

    def hold_wallet():
        with transaction.atomic():
            Account.objects.select_for_update().get(pk=wallet_get(user=alice).pk)
            wallet_locked.set()
            release.wait(timeout=30)
        connections.close_all()

    holder = threading.Thread(target=hold_wallet)
    holder.start()
    results, threads = {}, [holder]
    try:
        wallet_locked.wait(timeout=10)
        threads.append(threading.Thread(target=lambda: results.update(bet=alice_http.post(f"{base}/bets/", ANDAR_50))))
        threads[-1].start()
        _until(lambda: _waiting_on_locks() >= 1)  # the bet holds the round and waits for the wallet
        threads.append(threading.Thread(target=lambda: results.update(close=dealer_http.post(f"{base}/close-betting/"))))
        threads[-1].start()
        _until(lambda: _waiting_on_locks() >= 2)  # the close waits for the bet
    finally:
        release.set()
        for t in threads:
            t.join(timeout=30)

    assert results["bet"][2].status_code == 201, results["bet"][2].text
    assert results["close"][2].status_code == 200, results["close"][2].text
    bet = Bet.objects.get(pk=results["bet"][2].json()["id"])
    assert Round.objects.get(pk=rnd.pk).closed_at >= bet.created_at


def test_two_settlements_at_once_pay_once(make_table, dealer):
    players = [quick_player(f"p{i}", 10000) for i in range(10)]
    table = make_table(max_bet=D("100000"), allow_both_sides=True, betting_seconds=300)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    with transaction.atomic():  # one commit for all the bets
        for i in range(120):
            bet_place(round_id=rnd.pk, player=players[i % 10], spot=SPOTS[i % 5], amount=D(10 + i % 7))
    finish_without_settling(rnd, EXAMPLE_2_CARDS)
    before = {p.pk: balance(p) for p in players}

    results = at_once(*[lambda: round_settle(round_id=rnd.pk), lambda: settle_round(rnd.pk)])  # the service, the task

    assert sorted(results) == [False, True], results
    won = Bet.objects.filter(round=rnd, status="won")
    assert won.count() > 0 and Bet.objects.filter(round=rnd, status="open").count() == 0
    wins = Counter(LedgerEntry.objects.filter(kind="win", bet__isnull=False).values_list("bet_id", flat=True))
    assert set(wins.values()) == {1} and set(wins) == set(won.values_list("id", flat=True))
    for p in players:
        paid = won.filter(player=p).aggregate(s=Sum("payout"))["s"] or D(0)
        assert balance(p) == before[p.pk] + paid
    assert Round.objects.get(pk=rnd.pk).settlement_version == 1
    assert_wallets_match_their_entries()


def test_one_players_two_bets_at_once_never_pass_the_tables_limit_together(make_table, dealer, alice, monkeypatch):
    """Two bets of one player, each within the table's limit but not both: the second waits for the
    first's wallet lock and then reads the first bet (its context is read after the locks, in a
    statement of its own), so it is refused. The first is held in its write until the second is
    seen waiting on a lock."""
    from bets import wallets
    from studio.errors import ApplicationError

    rnd = round_open(table_id=make_table(min_bet=10, max_bet=100, betting_seconds=600).pk, joker="KS", dealer=dealer)
    in_write, go = threading.Event(), threading.Event()
    write = wallets.bet_stake

    def held(**kwargs):
        if kwargs["spot"] == "andar":
            in_write.set()
            assert go.wait(30)
        return write(**kwargs)

    monkeypatch.setattr(wallets, "bet_stake", held)
    make_room(2)

    def place(spot):
        try:
            return bet_place(round_id=rnd.pk, player=alice, spot=spot, amount="60")[0]
        except ApplicationError as refused:
            return refused
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(place, "andar")
        assert in_write.wait(30)
        second = pool.submit(place, "first_andar")
        _until(lambda: _waiting_on_locks() >= 1)
        go.set()
        placed, refused = first.result(60), second.result(60)
    assert isinstance(placed, Bet) and refused.code == "over_max_bet", (placed, refused)
    assert list(Bet.objects.filter(round=rnd).values_list("spot", flat=True)) == ["andar"] and balance(alice) == D("940")
    assert_wallets_match_their_entries()
