"""The code's own invariants are explicit checks that raise a proper error, never `assert`s (which
`python -O` strips): no `assert` statement in the application's packages, no handler that catches
BaseException (or everything, bare), each check raising as it should, and one of them holding in a
process run with `-O`."""
import ast
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import transaction
from django.db.transaction import TransactionManagementError

from audit import chain
from bets import ledger, operator_wallet, outbox
from bets.models import Account
from integrity.stream import supervisor_event
from reports.rollup import rollup_count, rollup_settlement
from reports.selectors import report
from studio.errors import require_transaction
from studio.http import WsgiHttp
from tables import stream
from tables.changes import change_record
from tables.events import TableState
from tables.locking import Held, lock_round, lock_table
from tables.models import Round
from tables.services import table_update
from tables.transitions import transition

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "embedded", "studio", "audit", "accounts", "tables", "bets", "incidents", "matches", "virtual", "integrity",
            "reports", "web"]


def unguarded(path: Path) -> list[tuple[str, int]]:
    """(what, line) of every `assert` statement, and every handler of BaseException or of everything."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Assert):
            found.append(("assert", node.lineno))
        elif isinstance(node, ast.ExceptHandler):
            caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)} if node.type is not None else {"everything"}
            if caught & {"BaseException", "everything"}:
                found.append(("except " + "/".join(sorted(caught & {"BaseException", "everything"})), node.lineno))
    return found


# What the finder must see (and not see), as the scan below relies on it.
SAMPLES = [
    ("x = 1\n", []),
    ("assert x, 'no'\n", [("assert", 1)]),
    ("def f():\n    if x:\n        assert y\n", [("assert", 3)]),
    ("try:\n    f()\nexcept BaseException:\n    raise\n", [("except BaseException", 3)]),
    ("try:\n    f()\nexcept (ValueError, BaseException):\n    raise\n", [("except BaseException", 3)]),
    ("try:\n    f()\nexcept:\n    pass\n", [("except everything", 3)]),
    ("try:\n    f()\nexcept (Exception, asyncio.CancelledError):\n    raise\n", []),
]


def test_no_invariant_is_an_assert_and_no_handler_catches_base_exceptions(tmp_path):
    for source, expected in SAMPLES:
        sample = tmp_path / "module.py"
        sample.write_text(source)
        assert unguarded(sample) == expected, source
    bad = {(str(path.relative_to(ROOT)), what, line)
           for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")) for what, line in unguarded(path)}
    assert bad == set(), sorted(bad)


def _wallets():
    return Account(pk=1, kind=Account.Kind.PLAYER), Account(pk=2, kind=Account.Kind.HOUSE)


# Each check, and what it raises: outside a transaction where one is needed, inside one where
# network I/O would be held in it, or given what its callers never pass.
OUTSIDE = [
    ("a ledger movement", lambda: ledger.post(wallet=_wallets()[0], counter=_wallets()[1], amount=Decimal("1"), kind="issue")),
    ("a bet's stake", lambda: ledger.bet_stake(round_id=1, player=None, wallet=None, house=None, spot="andar",
                                                amount=Decimal("1"), idempotency_key=None)),
    ("a round's seamless moves", lambda: ledger.seamless_round_moves(round_id=1, kind="op_credit", version=1, moves=[], memo="")),
    ("the outbox", lambda: outbox.outbox_add([])),
    ("a transition", lambda: transition(Held(table_id=1, round=Round(pk=1)), frm="betting", to="dealing", action="betting_closed")),
    ("a round's locks", lambda: lock_round(1)),
    ("a table's locks", lambda: lock_table(1)),
    ("a chained record", lambda: chain.append("test", {"kind": "x"})),
    ("a chain's head held", lambda: chain.hold("test")),
    ("a table event", lambda: stream.table_event(Held(table_id=1), TableState(state="open", reason=""))),
    ("the helper itself", lambda: require_transaction("this")),
]


@pytest.mark.parametrize("what, call", OUTSIDE, ids=[w for w, _ in OUTSIDE])
def test_what_belongs_to_a_transaction_is_refused_outside_one(what, call):
    with pytest.raises(TransactionManagementError):
        call()


@pytest.mark.django_db
def test_no_call_to_an_operators_wallet_is_made_inside_a_transaction():
    with transaction.atomic(), pytest.raises(TransactionManagementError):
        operator_wallet.call(operator=None, action="debit", body={})


@pytest.mark.django_db
@pytest.mark.parametrize("call, error", [
    (lambda: ledger.post(wallet=_wallets()[1], counter=_wallets()[0], amount=Decimal("1"), kind="issue"), ValueError),
    (lambda: ledger.post(wallet=_wallets()[0], counter=_wallets()[0], amount=Decimal("1"), kind="issue"), ValueError),
    (lambda: ledger.round_entries(None, round_id=1, kind="win", credit="payout", statuses=("won", "paid"), house_id=1, version=1,
                                  now=None, memo=""), ValueError),
    (lambda: operator_wallet.call(operator=None, action="steal", body={}), ValueError),
    (lambda: stream.table_event(Held(table_id=1), {"type": "round.opened"}), TypeError),
    (lambda: stream.table_event(1, TableState(state="open", reason="")), TypeError),  # no locks: not numbered
    (lambda: transition(1, frm="betting", to="dealing", action="betting_closed"), TypeError),
    (lambda: stream.user_events([(1, "bet.placed")]), TypeError),
    (lambda: supervisor_event({"type": "alert"}), TypeError),
    (lambda: change_record(table_id=1, actor=None, source="shell", field="name", old="a", new="b"), ValueError),
    (lambda: table_update(table_id=1, changes={"stream_seq": 0}, actor=None, source="api"), ValueError),
    (lambda: rollup_settlement(rnd=None, sign=2), ValueError),
    (lambda: rollup_count(rnd=None, jackpots=1), ValueError),
    (lambda: report(group="weather", filters=None), ValueError),
], ids=["post-from-the-house", "post-player-to-player", "unknown-status", "unknown-action", "table-event-type", "table-event-unlocked", "transition-unlocked", "personal-event-type",
        "supervisors-event-type", "change-source", "table-field", "rollup-sign", "rollup-counter", "report-group"])
def test_each_check_refuses_what_its_callers_never_pass(call, error):
    with transaction.atomic():  # where a transaction is needed: only the check under test refuses
        with pytest.raises(error):
            call()


async def test_the_http_bridge_serves_only_http():
    with pytest.raises(ValueError):
        await WsgiHttp(lambda environ, start_response: [])({"type": "websocket"}, None, None)


OPTIMIZED = """
import sys
from decimal import Decimal

import django

django.setup()
from django.db.transaction import TransactionManagementError

from bets.ledger import post
from bets.models import Account
from tables import stream

if sys.flags.optimize < 1 or __debug__:
    sys.exit("not run with -O")
try:
    post(wallet=Account(pk=1, kind="player"), counter=Account(pk=2, kind="house"), amount=Decimal("1"), kind="issue")
except TransactionManagementError:
    print("outside a transaction: refused")
try:
    stream.user_events([(1, "bet.placed")])
except TypeError:
    print("not an event: refused")
"""


def test_the_checks_hold_under_python_O():
    """`python -O` drops every assert: the guards of the ledger and of the stream still refuse. The
    database named is unreachable, so a guard that let the call through fails on it instead."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}
    result = subprocess.run([sys.executable, "-O", "-c", OPTIMIZED], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split("\n")[:2] == ["outside a transaction: refused", "not an event: refused"], result.stdout
