"""Appends racing on one chain, over real parallel PostgreSQL connections: writers that lock
different rows (the table for its change log, the round for its events) meet at the chain's head,
and the chain comes out numbered 1..n with no gap and no duplicate, whole for verify_audit."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from audit.chain import table_key
from audit.models import ChainHead
from incidents.services import incident_add_note, incident_raise
from tables.models import RoundEvent, TableChange
from engine import FULL_PACK
from tables.services import card_deal, round_close_betting, round_open, table_update
from tests.parallel import at_once

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 10  # appends per writer


def test_parallel_writers_on_one_tables_chain_number_it_without_gap_or_duplicate(make_table, dealer, supervisor):
    busy, other = make_table(name="Busy"), make_table(name="Other")
    rnd = round_open(table_id=busy.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="watching")
    key = table_key(busy.pk)
    before = ChainHead.objects.get(key=key).seq

    def notes(n):
        for i in range(ROUNDS):
            incident_add_note(incident_id=incident.pk, actor=supervisor, text=f"writer {n}, note {i}")
        return "notes"

    def changes(table_id, n):
        for i in range(ROUNDS):
            table_update(table_id=table_id, changes={"betting_seconds": 20 + n * ROUNDS + i}, actor=supervisor, source="api")
        return "changes"

    jobs = [lambda n=n: notes(n) for n in range(4)] + [lambda n=n: changes(busy.pk, n) for n in range(4)]
    jobs += [lambda n=n: changes(other.pk, n) for n in range(2)]
    results = at_once(*jobs)
    assert not [r for r in results if isinstance(r, BaseException)], results

    seqs = sorted([*RoundEvent.objects.filter(chain=key).values_list("chain_seq", flat=True),
                   *TableChange.objects.filter(table=busy).values_list("chain_seq", flat=True)])
    assert seqs == list(range(1, before + 8 * ROUNDS + 1))
    assert ChainHead.objects.get(key=key).seq == before + 8 * ROUNDS
    assert ChainHead.objects.get(key=table_key(other.pk)).seq == 2 * ROUNDS
    out = StringIO()
    call_command("verify_audit", stdout=out)  # outside any transaction: its own REPEATABLE READ snapshot
    assert f"{key}: whole, {before + 8 * ROUNDS} records" in out.getvalue()
    assert "All 3 chains are whole." in out.getvalue()


def test_a_dealer_dealing_while_a_supervisor_changes_the_table_never_deadlocks(make_table, dealer, supervisor):
    """Each card locks the round, then the table's row and the chain's head, then numbers its stream
    event on the table's row; each change of the table locks its row, then the head. Both orders
    take the table's row before the head, so neither waits on the other in a cycle."""
    table = make_table(name="Dealing", betting_seconds=15)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    cards = [str(c) for c in FULL_PACK if str(c)[:-1] != "K"][:30]  # no king: the round goes on
    key = table_key(table.pk)
    before = ChainHead.objects.get(key=key).seq

    def deal():
        for card in cards:
            card_deal(round_id=rnd.pk, card=card, actor=dealer)
        return "dealt"

    def changes(n):
        for i in range(ROUNDS):
            table_update(table_id=table.pk, changes={"shift_minutes": 60 + n * ROUNDS + i}, actor=supervisor, source="api")
        return "changes"

    results = at_once(*[deal] + [lambda n=n: changes(n) for n in range(3)])
    assert results == ["dealt", "changes", "changes", "changes"], results
    assert ChainHead.objects.get(key=key).seq == before + len(cards) + 3 * ROUNDS
    out = StringIO()
    call_command("verify_audit", "--table", str(table.pk), stdout=out)
    assert f"{key}: whole, {before + len(cards) + 3 * ROUNDS} records" in out.getvalue()
