"""The ledger invariant, checked after every step of many random rounds (a hypothesis state
machine): rounds opened with a shuffled pack, random bets (refusals allowed), take-backs, repeats,
admin adjustments, closes, deals and settlements (sometimes twice). After every step:

- all ledger entries sum to exactly 0, and players + house == the chips the mint issued;
- every wallet's balance equals the sum of its entries, and what an independent model of the
  player's chips says (stakes out, take-backs in, payouts from the rules engine in);
- no bet has two win entries.

Each example runs inside a savepoint that is rolled back, so examples start from the same state.
"""
from collections import Counter, defaultdict

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Sum
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from bets.ledger import chips_issue
from bets.models import Account, LedgerEntry
from bets.services import bet_cancel, bet_place, bet_repeat
from bets.settlement import round_settle
from studio.errors import ApplicationError
from engine import FULL_PACK, bet_result, offered_spots
from tables.models import Round, Table
from tables.selectors import round_config, round_deal
from tables.services import card_deal, round_close_betting, round_open
from tests.bets.flow import D, quick_player

pytestmark = pytest.mark.django_db

CARDS = [str(card) for card in FULL_PACK]
AMOUNTS = [D(x) for x in ("0", "1", "2.5", "5", "10", "10.01", "25", "50", "99", "100", "150", "1000")]
TABLES = [  # a play-chips table and a cash table: the rounding differs
    dict(name="play", card_count_paytable="play", chip_unit=D("1"), min_bet=D("10"), max_bet=D("500")),
    dict(name="cash", mode="no_commission", chip_unit=D("0.01"), min_bet=D("1"), max_bet=D("200"), allow_both_sides=True),
]
N_PLAYERS = 3


class LedgerMachine(RuleBasedStateMachine):
    done: Counter = Counter()  # what the runs really did, across examples (the test checks it)

    def __init__(self):
        super().__init__()
        self._savepoint = transaction.atomic()
        self._savepoint.__enter__()
        self.dealer = get_user_model().objects.create(username="machine-dealer")
        self.players = [quick_player(f"machine-p{i}", 1000) for i in range(N_PLAYERS)]
        self.tables = [Table.objects.create(betting_seconds=600, **fields) for fields in TABLES]
        # The model: each player's chips, the open bets of each round, each round's status and pack.
        self.expected = {p.pk: D("1000") for p in self.players}
        self.open_bets: dict[int, dict[int, tuple]] = defaultdict(dict)  # round -> bet id -> (player, spot, amount)
        self.status: dict[int, str] = {}  # round -> status, as the services should have left it
        self.decks: dict[int, list[str]] = {}  # round -> the cards still to deal
        self.bursts: Counter = Counter()  # round -> bursts of bets tried (a round closes after two)

    def teardown(self):
        transaction.set_rollback(True)
        self._savepoint.__exit__(None, None, None)

    def _rounds(self, *statuses) -> list[int]:
        return sorted(rid for rid, status in self.status.items() if status in statuses)

    def _pick(self, i, *statuses) -> Round:
        rounds = self._rounds(*statuses)
        return Round.objects.get(pk=rounds[i % len(rounds)])

    def _took(self, player, bets):
        for b in bets:
            self.expected[player.pk] -= b.amount
            self.open_bets[b.round_id][b.pk] = (player.pk, b.spot, b.amount)

    def _betting(self):
        return bool(self._rounds("betting"))

    def _ready(self, *statuses) -> list[int]:
        """Rounds a close or a deal may act on: dealing ones, and betting ones that saw two bursts."""
        return [rid for rid in self._rounds(*statuses) if self.status[rid] == "dealing" or self.bursts[rid] >= 2]

    def _pick_ready(self, i, *statuses) -> Round:
        rounds = self._ready(*statuses)
        return Round.objects.get(pk=rounds[i % len(rounds)])

    # --- rules (preconditions keep every step meaningful) ------------------------------------------

    @precondition(lambda self: len(self._rounds("betting", "dealing")) < len(self.tables))
    @rule(t=st.integers(0, 1), shuffle=st.randoms(use_true_random=False))
    def open_round(self, t, shuffle):
        busy = {Round.objects.get(pk=rid).table_id for rid in self._rounds("betting", "dealing")}
        free = [table for table in self.tables if table.pk not in busy]
        deck = list(CARDS)
        shuffle.shuffle(deck)  # a seeded shuffle: cheap for hypothesis to draw, unlike a permutation
        rnd = round_open(table_id=free[t % len(free)].pk, joker=deck[0], dealer=self.dealer)
        self.decks[rnd.pk], self.status[rnd.pk] = deck[1:], "betting"

    @precondition(_betting)
    @rule(t=st.integers(0, 1), bets=st.lists(st.tuples(
        st.integers(0, N_PLAYERS - 1),
        st.one_of(st.sampled_from(["andar", "bahar"]), st.integers(0, 40)),  # a main side, or any spot by index
        st.sampled_from(AMOUNTS),
        st.sampled_from([None, None, None, "k1", "k2"]),  # idempotency keys, reused now and then
    ), min_size=1, max_size=6))
    def place_bets(self, t, bets):
        """A burst of bets (player, spot, amount, idempotency key), some of them refused."""
        rnd = self._pick(t, "betting")
        self.bursts[rnd.pk] += 1
        spots = offered_spots(round_config(rnd)) + ["first_three", "nowhere"]  # some are not offered here
        for p, spot, amount, key in bets:
            spot = spot if isinstance(spot, str) else spots[spot % len(spots)]  # half of them on a main side
            try:
                bet, created = bet_place(round_id=rnd.pk, player=self.players[p], spot=spot,
                                         amount=amount, idempotency_key=key)
            except ApplicationError:
                self.done["refused"] += 1
                continue
            if created:
                self._took(self.players[p], [bet])
                self.done["bets"] += 1

    @precondition(lambda self: any(self.open_bets.values()))
    @rule(pick=st.integers(0, 50))
    def cancel_bet(self, pick):
        """Take back one of the open bets: refused unless its round still takes bets."""
        bets = sorted((bet_id, rid, b[0]) for rid, bets in self.open_bets.items() for bet_id, b in bets.items())
        bet_id, rid, player_id = bets[pick % len(bets)]
        player = next(p for p in self.players if p.pk == player_id)
        try:
            bet_cancel(bet_id=bet_id, player=player)
        except ApplicationError:
            assert self.status[rid] != "betting"
            return
        _, _, amount = self.open_bets[rid].pop(bet_id)
        self.expected[player_id] += amount
        self.done["cancels"] += 1

    @precondition(_betting)
    @rule(t=st.integers(0, 1), p=st.integers(0, N_PLAYERS - 1))
    def repeat(self, t, p):
        rnd = self._pick(t, "betting")
        try:
            bets = bet_repeat(round_id=rnd.pk, player=self.players[p])
        except ApplicationError:
            return
        self._took(self.players[p], bets)
        self.done["repeats"] += 1

    @precondition(lambda self: min(self.expected.values()) < 100)
    @rule(p=st.integers(0, N_PLAYERS - 1), amount=st.sampled_from([D("-50"), D("20"), D("100.50")]))
    def adjust(self, p, amount):
        """An admin adjustment for a player running low: the mint issues chips (or takes some back,
        never below zero)."""
        try:
            chips_issue(user=self.players[p], amount=amount)
        except ApplicationError:
            assert self.expected[self.players[p].pk] < -amount
            return
        self.expected[self.players[p].pk] += amount

    @precondition(lambda self: bool(self._ready("betting")))
    @rule(t=st.integers(0, 1))
    def close_betting(self, t):
        rnd = self._pick_ready(t, "betting")
        assert round_close_betting(round_id=rnd.pk, actor=self.dealer) is True
        self.status[rnd.pk] = "dealing"

    @precondition(lambda self: bool(self._ready("betting", "dealing")))
    @rule(t=st.integers(0, 1), n=st.integers(1, 30))
    def deal(self, t, n):
        """Deal up to n cards of the round's pack (closing betting first): often a part of the deal."""
        rnd = self._pick_ready(t, "betting", "dealing")
        if rnd.status == "betting":
            round_close_betting(round_id=rnd.pk, actor=self.dealer)
        self.status[rnd.pk] = "dealing"
        deck = self.decks[rnd.pk]
        for _ in range(n):
            _, match = card_deal(round_id=rnd.pk, card=deck.pop(0), actor=self.dealer)
            if match:
                self.status[rnd.pk] = "finished"
                break

    @precondition(lambda self: bool(self._rounds("finished")))
    @rule(t=st.integers(0, 1), twice=st.booleans())
    def settle(self, t, twice):
        rnd = self._pick(t, "finished")
        config, outcome = round_config(rnd), round_deal(rnd).outcome
        assert round_settle(round_id=rnd.pk) is True
        self.status[rnd.pk] = "settled"
        for player_id, spot, amount in self.open_bets.pop(rnd.pk, {}).values():
            result = bet_result(config, spot, amount, outcome)
            self.expected[player_id] += result.payout
            self.done["winning bets"] += result.won
        self.done["settlements"] += 1
        if twice:
            assert round_settle(round_id=rnd.pk) is False

    # Incidents (issue "errors during a round") add their rules here: pause and resume (bets and
    # take-backs refused while paused), void (every open bet refunded: move the round's open_bets
    # back into `expected`; a settled round's wins reversed) and correct (re-settlement under a new
    # version). With reversals, `no_bet_is_paid_twice` must count wins minus reversals per bet.

    # --- invariants --------------------------------------------------------------------------------

    @invariant()
    def ledger_sums_to_zero_and_to_the_chips_issued(self):
        self.done["steps"] += 1
        rows = LedgerEntry.objects.values("account__kind").annotate(s=Sum("amount"))
        by_kind = {row["account__kind"]: row["s"] for row in rows}
        assert sum(by_kind.values()) == 0
        players = Account.objects.filter(kind=Account.Kind.PLAYER).aggregate(s=Sum("balance"))["s"]
        assert players + by_kind.get("house", 0) == -by_kind["mint"]  # == the chips issued

    @invariant()
    def wallets_equal_their_entries_and_the_model(self):
        sums = {row["account_id"]: row["s"] for row in LedgerEntry.objects.filter(account__kind=Account.Kind.PLAYER)
                .values("account_id").annotate(s=Sum("amount"))}
        for account_id, user_id, balance in Account.objects.filter(user__in=self.players).values_list("id", "user_id", "balance"):
            assert balance == sums[account_id] == self.expected[user_id] >= 0

    @invariant()
    def rounds_are_where_the_model_says(self):
        assert dict(Round.objects.filter(table__in=self.tables).values_list("id", "status")) == self.status

    @invariant()
    def no_bet_is_paid_twice(self):
        twice = (LedgerEntry.objects.filter(kind=LedgerEntry.Kind.WIN, bet__isnull=False).values("bet_id")
                 .annotate(n=Count("id")).filter(n__gt=1))
        assert not twice.exists()


def test_the_ledger_balances_after_every_step_of_many_rounds(db):
    LedgerMachine.done.clear()
    run_state_machine_as_test(LedgerMachine, settings=settings(
        max_examples=12, stateful_step_count=40, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow],
    ))
    # Not vacuous: the runs really bet, refused, took back, repeated and paid winners (typical runs
    # do 100-230 bets and 4-22 settlements; the floors are far below, so that they never flake).
    done = LedgerMachine.done
    assert done["steps"] >= 300 and done["settlements"] >= 2 and done["winning bets"] >= 1, done
    assert done["bets"] >= 50 and done["refused"] >= 20, done
    assert done["cancels"] >= 5 and done["repeats"] >= 1, done
