"""verify_audit against edits behind the application's back (raw SQL):
each edit, deletion or forged insertion breaks the chain it touches at the right link, the command
exits non-zero naming it, and the other chains stay whole."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from audit.chain import digest, link, numbered, table_key
from audit.models import ChainHead
from accounts.models import AccessChange
from tables.models import DealtCard, RoundEvent, TableChange
from tables.services import table_state_set
from tests.audit.world import build

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(dealer, supervisor, alice, bob):
    return build(dealer=dealer, supervisor=supervisor, alice=alice, bob=bob)


def verify_audit(*args) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_audit", *args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def sql(statement: str, params=()) -> int:
    with connection.cursor() as cur:
        cur.execute(statement, params)
        return cur.rowcount


def broken_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("BROKEN")]


def test_a_fresh_studio_is_whole_and_each_chain_says_its_length_and_head(world):
    code, output = verify_audit()
    assert code == 0, output
    for key in (table_key(world.a.pk), table_key(world.b.pk), "studio"):
        head = ChainHead.objects.get(key=key)
        assert f"{key}: whole, {head.seq} records, head {head.hash}" in output
    assert "All 3 chains are whole." in output
    # Table A's chain interleaves its change log with its rounds' events, in commit order.
    a = table_key(world.a.pk)
    seqs = sorted([*RoundEvent.objects.filter(chain=a).values_list("chain_seq", flat=True),
                   *TableChange.objects.filter(table=world.a).values_list("chain_seq", flat=True)])
    assert seqs == list(range(1, ChainHead.objects.get(key=a).seq + 1))
    assert TableChange.objects.filter(table=world.a, chain_seq=1, field="created").exists()


def event(world, action: str, rnd=None) -> RoundEvent:
    return RoundEvent.objects.filter(round=rnd or world.settled, action=action).order_by("chain_seq").first()


def _edit_round_event(world):
    e = event(world, "card")
    sql("UPDATE tables_roundevent SET to_status = 'finished' WHERE id = %s", [e.pk])
    return "RoundEvent", e.pk, e.chain_seq, "edited"


def _edit_table_change(world):
    change = TableChange.objects.get(table=world.a, field="state_reason", new="new shoe")
    sql("UPDATE tables_tablechange SET new = 'a quiet night' WHERE id = %s", [change.pk])
    return "TableChange", change.pk, change.chain_seq, "edited"


def _delete_record(world):
    e = event(world, "incident_note")
    sql("DELETE FROM tables_roundevent WHERE id = %s", [e.pk])
    return "RoundEvent", None, e.chain_seq + 1, "missing"


def _insert_out_of_order(world):
    """A forged change-log row with a plausible seq (the one of round 1's finish), whose hash is
    even computed right from the record before it."""
    finished = event(world, "finished")
    before = (RoundEvent.objects.filter(chain=finished.chain, chain_seq=finished.chain_seq - 1).first()
              or TableChange.objects.get(table=world.a, chain_seq=finished.chain_seq - 1))
    row = {"table_id": world.a.pk, "at": finished.at, "actor_name": "nobody", "source": "api", "field": "min_bet", "old": "10", "new": "1"}
    new = link(before.hash, digest(numbered({"kind": "table_change", **row}, key=finished.chain, seq=finished.chain_seq)))
    sql("INSERT INTO tables_tablechange (table_id, at, actor_name, source, field, old, new, chain_seq, prev_hash, hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [world.a.pk, connection.ops.adapt_datetimefield_value(finished.at), "nobody", "api", "min_bet", "10", "1",
         finished.chain_seq, before.hash, new])
    forged = TableChange.objects.get(table=world.a, field="min_bet", actor_name="nobody")
    return "TableChange", forged.pk, finished.chain_seq, "inserted out of order"


def _edit_dealt_card(world):
    card = DealtCard.objects.get(round=world.settled, position=5)
    sql("UPDATE tables_dealtcard SET card = 'JC' WHERE id = %s", [card.pk])
    seq = RoundEvent.objects.get(round=world.settled, action="card", data__position=5).chain_seq
    return "DealtCard", card.pk, seq, "card differs from its events"


def _edit_round_winner(world):
    sql("UPDATE tables_round SET winner = 'bahar' WHERE id = %s", [world.settled.pk])
    return "Round", world.settled.pk, None, "round differs from its events"


def _edit_round_totals(world):
    sql("UPDATE tables_round SET total_paid = total_paid + 10000 WHERE id = %s", [world.settled.pk])
    return "Round", world.settled.pk, None, "round differs from its events"


def _edit_incident_status(world):
    sql("UPDATE tables_incident SET status = 'open' WHERE id = %s", [world.incident.pk])
    return "Incident", world.incident.pk, None, "incident differs from its events"


@pytest.mark.parametrize("tamper", [_edit_round_event, _edit_table_change, _delete_record, _insert_out_of_order, _edit_dealt_card,
                                    _edit_round_winner, _edit_round_totals, _edit_incident_status],
                         ids=lambda f: f.__name__.strip("_"))
def test_an_edit_behind_the_applications_back_breaks_its_chain_at_that_link(world, tamper):
    model, row_id, seq, what = tamper(world)
    code, output = verify_audit()
    assert code == 1, output
    lines = broken_lines(output)
    assert len(lines) == 1, output  # the first broken link of the one broken chain
    line = lines[0]
    assert line.startswith(f"BROKEN {table_key(world.a.pk)} seq ")
    assert f": {model} " in line and f": {what}: " in line, line
    if row_id is not None:
        assert f": {model} {row_id}: " in line, line
    if seq is not None:
        assert line.startswith(f"BROKEN {table_key(world.a.pk)} seq {seq}: "), line
    assert f"{table_key(world.b.pk)}: whole" in output and "studio: whole" in output
    assert "1 of 3 chains are broken." in output
    # --table checks one table: the untouched one is whole.
    assert verify_audit("--table", str(world.b.pk))[0] == 0
    assert verify_audit("--table", str(world.a.pk))[0] == 1


def test_an_edited_access_change_breaks_the_studio_chain(world):
    record = AccessChange.objects.filter(field="groups").order_by("chain_seq").first()
    sql("UPDATE accounts_accesschange SET new = 'supervisor' WHERE id = %s", [record.pk])
    code, output = verify_audit()
    assert code == 1
    assert broken_lines(output) == [f"BROKEN studio seq {record.chain_seq}: AccessChange {record.pk}: edited: "
                                    "its content does not give its hash (a column was changed)"]
    assert f"{table_key(world.a.pk)}: whole" in output
    assert verify_audit("--table", str(world.a.pk))[0] == 0  # the studio chain is not a table's


def test_a_deleted_last_record_and_a_record_outside_the_chain_are_seen(world, supervisor):
    table_state_set(table_id=world.b.pk, state="closed", actor=supervisor)
    head = ChainHead.objects.get(key=table_key(world.b.pk))
    last = TableChange.objects.get(table=world.b, chain_seq=head.seq)
    sql("DELETE FROM tables_tablechange WHERE id = %s", [last.pk])
    code, output = verify_audit("--table", str(world.b.pk))
    assert code == 1
    assert broken_lines(output)[0].startswith(f"BROKEN {head.key} seq {head.seq}: ChainHead {head.pk}: missing: ")

    sql("UPDATE tables_roundevent SET chain_seq = NULL, chain = NULL WHERE id = %s",
        [RoundEvent.objects.get(round=world.voided, action="voided").pk])
    code, output = verify_audit("--table", str(world.a.pk))
    assert code == 1
    assert any("inserted out of order" in line or "missing" in line for line in broken_lines(output)), output


def test_an_edited_card_time_and_an_edited_note_are_seen(world):
    card = DealtCard.objects.get(round=world.settled, position=1)
    sql("UPDATE tables_dealtcard SET dealt_at = %s WHERE id = %s",
        [connection.ops.adapt_datetimefield_value(world.settled.opened_at), card.pk])
    code, output = verify_audit("--table", str(world.a.pk))
    assert code == 1 and f"DealtCard {card.pk}: card differs from its events" in output
    sql("UPDATE tables_dealtcard SET dealt_at = %s WHERE id = %s",
        [connection.ops.adapt_datetimefield_value(card.dealt_at), card.pk])
    assert verify_audit("--table", str(world.a.pk))[0] == 0

    sql("UPDATE tables_incident SET notes = %s WHERE id = %s", ['[]', world.incident.pk])
    code, output = verify_audit("--table", str(world.a.pk))
    assert code == 1 and f"Incident {world.incident.pk}: incident differs from its events: its notes" in output


def test_an_unknown_table_is_refused():
    with pytest.raises(CommandError, match="No table 999"):
        call_command("verify_audit", "--table", "999", stdout=StringIO())
