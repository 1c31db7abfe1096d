"""The hook points of tables.hooks (and accounts.hooks, for accounts, below tables): declared there
and only there, each connected by exactly the apps that react to it, each reaction running once
however often an app registers it."""
import ast
from pathlib import Path

import pytest
from django.apps import apps
from django.db import transaction
from django.dispatch import Signal

from accounts import hooks as accounts_hooks
from accounts.models import Token
from bets.models import WalletTransaction
from tables import hooks
from tables.models import Round
from tables.services import card_deal, round_close_betting, round_open

ROOT = Path(__file__).resolve().parents[2]
PROJECT_APPS = ["accounts", "tables", "bets", "incidents", "matches", "virtual", "integrity", "reports", "web"]

# Who reacts to what: the table in tables/hooks.py's docstring, as the apps connect it.
REACTIONS = {
    "betting_opened": ["tables.tasks.schedule_close_betting"],
    "round_finished": ["bets.tasks.settle_when_finished"],
    "round_settled": ["matches.services.on_round_settled", "integrity.services.on_round_settled", "integrity.publiclog.on_final",
                      "reports.rollup.on_round_settled"],
    "round_voided": ["matches.services.on_round_voided", "integrity.services.on_round_voided", "integrity.publiclog.on_final",
                     "reports.rollup.on_round_voided"],
    "card_refused": ["integrity.services.on_card_refused"],
    "round_unsettling": ["reports.rollup.on_round_unsettling"],
    "incident_raised": ["reports.rollup.on_incident_raised"],
    "wallet_due": ["bets.tasks.send_when_due"],
}
ACCOUNTS_REACTIONS = {"credentials_revoked": ["tables.stream.credentials_revoked"]}


def receivers_of(hook: Signal, rnd: Round) -> list[str]:
    """Send the hook as its sender does and name every receiver that ran (Signal.send's answer)."""
    sent = hook.send(sender=WalletTransaction, pks=[], eta=None) if hook is hooks.wallet_due else hook.send(sender=Round, rnd=rnd)
    return [f"{receiver.__module__}.{receiver.__qualname__}" for receiver, _ in sent]


def accounts_receivers_of(hook: Signal) -> list[str]:
    """As receivers_of, for accounts' hooks (a close order for no one's credentials)."""
    sent = hook.send(sender=Token, user_id=0, digests=[], sessions=False)
    return [f"{receiver.__module__}.{receiver.__qualname__}" for receiver, _ in sent]


def sent(held_tasks) -> list[tuple[str, tuple]]:
    """The names and arguments of the tasks sent after commit (held, not run: tests/conftest.py)."""
    return [(task.name, args) for task, args in held_tasks]


def play_to_the_match(table, dealer) -> Round:
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    card_deal(round_id=rnd.pk, card="2C", actor=dealer)
    _, finished = card_deal(round_id=rnd.pk, card="KD", actor=dealer)
    assert finished
    return rnd


def test_the_hooks_are_declared_in_the_hooks_modules_only():
    declared = {name: value for name, value in vars(hooks).items() if isinstance(value, Signal)}
    assert declared == hooks.HOOKS
    assert set(hooks.HOOKS) == set(REACTIONS)
    assert {name: value for name, value in vars(accounts_hooks).items() if isinstance(value, Signal)} == accounts_hooks.HOOKS
    assert set(accounts_hooks.HOOKS) == set(ACCOUNTS_REACTIONS)
    made_elsewhere = []
    for package in PROJECT_APPS + ["engine", "studio"]:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                callee = getattr(node, "func", None)
                if isinstance(node, ast.Call) and getattr(callee, "id", getattr(callee, "attr", None)) == "Signal":
                    made_elsewhere.append(str(path.relative_to(ROOT)))
    assert sorted(made_elsewhere) == ["accounts/hooks.py"] * len(accounts_hooks.HOOKS) + ["tables/hooks.py"] * len(hooks.HOOKS)


@pytest.mark.django_db
def test_each_hook_reaches_exactly_the_apps_that_react_to_it(dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert {name: receivers_of(hook, rnd) for name, hook in hooks.HOOKS.items()} == REACTIONS
    assert {name: accounts_receivers_of(hook) for name, hook in accounts_hooks.HOOKS.items()} == ACCOUNTS_REACTIONS


@pytest.mark.django_db
def test_a_reaction_registered_twice_runs_once(dealer, table, held_tasks, django_capture_on_commit_callbacks):
    for label in PROJECT_APPS:
        apps.get_app_config(label).ready()
    with django_capture_on_commit_callbacks(execute=True):
        rnd = play_to_the_match(table, dealer)
    assert sent(held_tasks) == [("tables.tasks.close_betting", (rnd.pk,)), ("bets.tasks.settle_round", (rnd.pk,))]
    assert {name: receivers_of(hook, rnd) for name, hook in hooks.HOOKS.items()} == REACTIONS
    assert {name: accounts_receivers_of(hook) for name, hook in accounts_hooks.HOOKS.items()} == ACCOUNTS_REACTIONS


@pytest.mark.django_db
def test_a_reaction_waits_for_the_commit_and_dies_with_a_rollback(dealer, table, held_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        play_to_the_match(table, dealer)
    assert sent(held_tasks) == []  # the hooks ran inside the transactions; their tasks wait for the commit
    for callback in callbacks:
        callback()
    assert [name for name, _ in sent(held_tasks)] == ["tables.tasks.close_betting", "bets.tasks.settle_round"]

    held_tasks.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            rnd = play_to_the_match(table, dealer)
            raise RuntimeError("rolled back")
    assert (callbacks, sent(held_tasks)) == ([], [])
    assert not Round.objects.filter(pk=rnd.pk).exists()
