"""Settlement: RULES.md's worked examples paid to the exact chip through the API, round totals,
exactly-once (twice in a row, the task too, and the ledger's unique key), and a constant number of
SQL statements whatever the number of bets."""
from collections import defaultdict

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from bets.ledger import house_account
from bets.models import Bet, LedgerEntry
from bets.services import bet_place
from bets.settlement import round_settle
from bets.tasks import settle_round
from engine import bet_result, offered_spots
from tables.models import Round
from tables.selectors import round_config, round_deal
from tables.services import round_close_betting, round_open
from tests.bets.flow import (
    D, EXAMPLE_2_CARDS, balance, close, deal, entries_sum, finish_without_settling, open_round, placed, quick_player,
)

pytestmark = pytest.mark.django_db

CASH = {"mode": "no_commission", "chip_unit": D("0.01")}
PLAY = {"card_count_paytable": "play", "chip_unit": D("1")}

# (table settings, joker, cards dealt, [(player, spot, stake, status, payout)], {player: net result})
EXAMPLES = [
    pytest.param(CASH, "KS", ["KC"], [
        ("alice", "andar", "10", "won", "12.50"),
        ("bob", "bahar", "10", "lost", "0"),
    ], {"alice": "2.50", "bob": "-10"}, id="1-no-commission-andar-wins-2.50"),
    pytest.param({}, "KS", ["KC"], [
        ("alice", "andar", "50", "won", "95"),
        ("bob", "first_andar", "20", "won", "320"),
        ("bob", "bahar", "30", "lost", "0"),
    ], {"alice": "45", "bob": "270"}, id="1-classic-andar-45-first-andar-300"),
    pytest.param({}, "KS", EXAMPLE_2_CARDS, [
        ("alice", "first_three", "10", "won", "90"),
        ("alice", "count_6_10", "5", "won", "20"),
        ("bob", "first_andar", "10", "lost", "0"),
        ("bob", "bahar", "10", "lost", "0"),
    ], {"alice": "95", "bob": "-20"}, id="2-first-three-straight-80-count-6-10-15"),
    pytest.param(PLAY, "KS", EXAMPLE_2_CARDS, [
        ("alice", "andar", "50", "won", "95"),
        ("alice", "count_6_10", "25", "won", "112"),
        ("bob", "andar", "25", "won", "47"),
    ], {"alice": "132", "bob": "22"}, id="3-play-chips-132-up-and-47-back"),
]


@pytest.mark.parametrize("settings_, joker, cards, bets, net", EXAMPLES)
def test_worked_examples_settle_to_the_exact_chip(settings_, joker, cards, bets, net, make_table, dealer_api, supervisor_api,
                                                  alice, alice_api, bob, bob_api, django_capture_on_commit_callbacks):
    players = {"alice": (alice, alice_api), "bob": (bob, bob_api)}
    round_id = open_round(dealer_api, make_table(**settings_), joker=joker)
    ids = [placed(players[name][1], round_id, spot, stake)["id"] for name, spot, stake, _, _ in bets]
    close(dealer_api, round_id)
    with django_capture_on_commit_callbacks(execute=True):
        deal(dealer_api, round_id, cards)

    rnd = supervisor_api.get(f"/api/rounds/{round_id}/").json()
    assert rnd["status"] == "settled"
    for bet_id, (name, spot, stake, status, payout) in zip(ids, bets, strict=True):
        shown = players[name][1].get(f"/api/bets/{bet_id}/").json()
        assert (shown["spot"], shown["status"], D(shown["payout"])) == (spot, status, D(payout))
        wins = list(LedgerEntry.objects.filter(bet_id=bet_id, kind="win").values_list("amount", flat=True))
        assert wins == ([D(payout)] if status == "won" else [])
    for name, result in net.items():
        assert balance(players[name][0]) == D("1000") + D(result), name
    staked, paid = sum(D(b[2]) for b in bets), sum(D(b[4]) for b in bets)
    assert rnd["totals"] == {"bets": len(bets), "staked": str(staked.quantize(D("0.01"))),
                             "paid": str(paid.quantize(D("0.01"))), "house_result": str((staked - paid).quantize(D("0.01")))}
    everyone = supervisor_api.get(f"/api/rounds/{round_id}/bets/").json()
    assert (D(everyone["staked"]), D(everyone["paid"])) == (staked, paid)


def _settled_example_3(make_table, dealer_api, alice_api, bob_api, capture):
    round_id = open_round(dealer_api, make_table(**PLAY))
    placed(alice_api, round_id, "andar", "50")
    placed(alice_api, round_id, "count_6_10", "25")
    placed(bob_api, round_id, "bahar", "25")
    close(dealer_api, round_id)
    with capture(execute=True):
        deal(dealer_api, round_id, EXAMPLE_2_CARDS)
    return round_id


def test_settling_twice_pays_once(make_table, dealer_api, alice, alice_api, bob, bob_api, django_capture_on_commit_callbacks):
    round_id = _settled_example_3(make_table, dealer_api, alice_api, bob_api, django_capture_on_commit_callbacks)
    entries = LedgerEntry.objects.count()
    assert round_settle(round_id=round_id) is False
    assert settle_round(round_id) is False  # the Celery task's body, as a worker runs it
    assert LedgerEntry.objects.count() == entries
    assert (balance(alice), balance(bob)) == (D("1132"), D("975"))
    rnd = Round.objects.get(pk=round_id)
    assert (rnd.status, rnd.settlement_version, rnd.bet_count) == ("settled", 1, 3)
    assert (rnd.total_staked, rnd.total_paid, rnd.house_result) == (D("100"), D("207"), D("-107"))


def test_the_ledger_refuses_a_second_win_entry_for_a_bet(make_table, dealer_api, alice, alice_api, bob_api,
                                                          django_capture_on_commit_callbacks):
    round_id = _settled_example_3(make_table, dealer_api, alice_api, bob_api, django_capture_on_commit_callbacks)
    won = Bet.objects.filter(round_id=round_id, status="won").first()
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(account=won.account, amount=won.payout, kind="win", bet=won, round_id=round_id, version=1)
    assert balance(alice) == D("1132")


def test_a_losing_bet_is_lost_with_nothing_paid_and_no_win_entry(make_table, dealer_api, alice_api, bob, bob_api,
                                                                          django_capture_on_commit_callbacks):
    round_id = _settled_example_3(make_table, dealer_api, alice_api, bob_api, django_capture_on_commit_callbacks)
    lost = Bet.objects.get(round_id=round_id, player=bob)
    assert (lost.status, lost.payout, lost.settled_at is not None) == ("lost", D("0"), True)
    assert list(LedgerEntry.objects.filter(bet=lost).values_list("kind", flat=True)) == ["bet", "bet"]  # wallet and house


def test_the_ledger_balances_after_a_settlement(make_table, dealer_api, alice, alice_api, bob, bob_api,
                                                django_capture_on_commit_callbacks):
    round_id = _settled_example_3(make_table, dealer_api, alice_api, bob_api, django_capture_on_commit_callbacks)
    assert sum(LedgerEntry.objects.values_list("amount", flat=True)) == 0
    assert entries_sum(alice.accounts.get()) == balance(alice) and entries_sum(bob.accounts.get()) == balance(bob)
    house = house_account()
    assert entries_sum(house) == D("-107")  # the round's house result
    assert LedgerEntry.objects.filter(account=house, kind="win", round_id=round_id, bet=None).get().amount == D("-207")


# --- set-based: the same statements for 3 bets as for 300 ------------------------------------------

def _finished_round(make_table, dealer, players, n_bets):
    table = make_table(card_count_paytable="play", max_bet=D("100000"), allow_both_sides=True)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    spots = offered_spots(round_config(rnd))
    for i in range(n_bets):
        bet_place(round_id=rnd.pk, player=players[i % len(players)], spot=spots[i % len(spots)], amount=D(10 + 7 * (i % 11)))
    round_close_betting(round_id=rnd.pk, actor=dealer)
    return finish_without_settling(rnd, EXAMPLE_2_CARDS)


def _settle_counting_statements(rnd) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert round_settle(round_id=rnd.pk) is True
    return len(ctx.captured_queries)


def _assert_paid_as_the_engine_says(rnd):
    config, outcome = round_config(rnd), round_deal(rnd).outcome
    paid = defaultdict(lambda: D(0))
    for b in Bet.objects.filter(round=rnd):
        expected = bet_result(config, b.spot, b.amount, outcome)
        assert (b.status, b.payout) == ("won" if expected.won else "lost", expected.payout), (b.spot, b.amount)
        paid[b.account_id] += b.payout
    for account_id, total in paid.items():
        got = LedgerEntry.objects.filter(account_id=account_id, kind="win", round=rnd).values_list("amount", flat=True)
        assert sum(got, D(0)) == total


def test_settlement_runs_the_same_few_statements_for_3_bets_and_for_300(make_table, dealer):
    players = [quick_player(f"p{i}", 5000) for i in range(30)]
    small = _finished_round(make_table, dealer, players[:3], 3)
    large = _finished_round(make_table, dealer, players, 300)
    small_count, large_count = _settle_counting_statements(small), _settle_counting_statements(large)
    # settlement's own (at most 20), its event's three in the table's audit chain (the table's row, then the
    # head's two), the integrity monitor's eight, the reports' rules row (stored if new), and the public log's
    # outbox row with its leaf's four reads (the cards, the bets per spot, the settlement's audit record, the dealer)
    assert small_count == large_count <= 37
    _assert_paid_as_the_engine_says(small)
    _assert_paid_as_the_engine_says(large)
    assert Bet.objects.filter(round=large, status="won").count() > 30  # a real mix of winners and losers
    assert Bet.objects.filter(round=large, status="lost").count() > 30


def _updates(table: str) -> tuple[int, int]:
    """The rows of `table` this transaction updated, and how many of them in place (HOT)."""
    with connection.cursor() as cur:
        cur.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s", [table])
        return cur.fetchone()


def test_a_rounds_bets_settle_in_place(make_table, dealer):
    """Every bet's new version fits on its page (bets/migrations/0006_room_for_settlement.py), so no
    index is written for it, even with the bets placed in the settlement's own transaction, where no
    old version can be pruned to make room: the test's transaction holds them all."""
    players = [quick_player(f"p{i}", 5000) for i in range(30)]
    rnd = _finished_round(make_table, dealer, players, 300)
    before = _updates(Bet._meta.db_table)
    assert round_settle(round_id=rnd.pk) is True
    updated, in_place = (after - then for after, then in zip(_updates(Bet._meta.db_table), before))
    assert (updated, in_place) == (300, 300)


@pytest.mark.django_db
def test_the_ledger_is_read_by_bet_and_by_account_through_an_index():
    """The entries' own indexes on the bet and on the account are gone (bets/migrations/0007): the
    bet's lookups, the foreign key's checks among them, go through ledger_once_per_bet, the account's
    through ledger_account_recent_idx."""
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        for column, index in (("bet_id", "ledger_once_per_bet"), ("account_id", "ledger_account_recent_idx")):
            cur.execute(f"EXPLAIN SELECT 1 FROM {LedgerEntry._meta.db_table} WHERE {column} = %s", [1])
            plan = "\n".join(row[0] for row in cur.fetchall())
            assert index in plan and "Seq Scan" not in plan, plan  # an index scan or a bitmap scan of it
