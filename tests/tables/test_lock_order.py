"""The lock order of tables.locking, held by every writer of a table's rounds.

Two ways: every transition that touches one table, run two at a time on parallel connections in
every pairing the round's moment allows (with PostgreSQL's deadlock check after 20 ms instead of a
second), ends in an answer or a refusal, never in DeadlockDetected or a lock's timeout; and each of
them, run alone, takes its locks in the documented order (round, table, chain head, wallets, then
the rest), as its statements show. The race can only find a cycle that timing lets form; the order
test finds the wrong order of any one writer whatever the timing."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import ChainHead
from bets.models import Account, Bet
from bets.services import bet_cancel, bet_place
from bets.settlement import round_settle
from incidents import services as incidents
from integrity.verify import verify
from studio.errors import ApplicationError
from tables.models import Incident, Match, MatchPlayer, Round, Table
from tables.services import card_deal, round_close_betting, round_open, table_state_set
from tests.conftest import make_user
from tests.parallel import at_once

pytestmark = pytest.mark.django_db(transaction=True)
S = Round.Status
D = Decimal


@dataclass
class Scene:
    """A table at one moment of its round, and the ids its transitions need."""
    table: Table
    rnd: Round
    incident: int | None = None
    bet: int | None = None


@pytest.fixture
def people(db):
    return {"dealer": make_user("lo-dealer", "dealer"), "supervisor": make_user("lo-super", "supervisor"),
            "alice": make_user("lo-alice", "player", chips=D(1000)), "bob": make_user("lo-bob", "player", chips=D(1000))}


def _scene(moment: str, people, make_table) -> Scene:
    """A fresh table with its round at `moment`: betting (Bob has a bet), dealing (one card), paused
    (an incident), finished (not settled: tests/conftest.py's held_tasks keeps the settlement back, with
    an incident open), settled (with an incident open)."""
    dealer, supervisor = people["dealer"], people["supervisor"]
    table = make_table(betting_seconds=3600)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    bet, _ = bet_place(round_id=rnd.pk, player=people["bob"], spot="andar", amount=D(10))
    bet_place(round_id=rnd.pk, player=people["alice"], spot="bahar", amount=D(10))
    scene = Scene(table, rnd, bet=bet.pk)
    if moment == "betting":
        return scene
    round_close_betting(round_id=rnd.pk, actor=dealer)
    card_deal(round_id=rnd.pk, card="2C", actor=dealer)
    if moment == "dealing":
        return scene
    if moment in ("finished", "settled"):
        card_deal(round_id=rnd.pk, card="KD", actor=dealer)  # the match: Bahar wins on the second card
        if moment == "settled":
            assert round_settle(round_id=rnd.pk)
    scene.incident = incidents.incident_raise(round_id=rnd.pk, actor=supervisor, kind="misread").pk
    return scene


# Each transition: what it does with a scene. Refusals (409 and the like) are answers too.
def _ops(people):
    dealer, supervisor, alice, bob = people["dealer"], people["supervisor"], people["alice"], people["bob"]
    return {
        "open": lambda s: round_open(table_id=s.table.pk, joker="QH", dealer=dealer),
        "close": lambda s: round_close_betting(round_id=s.rnd.pk, actor=dealer),
        "deal": lambda s: card_deal(round_id=s.rnd.pk, card="3C", actor=dealer),
        "bet": lambda s: bet_place(round_id=s.rnd.pk, player=alice, spot="bahar", amount=D(5)),
        "cancel": lambda s: bet_cancel(bet_id=s.bet, player=bob),
        "raise": lambda s: incidents.incident_raise(round_id=s.rnd.pk, actor=supervisor, kind="misread"),
        "note": lambda s: incidents.incident_add_note(incident_id=s.incident, actor=supervisor, text="seen"),
        "resume": lambda s: incidents.incident_resume(incident_id=s.incident, actor=supervisor),
        "void": lambda s: incidents.incident_void(incident_id=s.incident, actor=supervisor, reason="test"),
        "correct": lambda s: incidents.card_replace(round_id=s.rnd.pk, position=1, card="4C", actor=supervisor),
        "settle": lambda s: round_settle(round_id=s.rnd.pk),
        "table": lambda s: table_state_set(table_id=s.table.pk, state="maintenance", reason="lights", actor=supervisor),
    }


# The transitions each moment allows (and a few it refuses, which still take their locks first).
MOMENTS = {
    "betting": ["bet", "cancel", "close", "raise", "table", "deal", "open"],
    "dealing": ["deal", "raise", "bet", "close", "table", "cancel"],
    "paused": ["resume", "void", "correct", "note", "raise", "deal", "bet"],
    "finished": ["settle", "void", "correct", "note", "raise", "table"],
    "settled": ["correct", "void", "note", "open", "table"],
}
PAIRS = [(moment, a, b) for moment, ops in MOMENTS.items() for a, b in itertools.combinations_with_replacement(ops, 2)]


def _with_quick_deadlock_check(call):
    """Run `call` on this thread's connection with PostgreSQL's deadlock check after 20 ms (a cycle
    is then reported at once, not after the default second)."""
    def run():
        with connection.cursor() as cur:
            cur.execute("SELECT set_config('deadlock_timeout', '20ms', false)")
        return call()
    return run


@pytest.mark.parametrize("moment, first, second", PAIRS, ids=[f"{m}-{a}-{b}" for m, a, b in PAIRS])
def test_two_transitions_at_one_table_at_once_never_deadlock(moment, first, second, people, make_table, held_tasks):
    scene = _scene(moment, people, make_table)
    ops = _ops(people)
    results = at_once(_with_quick_deadlock_check(lambda: ops[first](scene)),
                      _with_quick_deadlock_check(lambda: ops[second](scene)))
    for name, result in zip((first, second), results):
        assert not isinstance(result, BaseException) or isinstance(result, ApplicationError), (name, repr(result))
    assert all(result.whole for result in verify(scene.table.pk))


# --- the order each writer takes its locks in ---------------------------------------------------------

RANKS = [  # (rank, table, what a statement does to it that takes a row lock)
    (1, Round._meta.db_table, ("FOR UPDATE", "FOR SHARE", "FOR NO KEY UPDATE")),
    (2, Table._meta.db_table, ("FOR UPDATE", "FOR NO KEY UPDATE", "UPDATE ")),
    (3, ChainHead._meta.db_table, ("FOR UPDATE", "UPDATE ")),
    (4, Account._meta.db_table, ("FOR UPDATE", "UPDATE ")),
    (5, Incident._meta.db_table, ("FOR UPDATE", "UPDATE ")),
    (5, Bet._meta.db_table, ("FOR UPDATE", "UPDATE ")),
    (6, Match._meta.db_table, ("FOR UPDATE",)),
    (6, MatchPlayer._meta.db_table, ("FOR UPDATE",)),
]


def _locks(statements: list[str]) -> list[tuple[int, str]]:
    """The ranks of the rows each statement locks, in the order first locked."""
    seen: list[tuple[int, str]] = []
    for sql in statements:
        for rank, table, how in RANKS:
            named = f'"{table}"' in sql or f" {table} " in sql or f" {table}\n" in sql or sql.rstrip().endswith(f" {table}")
            if named and any(word in sql for word in how) and (rank, table) not in seen:
                seen.append((rank, table))
    return seen


ALONE = [(moment, op) for moment, ops in MOMENTS.items() for op in ops]


@pytest.mark.parametrize("moment, op", ALONE, ids=[f"{m}-{o}" for m, o in ALONE])
def test_each_transition_takes_its_locks_in_the_documented_order(moment, op, people, make_table, held_tasks):
    scene = _scene(moment, people, make_table)
    with CaptureQueriesContext(connection) as seen:
        try:
            _ops(people)[op](scene)
        except ApplicationError:
            pass  # a refusal after its locks: they were still taken in order
    locks = _locks([q["sql"] for q in seen.captured_queries])
    ranks = [rank for rank, _ in locks]
    assert ranks == sorted(ranks), locks


def test_the_order_check_sees_a_wrong_order():
    """The check above is not blind: wallets before the round's row is out of order."""
    wrong = [f'SELECT id FROM {Account._meta.db_table} WHERE id = 1 FOR UPDATE',
             f'SELECT * FROM "{Round._meta.db_table}" WHERE id = 1 FOR UPDATE']
    ranks = [rank for rank, _ in _locks(wrong)]
    assert ranks != sorted(ranks)
